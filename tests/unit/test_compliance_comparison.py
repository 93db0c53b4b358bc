"""V4 vendor comparison: one row per dimension, one cell per vendor, each with its finding."""

from datetime import date

from advisor.domain.compliance.comparison import compare_vendors
from advisor.domain.compliance.facts import CertificateFacts, LicenceFacts, VendorFacts
from tests.unit.test_compliance_support import GOOD_VENDOR, TODAY

# The two vendors as the source article describes them (V4), nothing added.
JIANMI = VendorFacts(
    key="jianmi",
    name="简米科技",
    founded_year=2003,
    licences=(LicenceFacts(number="豫B2-20261089", categories=("B11",)),),
    icp_filing_number="豫ICP备2026018319号",
    certificates=(CertificateFacts(kind="iso27001"), CertificateFacts(kind="mlps", level=3)),
    own_bgp=True,
)
KUFAN = VendorFacts(
    key="kufan",
    name="酷番云",
    registered_capital_cny=10_000_000,
    licences=(LicenceFacts(categories=("B11", "B12", "B14")),),
    icp_filing_number="滇ICP备2020007656号",
    certificates=(CertificateFacts(kind="iso9001"), CertificateFacts(kind="iso27001")),
    cnnic_ip_alliance=True,
)


def test_table_has_the_source_dimensions_in_order():
    comparison = compare_vendors([JIANMI, KUFAN], TODAY)
    assert [row.key for row in comparison.rows] == [
        "background",
        "licence",
        "certifications",
        "network",
        "filing",
    ]
    assert comparison.vendor_names == ("简米科技", "酷番云")
    assert all(len(row.cells) == 2 for row in comparison.rows)


def test_cells_carry_the_recorded_values():
    table = compare_vendors([JIANMI, KUFAN], TODAY).as_table()
    assert table[0] == ["Dimension", "简米科技", "酷番云"]
    background, licence, _, network, filing = table[1:]
    assert background[1] == "Founded in 2003 (23 years in business)"
    assert background[2] == "Registered capital 10 million CNY"
    assert licence[1].startswith("Licence 豫B2-20261089 (B11)")
    assert licence[2].startswith("Licence — (B11, B12, B14)")
    assert network[2].startswith("CNNIC IP alliance member")
    assert filing[1] == "豫ICP备2026018319号 [pass]"
    assert filing[2] == "滇ICP备2020007656号 [pass]"


def test_each_cell_has_the_finding_behind_it():
    comparison = compare_vendors([JIANMI, KUFAN], TODAY)
    jianmi_licence, kufan_licence = comparison.row("licence").cells
    # 豫B2- is a category-2 number recorded with B11; no expiry recorded → unknown first.
    assert [f.rule_id for f in jianmi_licence.findings] == ["VENDOR-TELECOM-LICENCE"]
    assert jianmi_licence.status == "unknown"
    assert kufan_licence.status == "unknown"
    jianmi_certs, kufan_certs = comparison.row("certifications").cells
    assert [f.rule_id for f in jianmi_certs.findings] == [
        "VENDOR-ISO27001",
        "VENDOR-ISO9001",
        "VENDOR-MLPS3",
    ]
    # 简米 claims no ISO 9001 in the article: that finding fails, so the cell fails.
    assert jianmi_certs.findings[1].status == "fail"
    assert jianmi_certs.status == "fail"
    assert comparison.row("background").cells[0].status is None
    assert comparison.row("network").cells[0].status == "pass"
    assert comparison.row("network").cells[1].status == "unknown"


def test_any_number_of_vendors():
    comparison = compare_vendors([GOOD_VENDOR, JIANMI, KUFAN], TODAY)
    assert len(comparison.row("licence").cells) == 3
    assert comparison.row("licence").cells[0].status == "pass"
    assert compare_vendors([], TODAY).rows[0].cells == ()


def test_unrecorded_values_say_so():
    empty = VendorFacts(key="x", name="X")
    table = compare_vendors([empty], date(2026, 1, 1)).as_table()
    assert [row[1] for row in table[1:]] == [
        "Not recorded",
        "Not recorded [unknown]",
        "Not recorded [unknown]",
        "Not recorded [unknown]",
        "Not recorded [unknown]",
    ]


def test_table_renders_through_a_translation_function():
    table = {
        "Licence": "许可证",
        "Licence {number} ({categories})": "许可证 {number}（{categories}）",
    }
    rendered = compare_vendors([JIANMI], TODAY).as_table(lambda s: table.get(s, s))
    assert rendered[2][0] == "许可证"
    assert rendered[2][1].startswith("许可证 豫B2-20261089（B11）")
