"""Rules are named in words; their ids are for the brief's technical annex and the CLI's JSON.

A reason such as "未证明具备所要求的资质：VENDOR-TELECOM-LICENCE" must name the qualification
("含 IDC 业务（B11）的增值电信业务经营许可证"): ``rule_name(id)`` is a message to nest in it.
"""

import re

import pytest

from advisor.domain.compliance.engine import (
    ALL_RULES_BY_ID,
    CLOUD_RULES,
    RULE_NAMES,
    RULES,
    rule_name,
)
from advisor.domain.i18n import N_, Message
from advisor.domain.plain import message as plain_message
from advisor.recommendation import codec
from tests.unit.test_compliance_i18n import zh

RULE_ID = re.compile(r"\b(?:SITE|VENDOR|HW|CLOUD)-[A-Z0-9-]+\b")


def test_every_rule_the_engine_runs_has_a_name():
    assert set(RULE_NAMES) == {rule.id for rule in (*RULES, *CLOUD_RULES)} == set(ALL_RULES_BY_ID)


@pytest.mark.parametrize(("rule_id", "title"), sorted(RULE_NAMES.items()))
def test_every_name_is_words_in_both_languages(rule_id, title):
    assert rule_name(rule_id).render() == title
    chinese = rule_name(rule_id).render(zh)
    assert chinese != title and not RULE_ID.search(chinese), chinese


@pytest.mark.parametrize(
    ("rule_id", "english", "chinese"),
    [
        ("VENDOR-TELECOM-LICENCE", "Value-added telecom licence with IDC (B11)",
         "含 IDC 业务（B11）的增值电信业务经营许可证"),
        ("VENDOR-ICP-FILING", "ICP filing", "ICP 备案"),
        ("VENDOR-MLPS3", "MLPS level 3 assessment", "等保三级测评"),
        ("SITE-RACK-COOLING", "Cooling for the rack density", "与机柜功率密度匹配的制冷"),
        ("CLOUD-RESIDENCY", "Data residency in mainland China", "数据境内存储"),
        ("NO-SUCH-RULE", "NO-SUCH-RULE", "NO-SUCH-RULE"),
    ],
)  # fmt: skip
def test_rule_names(rule_id, english, chinese):
    assert rule_name(rule_id).render() == english
    assert rule_name(rule_id).render(zh) == chinese


REASONS = {
    "fails a blocking check: {rule}": "未通过否决项检查：{rule}",
    "required qualification not shown: {rule}": "未证明具备所要求的资质：{rule}",
}


@pytest.mark.parametrize("template", sorted(REASONS))
def test_a_reason_names_the_qualification_in_words_and_survives_storage(template):
    # What advisor/domain/recommend/options.py builds: the rule's name nested in the reason.
    reason = Message(N_(template), {"rule": rule_name("VENDOR-TELECOM-LICENCE")})
    table = {
        **REASONS,
        "Value-added telecom licence with IDC (B11)": "含 IDC 业务（B11）的增值电信业务经营许可证",
    }
    expected = REASONS[template].format(rule="含 IDC 业务（B11）的增值电信业务经营许可证")
    assert reason.render(lambda s: table.get(s, s)) == expected
    # Stored as a computed recommendation (codec) and in a brief snapshot (plain JSON).
    assert codec.loads(codec.dumps(reason)) == reason
    stored = plain_message(reason)
    assert stored["params"]["rule"] == {
        "template": "Value-added telecom licence with IDC (B11)",
        "params": {},
    }
