"""What a reader reads of the compliance findings, in each language (issue 27, items 1 and 5).

Rendered the way pages and the brief render them (presentation.text): no English reaches a
Chinese page from the compliance domain (province names, the export-control paragraph, laws),
the catalog's free text is not quoted inside a finding, rule ids are words.
"""

import re
from dataclasses import replace

import pytest
from django.utils import translation

from advisor.domain.compliance.engine import CLOUD_RULES, evaluate_rule, rule_name
from advisor.domain.compliance.facts import AvailabilityFacts, CloudFacts, LicenceFacts
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS
from advisor.domain.i18n import N_, Message
from advisor.presentation.text import evidence_text, render_text, rule_text
from tests.unit.test_compliance_support import days, evaluate_one, facts

H20_NOTE = (
    "Designed to fall below Oct-2023 thresholds; 2025-04-09 USG told NVIDIA a license is "
    "required for China/HK/Macau/D:5 (indefinite, 2025-04-14); 2025-07-14/15 NVIDIA said USG "
    "assured licenses would be granted. Verify current status before procurement."
)
HENAN_LICENCE = {
    "licences": (LicenceFacts(number="豫B2-20261089", categories=("B11",), valid_until=days(400)),)
}
CLOUD_RESIDENCY = next(rule for rule in CLOUD_RULES if rule.id == "CLOUD-RESIDENCY")
# Latin words a Chinese sentence may hold: standard and product names, units, codes.
ALLOWED_LATIN = re.compile(
    r"https?://\S+|GB(/T)?|ISO(/IEC)?|IEC|PUE|MTTR|IDC|B11|BIS|US|CNNIC|BGP|ICP|MLPS|NVMe|UPS|"
    r"HVDC|NVSwitch|NVLink|InfiniBand|RoCE|CUDA|ROCm|CANN|HCCS|xGMI|PCIe|PyTorch|GPU|NPU|RH|"
    r"kW|kg|ms|TB|GB/s|Gb/s|°C"
)


def _render(value, language):
    with translation.override(language):
        return render_text(value)


def finding(rule_id, **parts):
    return evaluate_one(rule_id, facts(**parts))


def cloud_finding(mainland, provider="Example Cloud", region="us-east-1"):
    # Provider and region are catalog names (shown as the catalog records them).
    cloud = CloudFacts(provider=provider, region=region, mainland_china=mainland)
    return evaluate_rule(CLOUD_RESIDENCY, replace(facts(), cloud=cloud), DEFAULT_PARAMETERS)


@pytest.mark.parametrize(
    ("make", "language", "shown", "never"),
    [
        # The licence's province in the reader's language ("不覆盖 Guizhou" before).
        (lambda: finding("VENDOR-LICENCE-REGION", vendor=HENAN_LICENCE,
                         data_center={"province": "Guizhou"}),
         "zh-hans", "许可证 豫B2-20261089 不覆盖 贵州", "Guizhou"),
        (lambda: finding("VENDOR-LICENCE-REGION", vendor=HENAN_LICENCE,
                         data_center={"province": "贵州省"}),
         "en", "Licence 豫B2-20261089 does not cover Guizhou", "贵州"),
        # The zone by its Chinese name; the catalog's source text is not quoted.
        (lambda: finding("SITE-PUE", data_center={"pue": 1.31},
                         zone={"name_zh": "贵州省", "pue_limit_source": "NDRC/MIIT plan 2024"}),
         "zh-hans", "超过所在政策区域（贵州省）1.2 的限值", "NDRC/MIIT"),
        # The H20 export-control paragraph: a translated sentence, the catalog's English note
        # is not repeated inside the finding.
        (lambda: finding("HW-AVAILABILITY", availability=AvailabilityFacts(
            status="licence-required", as_of=days(-30), note=H20_NOTE)),
         "zh-hans", "需要美国出口许可证", "USG"),
        (lambda: finding("HW-AVAILABILITY", availability=AvailabilityFacts(
            status="licence-required", as_of=days(-30), note=H20_NOTE)),
         "en", "needs a US export licence", "USG"),
        # Laws by their Chinese titles and articles.
        (lambda: cloud_finding(False), "zh-hans", "《中华人民共和国个人信息保护法》第三十八条", "PIPL"),
        (lambda: cloud_finding(False), "en", "Article 38 of 《中华人民共和国个人信息保护法》", "art. 38"),
        # Codes in words.
        (lambda: finding("SITE-RACK-COOLING", option={"servers_per_rack": 4},
                         data_center={"max_rack_kw": 60, "cooling_kinds": ("air", "rear-door")}),
         "zh-hans", "数据中心提供风冷、背板换热器", "rear-door"),
        (lambda: finding("HW-INTRANODE-LINK", server={"topology": "pcie-switch"}),
         "zh-hans", "互联方式为 PCIe 交换芯片", "switch"),
    ],
)  # fmt: skip
def test_finding_messages_read_in_the_readers_language(make, language, shown, never):
    text = _render(make().message, language)
    assert shown in text, text
    assert never not in text, text


@pytest.mark.parametrize(
    "make",
    [
        lambda: finding("VENDOR-LICENCE-REGION", vendor=HENAN_LICENCE),
        lambda: finding("HW-AVAILABILITY", availability=AvailabilityFacts(
            status="licence-required", as_of=days(-30), note=H20_NOTE)),
        lambda: cloud_finding(False, "示例云", "美国东部"),
        lambda: cloud_finding(None, "示例云"),
        lambda: finding("SITE-LATENCY", data_center={"latency_east_china_ms": 45,
                                                     "latency_south_china_ms": None}),
        lambda: finding("SITE-CONTRACT-MTTR", data_center={"contract_mttr_h": None}),
        lambda: finding("VENDOR-ISO27001", vendor={"certificates": ()}),
    ],
)  # fmt: skip
def test_no_english_word_in_a_chinese_finding(make):
    result = make()
    texts = [_render(result.message, "zh-hans"), _render(result.title, "zh-hans")]
    with translation.override("zh-hans"):
        texts += [evidence_text(item) for item in result.evidence]
    for text in texts:
        words = re.findall(r"[A-Za-z][A-Za-z-]{2,}", ALLOWED_LATIN.sub("", text))
        assert not words, (words, text)
        assert "—" not in text, text


def test_evidence_names_the_province_in_chinese():
    result = finding("VENDOR-LICENCE-REGION", data_center={"province": "Guizhou"})
    with translation.override("zh-hans"):
        assert evidence_text(result.evidence[1]) == "数据中心所在省份为贵州。"
    with translation.override("en"):
        assert evidence_text(result.evidence[1]) == "The data center's province is Guizhou."


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("en", "required qualification not shown: Value-added telecom licence with IDC (B11)"),
        ("zh-hans", "未证明具备所要求的资质：含 IDC 业务（B11）的增值电信业务经营许可证"),
    ],
)
def test_a_reason_names_the_qualification_in_words(language, reason):
    message = Message(
        N_("required qualification not shown: {rule}"),
        {"rule": rule_name("VENDOR-TELECOM-LICENCE")},
    )
    assert _render(message, language) == reason
    with translation.override(language):
        assert rule_text("VENDOR-TELECOM-LICENCE") == reason.split("：")[-1].split(": ")[-1]


@pytest.mark.parametrize(
    ("language", "shown", "never"),
    [
        ("en", ["The UPS backup time is 20 min; the buyer asks for at least 30 min.",
                "UPS battery backup time at full load", "UPS backup time"], ["SITE-UPS", "ups_minutes", ">="]),
        ("zh-hans", ["UPS 后备时间为 20 分钟；采购方要求不低于 30 分钟。", "采购方要求（来源文章）",
                     "满载时 UPS 电池后备时间"],
         ["SITE-UPS", "ups_minutes", ">=", "原文"]),
    ],
)  # fmt: skip
def test_the_briefs_findings_table_reads_in_words(language, shown, never):
    from django.template.loader import render_to_string

    stored = finding("SITE-UPS", data_center={"ups_backup_min": 20}).as_dict()
    with translation.override(language):
        html = render_to_string(
            "brief/findings_table.html",
            {
                "findings": [stored],
                "area": "site",
                "declared_by_rule": {"SITE-UPS": ["ups_minutes"]},
            },
        )
    for text in shown:
        assert text in html, text
    for text in never:
        assert text not in html, text
