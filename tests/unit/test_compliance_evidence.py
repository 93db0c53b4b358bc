"""A finding's evidence reads as a sentence in the reader's language, never as an expression.

Issue 27 saw "区域位于中国大陆: — == True", "PUE: — <= 1.2", "记录状态: domestic == available" and
"记录时长: 3 天 <= 90" in the brief. The evidence is now a message with parameters
(``evidence_sentence``): a label, the values with their units and the words for their codes,
and who requires what.
"""

import re
from dataclasses import replace

import pytest

from advisor.domain.compliance.base import Evidence, evidence_sentence
from advisor.domain.compliance.engine import CLOUD_RULES, evaluate_rule
from advisor.domain.compliance.facts import CloudFacts
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS
from tests.unit.test_compliance_engine import ALL_CASES
from tests.unit.test_compliance_i18n import zh
from tests.unit.test_compliance_support import days, evaluate_one, facts


def sentences(rule_id, compliance_input):
    finding = evaluate_one(rule_id, compliance_input)
    return [
        (evidence_sentence(item).render(), evidence_sentence(item).render(zh, "zh-hans"))
        for item in finding.evidence
    ]


@pytest.mark.parametrize(
    ("rule_id", "overrides", "index", "english", "chinese"),
    [
        ("SITE-PUE", {"data_center": {"pue": None}}, 0,
         "The data center's PUE is not recorded; its policy zone allows at most 1.2.",
         "数据中心的 PUE 值未记录；所在政策区域要求不超过 1.2。"),
        ("SITE-PUE", {"data_center": {"pue": 1.15, "pue_basis": "design"}}, 1,
         "The kind of PUE figure is a design figure; a measured annual figure is required.",
         "PUE 数据的类型为设计值；要求为实测年度值。"),
        ("SITE-DUAL-FEED", {"data_center": {"dual_utility_feeds": None}}, 0,
         "Two independent utility feeds: not recorded; this is required.",
         "两路独立市电接入：未记录；此项为必需。"),
        ("SITE-DUAL-FEED", {"data_center": {"dual_utility_feeds": False}}, 0,
         "Two independent utility feeds: no; this is required.",
         "两路独立市电接入：否；此项为必需。"),
        ("SITE-UPS", {"data_center": {"ups_backup_min": 20}}, 0,
         "The UPS backup time is 20 min; the buyer asks for at least 30 min.",
         "UPS 后备时间为 20 分钟；采购方要求不低于 30 分钟。"),
        ("SITE-UPS", {"data_center": {"ups_backup_min": 20}}, 1,
         "The UPS backup time is 20 min; GB 50174 Class A requires at least 15 min.",
         "UPS 后备时间为 20 分钟；GB 50174 A 级要求不少于 15 分钟。"),
        ("SITE-INLET-HUMIDITY", {"data_center": {"inlet_rh_max_pct": 65}}, 0,
         "The highest inlet relative humidity the room holds is 65%; at most 60% is required.",
         "机房保持的最高进风相对湿度为 65%；要求不超过 60%。"),
        ("SITE-RACK-COOLING", {"data_center": {"cooling_kinds": ("rear-door", "air")}}, 2,
         "The cooling the data center offers is air cooling, rear-door heat exchangers.",
         "数据中心提供的制冷方式为风冷、背板换热器。"),
        ("SITE-PACKET-LOSS", {"data_center": {"packet_loss_pct": 0.1}}, 0,
         "The packet loss is 0.1%; the buyer asks for less than 0.1%.",
         "丢包率为 0.1%；采购方要求低于 0.1%。"),
        ("SITE-FLOOR-LOAD", {"data_center": {"rack_max_load_kg": None}}, 0,
         "The weight of the servers in one rack is 260.9 kg; the limit is not recorded.",
         "单个机柜内服务器的重量为 260.9 kg；限值未记录。"),
        ("VENDOR-TELECOM-LICENCE", {"vendor": {"licences": None}}, 0,
         "The licence's list of business categories is not recorded; it must include B11.",
         "许可证列明的业务类别未记录；须包含 B11。"),
        ("VENDOR-TELECOM-LICENCE", {}, 1,
         "The licence's expiry date is 2029-02-06; it must still be valid on 2026-11-29.",
         "许可证有效期为 2029-02-06；须在 2026-11-29 仍然有效。"),
        ("VENDOR-LICENCE-REGION", {"data_center": {"province": "Guizhou"}}, 1,
         "The data center's province is Guizhou.", "数据中心所在省份为贵州。"),
        ("VENDOR-ISO27001", {}, 1,
         "The date of the last surveillance or recertification audit is 2026-08-21; "
         "2025-11-29 or later is required.",
         "上次监督审核或再认证审核日期为 2026-08-21；要求不早于 2025-11-29。"),
        ("VENDOR-MLPS3", {}, 0, "The MLPS level is 3; at least 3 is required.",
         "等保级别为 3；要求不低于 3。"),
        ("VENDOR-ICP-FILING", {"vendor": {"icp_filing_number": ""}}, 0,
         "The vendor's ICP filing number: none.", "服务商的 ICP 备案号：无。"),
        ("HW-INTRANODE-LINK", {"server": {"topology": "pcie-switch"}}, 0,
         "The link between the GPUs inside the server is a PCIe switch; all-to-all is required.",
         "服务器内 GPU 之间的互联为PCIe 交换芯片；要求为全互联。"),
        ("HW-INTERNODE-NIC", {"option": {"multi_node": True}, "server": {"nic_kind": "ethernet"}}, 0,
         "The kind of network card between servers is plain Ethernet; one of RoCE, InfiniBand "
         "is required.",
         "服务器之间的网卡类型为普通以太网；要求为以下之一：RoCE、InfiniBand。"),
        ("HW-NVME-CAPACITY", {"server": {"nvme_usable_tb": 4}}, 0,
         "The usable local NVMe per server is 4 TB; the job needs at least 8 TB.",
         "每台服务器的本地 NVMe 可用容量为 4 TB；任务需要至少 8 TB。"),
        ("HW-SOFTWARE-STACK", {"accelerator": {"software_stack": "cann"}}, 0,
         "The accelerator's software stack is CANN; the buyer's code targets CUDA.",
         "加速卡的软件栈为 CANN；采购方代码基于 CUDA。"),
        ("HW-AVAILABILITY", {"availability": {"status": "domestic", "as_of": days(-3)}}, 0,
         "The supply status the catalog records is a domestic product.",
         "目录记录的供货状态为国产产品。"),
        ("HW-AVAILABILITY", {"availability": {"status": "domestic", "as_of": days(-3)}}, 1,
         "The age of that record is 3 days; it is checked again after 90 days.",
         "该记录距今时长为 3 天；超过 90 天 须重新核实。"),
    ],
)  # fmt: skip
def test_evidence_reads_as_a_sentence(rule_id, overrides, index, english, chinese):
    assert sentences(rule_id, facts(**overrides))[index] == (english, chinese)


def test_cloud_residency_evidence_reads_as_a_sentence():
    rule = next(rule for rule in CLOUD_RULES if rule.id == "CLOUD-RESIDENCY")
    cloud = replace(facts(), cloud=CloudFacts(provider="P", region="r", mainland_china=None))
    (item,) = evaluate_rule(rule, cloud, DEFAULT_PARAMETERS).evidence
    assert evidence_sentence(item).render() == (
        "The cloud region is in mainland China: not recorded; this is required."
    )
    assert (
        evidence_sentence(item).render(zh, "zh-hans") == "云区域位于中国大陆：未记录；此项为必需。"
    )


# What an expression looks like: an operator, a dash for "unknown", a Python literal, a code.
EXPRESSION = re.compile(r"==|<=|>=|(?<![\w-])[<>](?![\w-])|—|\bTrue\b|\bFalse\b|\bNone\b")
CODES = re.compile(
    r"\b(licence-required|not-available|rear-door|direct-liquid|pcie-switch|"
    r"nvlink-pairs|hccs-mesh|xgmi-mesh|nvswitch|ethernet|roce|infiniband)\b"
)


@pytest.mark.parametrize(("rule_id", "overrides", "_"), ALL_CASES, ids=lambda v: str(v)[:40])
def test_no_evidence_reads_as_an_expression_or_shows_a_code(rule_id, overrides, _):
    for english, chinese in sentences(rule_id, facts(**overrides)):
        for text in (english, chinese):
            assert not EXPRESSION.search(text), text
            assert "{" not in text, text
        assert not CODES.search(chinese), chinese
        assert not re.search(
            r"[A-Za-z]{4,}",
            re.sub(
                r"(GB|PUE|MTTR|CNNIC|BGP|ICP|NVMe|UPS|HVDC|"
                r"NVSwitch|NVLink|InfiniBand|RoCE|CUDA|ROCm|"
                r"CANN|HCCS|xGMI|PCIe|Ethernet)",
                "",
                chinese,
            ),
        ), chinese


def test_a_stored_finding_renders_the_same_sentences():
    finding = evaluate_one("SITE-RACK-COOLING", facts(data_center={"cooling_kinds": ("air",)}))
    stored = finding.as_dict()["evidence"]
    for item, kept in zip(finding.evidence, stored, strict=True):
        assert evidence_sentence(kept).render(zh) == evidence_sentence(item).render(zh)


def test_a_brief_stored_before_sentences_still_reads_as_one():
    # Briefs issued before this change keep evidence without "words" or "requirement".
    old = {"label": "PUE", "measured": None, "threshold": 1.2, "unit": "", "comparison": "<="}
    assert evidence_sentence(old).render() == "PUE is not recorded; at most 1.2 is required."
    old_flag = {"label": "Dual utility feeds", "measured": None, "threshold": True,
                "unit": "", "comparison": "=="}  # fmt: skip
    assert evidence_sentence(old_flag).render(zh) == "双路市电：未记录；此项为必需。"


@pytest.mark.parametrize(
    ("evidence", "english"),
    [
        (Evidence("X", 3, 5, "", ">"), "X is 3; more than 5 is required."),
        (Evidence("X", "2026-01-01", "2026-02-01", "", "<="), "X is 2026-01-01; 2026-02-01 or earlier is required."),
        (Evidence("X", 2, None, "kW", "<="), "X is 2 kW; the limit is not recorded."),
        (Evidence("X", False, None, "", ""), "X: no."),
        (Evidence("X", (), None, "", ""), "X: none."),
        (Evidence("X", "Guizhou", None, "", "", "province"), "X is Guizhou."),
        (Evidence("X", "unlisted-code", "other", "", "==", "topology"), "X is unlisted-code; other is required."),
    ],
)  # fmt: skip
def test_sentence_forms(evidence, english):
    assert evidence_sentence(evidence).render() == english
