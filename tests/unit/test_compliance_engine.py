"""Engine: rule registry, verdict aggregation, grouping, parameters and overrides."""

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.domain.compliance.base import Area, Finding, Severity, Status
from advisor.domain.compliance.engine import (
    CLOUD_RULES,
    RULES,
    RULES_BY_ID,
    RULESET_VERSION,
    Verdict,
    evaluate,
    verdict_of,
)
from advisor.domain.compliance.facts import CloudFacts, ComplianceInput
from advisor.domain.compliance.parameters import (
    DEFINITIONS,
    DEFINITIONS_BY_KEY,
    ParameterError,
    resolve_parameters,
)
from advisor.domain.i18n import Message
from tests.unit import (
    test_compliance_hardware,
    test_compliance_site,
    test_compliance_vendor,
)
from tests.unit.test_compliance_support import GOOD_INPUT, TODAY, evaluate_one, facts

ALL_CASES = [
    *test_compliance_site.CASES,
    *test_compliance_vendor.CASES,
    *test_compliance_hardware.CASES,
]

# Statuses a rule cannot produce, by design (documented in docs/compliance.md).
CANNOT = {
    "SITE-HUMIDITY-CONTROL": {"warn"},
    "SITE-DUAL-FEED": {"warn"},
    "SITE-GENERATOR": {"warn"},
    "SITE-FLOOR-LOAD": {"warn"},
    "SITE-BGP": {"warn"},
    "SITE-LATENCY": {"warn"},
    "SITE-PACKET-LOSS": {"warn"},
    "SITE-STAFF-24X7": {"warn"},
    "SITE-SPARE-PARTS": {"warn"},
    "SITE-FAULT-RESPONSE": {"warn"},
    "VENDOR-LICENCE-REGION": {"warn"},
    "VENDOR-SELF-OPERATED": {"warn"},
    "VENDOR-NETWORK": {"fail"},
    "HW-INTRANODE-LINK": {"fail"},
    "HW-INTERNODE-NIC": {"warn"},
    "HW-AVAILABILITY": {"fail"},
}


def test_rule_ids_are_unique_and_complete():
    assert len(RULES_BY_ID) == len(RULES)
    assert {rule.area for rule in RULES} == set(Area)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_every_rule_has_texts_citation_and_known_parameters(rule):
    assert rule.title and rule.explanation and rule.citation
    assert rule.id.split("-")[0] in {"SITE", "VENDOR", "HW"}
    assert set(rule.parameter_keys) <= set(DEFINITIONS_BY_KEY)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_tables_cover_every_status_each_rule_can_produce(rule):
    covered = {expected for rule_id, _, expected in ALL_CASES if rule_id == rule.id}
    expected = {"pass", "warn", "fail", "unknown"} - CANNOT.get(rule.id, set())
    assert covered == expected


def test_every_parameter_is_used_by_a_rule_and_cited():
    used = {key for rule in RULES for key in rule.parameter_keys}
    assert used == set(DEFINITIONS_BY_KEY)
    for definition in DEFINITIONS:
        assert definition.citation and definition.title


def test_good_option_is_eligible_with_every_rule_passing():
    report = evaluate(GOOD_INPUT)
    assert report.verdict is Verdict.ELIGIBLE
    assert report.counts == {"pass": len(RULES), "warn": 0, "fail": 0, "unknown": 0}
    assert report.ruleset_version == RULESET_VERSION
    assert report.today == TODAY


def test_failed_blocker_makes_the_option_not_eligible():
    report = evaluate(facts(data_center={"dual_utility_feeds": False}))
    assert report.verdict is Verdict.NOT_ELIGIBLE
    assert [finding.rule_id for finding in report.failed_blockers] == ["SITE-DUAL-FEED"]
    assert report.counts["fail"] == 1


def test_failed_warning_rule_gives_eligible_with_warnings():
    report = evaluate(facts(data_center={"packet_loss_pct": 0.2}))
    assert report.finding("SITE-PACKET-LOSS").severity is Severity.WARNING
    assert report.verdict is Verdict.ELIGIBLE_WITH_WARNINGS


def test_unknown_blocker_makes_the_verdict_incomplete_never_eligible():
    report = evaluate(facts(data_center={"generator_start_s": None}))
    assert report.finding("SITE-GENERATOR").status is Status.UNKNOWN
    assert report.verdict is Verdict.INCOMPLETE
    assert [f.rule_id for f in report.unknown_blockers] == ["SITE-GENERATOR"]
    assert report.as_dict()["unknown_blockers"] == ["SITE-GENERATOR"]


def test_an_unknown_warning_rule_is_eligible_with_warnings_not_incomplete():
    report = evaluate(facts(data_center={"packet_loss_pct": None}))
    assert report.finding("SITE-PACKET-LOSS").status is Status.UNKNOWN
    assert report.verdict is Verdict.ELIGIBLE_WITH_WARNINGS


def test_advice_rule_does_not_change_the_verdict():
    report = evaluate(facts(vendor={"own_bgp": False}))
    assert report.finding("VENDOR-NETWORK").status is Status.WARN
    assert report.verdict is Verdict.ELIGIBLE


def test_empty_input_is_all_unknown():
    report = evaluate(type(GOOD_INPUT)(today=TODAY))
    assert report.counts["unknown"] == len(RULES)
    assert report.verdict is Verdict.INCOMPLETE


def test_verdict_of_no_findings_is_eligible():
    assert verdict_of(()) is Verdict.ELIGIBLE


def test_findings_grouped_by_area_in_rule_order():
    groups = evaluate(GOOD_INPUT).by_area()
    assert list(groups) == [Area.SITE, Area.VENDOR, Area.HARDWARE]
    assert [f.rule_id for f in groups[Area.HARDWARE]] == [
        rule.id for rule in RULES if rule.area is Area.HARDWARE
    ]
    assert sum(len(group) for group in groups.values()) == len(RULES)


def test_report_snapshot_is_json_ready():
    import json

    snapshot = evaluate(facts(data_center={"pue": 1.3})).as_dict()
    text = json.dumps(snapshot, ensure_ascii=False)
    pue = next(item for item in snapshot["findings"] if item["rule_id"] == "SITE-PUE")
    assert pue["status"] == "fail"
    assert pue["message"]["params"]["pue"] == 1.3
    assert snapshot["verdict"] == "not-eligible"
    assert "site.latency_max_ms" in text


def test_override_changes_the_threshold_and_is_reported():
    params = resolve_parameters({"site.latency_max_ms": "40"})
    slow = facts(data_center={"latency_east_china_ms": 35})
    assert evaluate_one("SITE-LATENCY", slow).status == "fail"
    assert evaluate_one("SITE-LATENCY", slow, params).status == "pass"
    row = next(row for row in params.as_rows() if row["key"] == "site.latency_max_ms")
    assert (row["value"], row["default"], row["overridden"]) == (40, 30, True)


def test_date_parameter_override():
    params = resolve_parameters({"vendor.iso27001_2013_withdrawn_on": "2026-12-31"})
    assert params["vendor.iso27001_2013_withdrawn_on"] == date(2026, 12, 31)
    old = facts(vendor=test_compliance_vendor.with_certificate("iso27001", edition="2013"))
    assert evaluate_one("VENDOR-ISO27001", old).status == "fail"
    assert evaluate_one("VENDOR-ISO27001", old, params).status == "warn"


def test_override_equal_to_default_is_not_marked_overridden():
    assert resolve_parameters({"site.ups_backup_target_min": "30"}).overridden == frozenset()


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("site.no_such_parameter", "1"),
        ("site.latency_max_ms", "thirty"),
        ("site.latency_max_ms", "NaN"),
        ("vendor.iso27001_2013_withdrawn_on", "31/10/2025"),
    ],
)
def test_bad_override_is_rejected(key, text):
    with pytest.raises(ParameterError):
        resolve_parameters({key: text})


findings_strategy = st.lists(
    st.tuples(st.sampled_from(list(Severity)), st.sampled_from(list(Status))), max_size=12
)


@given(findings_strategy)
def test_verdict_follows_its_definition(pairs):
    rule = RULES[0]
    findings = [
        Finding(rule.id, rule.area, "", "", "", severity, status, Message(""))
        for severity, status in pairs
    ]
    verdict = verdict_of(findings)
    failed_blocker = any(p == (Severity.BLOCKER, Status.FAIL) for p in pairs)
    all_counted_pass = all(
        status is Status.PASS
        for severity, status in pairs
        if severity not in (Severity.ADVICE, Severity.INTERNAL)
    )
    assert (verdict is Verdict.NOT_ELIGIBLE) == failed_blocker
    assert (verdict is Verdict.ELIGIBLE) == (all_counted_pass and not failed_blocker)
    # Adding a passing finding never changes the verdict; adding a failed blocker always rejects.
    assert (
        verdict_of(
            [
                *findings,
                Finding(rule.id, rule.area, "", "", "", Severity.WARNING, Status.PASS, Message("")),
            ]
        )
        is verdict
    )
    blocker = Finding(rule.id, rule.area, "", "", "", Severity.BLOCKER, Status.FAIL, Message(""))
    assert verdict_of([*findings, blocker]) is Verdict.NOT_ELIGIBLE


@pytest.mark.parametrize(
    ("mainland", "status"), [(True, "pass"), (False, "fail"), (None, "unknown")]
)
def test_a_cloud_option_is_checked_as_a_cloud_not_a_site(mainland, status):
    facts = ComplianceInput(
        today=date(2026, 12, 1), cloud=CloudFacts("Example cloud", "region-1", mainland)
    )
    report = evaluate(facts, rules=CLOUD_RULES)
    rules = {f.rule_id for f in report.findings}
    assert not {r for r in rules if r.startswith("SITE-")}
    assert {"CLOUD-RESIDENCY", "VENDOR-MLPS3", "VENDOR-ISO27001", "HW-AVAILABILITY"} <= rules
    assert str(report.finding("CLOUD-RESIDENCY").status) == status
    assert (str(report.verdict) == "not-eligible") is (status == "fail")
