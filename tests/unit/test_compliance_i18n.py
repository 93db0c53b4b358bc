"""Every compliance text has a Simplified Chinese translation, and findings render in both languages."""

import ast
from pathlib import Path

import polib
import pytest

from advisor.domain.compliance.base import (
    AREA_LABELS,
    NO_WORDS,
    SEVERITY_LABELS,
    STATUS_LABELS,
    evidence_sentence,
)
from advisor.domain.compliance.comparison import compare_vendors
from advisor.domain.compliance.engine import RULES, VERDICT_LABELS, evaluate
from advisor.domain.compliance.parameters import DEFINITIONS
from advisor.domain.i18n import Message
from tests.unit import test_compliance_comparison as comparison_tests
from tests.unit.test_compliance_engine import ALL_CASES
from tests.unit.test_compliance_support import TODAY, evaluate_one, facts

PACKAGE = Path(__file__).resolve().parents[2] / "advisor" / "domain" / "compliance"
PO_PATH = PACKAGE / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
CATALOGUE = {
    entry.msgid: entry.msgstr
    for entry in polib.pofile(str(PO_PATH))
    if entry.msgstr and not entry.obsolete and "fuzzy" not in entry.flags
}
UNTRANSLATED_TEMPLATES = {"{text}", *NO_WORDS}  # catalog text, a number with its unit


def zh(text: str) -> str:
    return CATALOGUE.get(text, text)


def marked_strings() -> set[str]:
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "N_"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(node.args[0].value)
    return found


def test_every_marked_string_is_translated():
    missing = sorted(marked_strings() - set(CATALOGUE))
    assert not missing, f"run makemessages and translate: {missing[:5]}"


def templates_in(message) -> set[str]:
    """The template of ``message`` and of every message nested in its parameters."""
    found = {message.template}
    for value in message.params.values():
        if isinstance(value, Message):
            found |= templates_in(value)
    return found


def texts_of(finding) -> set[str]:
    texts = {finding.title, finding.explanation, finding.citation}
    texts |= templates_in(finding.message)
    for item in finding.evidence:
        texts |= templates_in(evidence_sentence(item))
    return {text for text in texts if text} - UNTRANSLATED_TEMPLATES


def test_every_text_a_finding_can_show_is_translated():
    shown = set()
    for rule_id, overrides, _ in ALL_CASES:
        shown |= texts_of(evaluate_one(rule_id, facts(**overrides)))
    shown |= {rule.title for rule in RULES} | {rule.citation for rule in RULES}
    shown |= {d.title for d in DEFINITIONS} | {d.citation for d in DEFINITIONS}
    shown |= {d.unit for d in DEFINITIONS if d.unit}
    labels = [STATUS_LABELS, SEVERITY_LABELS, AREA_LABELS, VERDICT_LABELS]
    shown |= {label for mapping in labels for label in mapping.values()}
    units_same_in_both = {"°C", "%", "kW", "kg", "ms", "TB", "GB/s", "Gb/s", "m²", "PUE"}
    missing = sorted(shown - set(CATALOGUE) - units_same_in_both)
    assert not missing, missing[:5]


def test_pue_finding_renders_in_chinese_with_its_figures():
    finding = evaluate_one("SITE-PUE", facts(data_center={"pue": 1.31, "pue_basis": "measured"}))
    english = finding.message.render()
    chinese = finding.message.render(zh)
    assert english == (
        "PUE 1.31 is above the limit of 1.2 in the Guizhou hub node policy zone; "
        "capacity expansion approval is at risk."
    )
    # The zone's Chinese name comes with the zone_zh parameter on Chinese pages
    # (presentation.text.render_text); the template itself carries no English.
    assert chinese == "PUE 1.31 超过所在政策区域（Guizhou hub node）1.2 的限值，扩容审批存在风险。"
    assert zh(finding.message.template).startswith("PUE {pue} 超过所在政策区域（{zone}）")
    assert zh(finding.title) == "PUE 与政策区域限值"
    assert zh(finding.severity.value) == "否决项"


@pytest.mark.parametrize(
    ("rule_id", "overrides", "expected"),
    [
        ("SITE-UPS", {"data_center": {"ups_backup_min": 20}}, "UPS 后备 20 分钟，满足 GB 50174 A 级（15 分钟），但未达到采购方 30 分钟的要求。"),
        ("HW-INTRANODE-LINK", {"server": {"topology": "pcie-switch"}, "option": {"pcie_communication_penalty_pct": 35}}, "8 张 GPU 的互联方式为 PCIe 交换芯片，并非全互联：选型测算预计通信开销为 35%。"),
        ("VENDOR-TELECOM-LICENCE", {"vendor": {"licences": ()}}, "服务商未持有增值电信业务经营许可证。"),
    ],
)  # fmt: skip
def test_findings_render_in_chinese(rule_id, overrides, expected):
    assert evaluate_one(rule_id, facts(**overrides)).message.render(zh) == expected


def test_every_message_renders_in_both_languages_without_missing_placeholders():
    for rule_id, overrides, _ in ALL_CASES:
        message = evaluate_one(rule_id, facts(**overrides)).message
        assert "{" not in message.render()
        assert "{" not in message.render(zh)


def test_verdict_and_comparison_render_in_chinese():
    report = evaluate(facts(data_center={"dual_utility_feeds": False}))
    assert zh(VERDICT_LABELS[report.verdict]) == "不合格"
    table = compare_vendors([comparison_tests.JIANMI], TODAY).as_table(zh)
    assert table[0] == ["对比维度", "简米科技"]
    assert table[1] == ["成立背景", "2003 年成立（经营 23 年）"]
    assert table[5] == ["备案号", "豫ICP备2026018319号 [通过]"]
