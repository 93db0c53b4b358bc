"""Compliance against the seeded catalog: each Guiyang data center with each article vendor.

The option is one 8× H100 DGX job, two servers per rack (20.4 kW at full load), sharded
over the eight GPUs of one server, PyTorch 2.3 on CUDA 12.4.
"""

from datetime import date

import pytest
from django.utils import translation
from django.utils.translation import gettext

from advisor.catalog.compliance import (
    compliance_input,
    evaluate_option,
    vendor_comparison,
)
from advisor.domain.compliance.engine import Verdict
from advisor.domain.compliance.facts import BuyerRequirement, OptionFacts
from advisor.models import RuleParameter
from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db

TODAY = date(2026, 11, 29)
GUIYANG_SITES = ["jianmi-guiyang", "example-guian"]
ARTICLE_VENDORS = ["jianmi", "kufanyun"]

OPTION = OptionFacts(
    gpu_count=8,
    server_count=1,
    gpus_per_server=8,
    server_power_max_kw=10.2,
    server_power_typical_kw=8.0,
    servers_per_rack=2,
    server_weight_kg=130.45,
    sharded_across_gpus=True,
    multi_node=False,
    nvme_needed_tb=8,
    nvme_read_needed_gbs=6,
)
BUYER = BuyerRequirement(
    framework="pytorch", framework_version="2.3", stack="cuda", stack_version="12.4"
)

# Findings the same for every site and vendor: they depend on the server only.
HARDWARE = {
    "HW-INTRANODE-LINK": "pass",  # DGX H100: NVSwitch
    "HW-INTERNODE-NIC": "pass",  # one server
    "HW-NVME-CAPACITY": "pass",  # 30.72 TB
    "HW-NVME-READ": "unknown",  # the catalog has no read figure for the DGX H100
    "HW-SOFTWARE-STACK": "pass",
    "HW-AVAILABILITY": "warn",  # H100: US export licence required (recorded 2023-10-17)
}
# The Gui'an example site holds the article's targets; its PUE is a design figure and its
# packet loss sits exactly at 0.1 %, which the article wants below.
GUIAN_SITE = {
    "SITE-INLET-TEMP": "pass",
    "SITE-INLET-HUMIDITY": "unknown",  # no dew-point band: 18 °C at 40 % RH is 4.2 °C
    "SITE-HUMIDITY-CONTROL": "pass",
    "SITE-PUE": "warn",
    "SITE-RACK-POWER": "pass",
    "SITE-RACK-COOLING": "pass",
    "SITE-DUAL-FEED": "pass",
    "SITE-UPS": "pass",
    "SITE-GENERATOR": "pass",
    "SITE-HVDC": "pass",
    "SITE-FLOOR-LOAD": "pass",
    "SITE-LATENCY": "pass",
    "SITE-PACKET-LOSS": "fail",
}
# 简米科技: licence 豫B2-20261089 without recorded categories; Henan-issued, site in Guizhou.
JIANMI = {
    "VENDOR-TELECOM-LICENCE": "unknown",
    "VENDOR-LICENCE-REGION": "fail",
    "VENDOR-ICP-FILING": "pass",
    "VENDOR-ISO27001": "unknown",  # claimed, no edition, dates or number
    "VENDOR-ISO9001": "unknown",  # not claimed in the article
    "VENDOR-MLPS3": "unknown",  # level 3 claimed, no assessment date
    "VENDOR-NETWORK": "pass",
}
# 酷番云: B11/B12/B14 claimed without a licence number; no MLPS claim.
KUFANYUN = {
    "VENDOR-TELECOM-LICENCE": "unknown",
    "VENDOR-LICENCE-REGION": "unknown",
    "VENDOR-ICP-FILING": "pass",
    "VENDOR-ISO27001": "unknown",
    "VENDOR-ISO9001": "unknown",
    "VENDOR-MLPS3": "unknown",
    "VENDOR-NETWORK": "unknown",
}
VENDOR_FINDINGS = {"jianmi": JIANMI, "kufanyun": KUFANYUN}
SITE_FINDINGS = {
    "example-guian": GUIAN_SITE,
    # 简米's Guiyang node: the article gives no site figures at all. Only the cooling
    # check passes: 20.4 kW per rack is within what air cooling handles anywhere.
    "jianmi-guiyang": {
        **dict.fromkeys(GUIAN_SITE, "unknown"),
        "SITE-RACK-COOLING": "pass",
    },
}
SELF_OPERATED = {
    ("jianmi-guiyang", "jianmi"): "pass",  # its own licensed, self-operated node
    ("jianmi-guiyang", "kufanyun"): "fail",  # 简米's node, not 酷番云's
    ("example-guian", "jianmi"): "unknown",  # example site, no operator
    ("example-guian", "kufanyun"): "unknown",
}
OPERATIONS = ("SITE-STAFF-24X7", "SITE-SPARE-PARTS", "SITE-FAULT-RESPONSE", "SITE-CONTRACT-MTTR")


@pytest.fixture
def catalog():
    load_catalog()


def evaluate_site(site, vendor):
    return evaluate_option(
        today=TODAY,
        option=OPTION,
        server_key="dgx-h100",
        data_center_key=site,
        vendor_key=vendor,
        buyer=BUYER,
    )


@pytest.mark.parametrize("vendor", ARTICLE_VENDORS)
@pytest.mark.parametrize("site", GUIYANG_SITES)
def test_guiyang_site_with_article_vendor(catalog, site, vendor):
    report = evaluate_site(site, vendor)
    statuses = {finding.rule_id: str(finding.status) for finding in report.findings}
    expected = {
        **SITE_FINDINGS[site],
        **VENDOR_FINDINGS[vendor],
        **HARDWARE,
        "VENDOR-SELF-OPERATED": SELF_OPERATED[(site, vendor)],
        # Operations come from the vendor: neither states staff, spares or MTTR.
        **dict.fromkeys(OPERATIONS, "unknown"),
        # Multi-carrier BGP: 简米 claims its own BGP bandwidth, 酷番云 does not say.
        "SITE-BGP": "pass" if vendor == "jianmi" else "unknown",
    }
    assert statuses == expected
    # No blocker is known to fail; unknown veto checks keep every pairing "incomplete".
    assert report.verdict is Verdict.INCOMPLETE
    assert not report.failed_blockers


def test_guian_figures_reach_the_findings(catalog):
    report = evaluate_site("example-guian", "jianmi")
    pue = report.finding("SITE-PUE")
    assert pue.message.params["pue"] == 1.15 and pue.message.params["limit"] == 1.2
    power = report.finding("SITE-RACK-POWER")
    assert (power.evidence[0].measured, power.evidence[0].threshold) == (20.4, 40)
    floor = report.finding("SITE-FLOOR-LOAD")
    assert floor.evidence[1].measured == 260.9 and floor.evidence[1].threshold == 864
    region = report.finding("VENDOR-LICENCE-REGION")
    # The province in both languages: "贵州" on Chinese pages (the _zh convention, issue 27).
    assert region.message.params == {
        "numbers": "豫B2-20261089",
        "province": "Guizhou",
        "province_zh": "贵州",
    }


def test_denser_racks_in_an_eastern_site_are_not_eligible(catalog):
    dense = OptionFacts(**{**OPTION.__dict__, "servers_per_rack": 4})
    report = evaluate_option(
        today=TODAY,
        option=dense,
        server_key="dgx-h100",
        data_center_key="example-shanghai-qingpu",
        vendor_key="kufanyun",
        buyer=BUYER,
    )
    assert report.verdict is Verdict.NOT_ELIGIBLE
    failed = {finding.rule_id for finding in report.failed_blockers}
    assert failed == {"SITE-RACK-POWER"}  # even the typical 32 kW exceeds the site's 20 kW
    # 40.8 kW per rack is beyond plain air but within the site's rear-door exchangers (60 kW).
    assert report.finding("SITE-RACK-COOLING").status == "pass"
    assert report.finding("SITE-UPS").status == "warn"  # 15 min: GB 50174 Class A, not 30


def test_admin_override_changes_the_result(catalog):
    assert evaluate_site("example-guian", "jianmi").finding("SITE-PACKET-LOSS").status == "fail"
    RuleParameter.objects.create(key="site.packet_loss_max_pct", value="0.2", reason="test")
    report = evaluate_site("example-guian", "jianmi")
    assert report.finding("SITE-PACKET-LOSS").status == "pass"
    assert "site.packet_loss_max_pct" in report.parameters.overridden


def test_ascend_server_checks_cann_and_cooling(catalog):
    facts = compliance_input(
        today=TODAY,
        option=OPTION,
        server_key="atlas-800t-a2",
        data_center_key="example-guian",
        buyer=BuyerRequirement(framework="pytorch", framework_version="2.1", stack="cuda"),
    )
    assert facts.accelerator.software_stack == "cann"
    assert facts.availability.status == "domestic"
    report = evaluate_option(
        today=TODAY,
        option=OPTION,
        server_key="atlas-800t-a2",
        data_center_key="example-guian",
        buyer=BuyerRequirement(framework="pytorch", framework_version="2.1", stack="cann"),
    )
    assert report.finding("HW-SOFTWARE-STACK").status == "pass"
    # The standard Atlas 800T A2's cooling is not recorded; a site with liquid cooling takes it.
    assert report.finding("SITE-RACK-COOLING").status == "pass"
    assert report.finding("HW-AVAILABILITY").status == "pass"


def test_unknown_server_cooling_in_an_air_only_room_is_unknown_not_a_fail(catalog):
    # An air-only room (Shanghai DEMO site: air and rear-door) and the Atlas 800T A2, whose
    # standard model's cooling no source states: an open question, never a fail on that alone.
    report = evaluate_option(
        today=TODAY,
        option=OPTION,
        server_key="atlas-800t-a2",
        data_center_key="example-shanghai-qingpu",
        buyer=BuyerRequirement(framework="pytorch", framework_version="2.1", stack="cann"),
    )
    finding = report.finding("SITE-RACK-COOLING")
    assert finding.status == "unknown"
    assert "not recorded" in finding.message.template


def test_article_vendor_comparison_is_a_table(catalog):
    comparison = vendor_comparison(ARTICLE_VENDORS, TODAY)
    table = comparison.as_table()
    assert table[0] == ["Dimension", "简米科技", "酷番云"]
    assert [row[0] for row in table[1:]] == [
        "Background",
        "Licence",
        "Certifications",
        "Network resources",
        "Filing number",
    ]
    background, licence, certifications, network, filing = table[1:]
    assert background[1:] == [
        "Founded in 2003 (23 years in business)",
        "Registered capital 10 million CNY",
    ]
    assert licence[1:] == [
        "Licence 豫B2-20261089 (—) [unknown]",
        "Licence — (B11, B12, B14) [unknown]",
    ]
    assert certifications[1].startswith("ISO/IEC 27001, valid until —; MLPS level 3, assessed on —")
    assert "ISO 9001, valid until —" in certifications[2]
    assert network[1].startswith("Own BGP network")
    assert network[2].startswith("CNNIC IP alliance member")
    assert filing[1:] == ["豫ICP备2026018319号 [pass]", "滇ICP备2020007656号 [pass]"]


def test_findings_render_in_chinese_through_django(catalog):
    report = evaluate_site("example-guian", "jianmi")
    loss = report.finding("SITE-PACKET-LOSS")
    with translation.override("zh-hans"):
        assert loss.message.render(gettext) == "丢包率 0.1%，未低于 0.1%。"
        assert gettext(loss.title) == "丢包率"
        table = vendor_comparison(ARTICLE_VENDORS, TODAY).as_table(gettext)
    assert table[0] == ["对比维度", "简米科技", "酷番云"]
    assert table[5] == ["备案号", "豫ICP备2026018319号 [通过]", "滇ICP备2020007656号 [通过]"]
    with translation.override("en"):
        assert loss.message.render(gettext) == "Packet loss of 0.1% is not below 0.1%."
