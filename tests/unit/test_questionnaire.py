"""Vendor questionnaire, pure part: rule → facts coverage, answers, the declared section."""

from datetime import date, datetime

import pytest

from advisor.domain.compliance.base import Status
from advisor.domain.compliance.engine import ALL_RULES_BY_ID, RULES, evaluate
from advisor.domain.compliance.facts import CERT_ISO27001, ComplianceInput
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS
from advisor.domain.questionnaire import specs
from advisor.domain.questionnaire.answers import AnswerError, parse_answer
from advisor.domain.questionnaire.declared import (
    DeclaredError,
    as_section,
    merge,
    validate_declared,
)
from advisor.domain.questionnaire.questions import (
    REASON_PRICE,
    REASON_STALE,
    REASON_UNKNOWN,
    Subjects,
    declared_for_rule,
    questions_for,
)
from advisor.domain.scenario import ScenarioError
from tests.unit.test_compliance_support import TODAY, certificate, evaluate_one, facts

SUBJECTS = {
    specs.DATA_CENTER: ("dc-a", "DC A"),
    specs.OPERATOR: ("op-a", "Operator A"),
    specs.SERVER: ("srv-a", "Server A"),
    specs.ACCELERATOR: ("acc-a", "Accelerator A"),
    specs.OFFER: ("srv-a@dc-a", "Server A @ DC A"),
}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_every_rule_that_can_be_unknown_maps_to_a_question(rule):
    # Every rule reports unknown when its facts are missing (an empty input shows it for
    # nearly all; the rest delegate to helpers that do), so every rule must ask something.
    assert specs.RULE_FACTS.get(rule.id), f"{rule.id} can be unknown but asks nothing"
    assert set(specs.RULE_FACTS) <= set(ALL_RULES_BY_ID), "no question for a rule that is gone"


def test_every_unknown_finding_of_an_empty_catalog_yields_questions():
    report = evaluate(ComplianceInput(today=TODAY))
    unknown = [f.rule_id for f in report.findings if f.status is Status.UNKNOWN]
    assert len(unknown) > 20
    asked = questions_for(report.findings, Subjects(SUBJECTS), TODAY, DEFAULT_PARAMETERS)
    covered = {rule for question in asked for rule in question.rules}
    assert set(unknown) <= covered
    assert {q.reason for q in asked} == {REASON_UNKNOWN}
    assert len({q.id for q in asked}) == len(asked)


def test_rule_facts_name_known_facts_and_every_fact_is_asked_somewhere():
    used = {f.id for needed in specs.RULE_FACTS.values() for f in needed}
    used |= {f.id for f in (*specs.PRICE_FACTS, *specs.CLOUD_TERMS)}
    assert used == {f.id for f in specs.FACTS}
    assert len({f.name for f in specs.FACTS}) == len(specs.FACTS), "fact names are unique"
    for fact in specs.FACTS:
        assert fact.type in specs.ANSWER_TYPES
        if fact.type in (specs.NUMBER, specs.INTEGER):
            assert fact.minimum is not None and fact.maximum is not None
        if fact.type == specs.CHOICE:
            assert fact.choices


def test_recorded_facts_are_not_asked_and_missing_ones_are():
    report = evaluate(ComplianceInput(today=TODAY))
    values = {specs.DATA_CENTER: {"inlet_temp_min_c": 18.0}}
    asked = questions_for(report.findings, Subjects(SUBJECTS, values), TODAY, DEFAULT_PARAMETERS)
    ids = {q.id for q in asked}
    assert "dc-a:inlet_temp_max_c" in ids
    assert "dc-a:inlet_temp_min_c" not in ids


def test_without_a_subject_its_facts_are_not_asked():
    report = evaluate(ComplianceInput(today=TODAY))
    only_dc = Subjects({specs.DATA_CENTER: SUBJECTS[specs.DATA_CENTER]})
    asked = questions_for(report.findings, only_dc, TODAY, DEFAULT_PARAMETERS)
    assert asked and {q.fact.kind for q in asked} == {specs.DATA_CENTER}


@pytest.mark.parametrize(
    ("name", "recorded", "stale"),
    [
        ("iso-27001.valid_until", date(2026, 11, 28), True),  # expired yesterday
        ("iso-27001.valid_until", date(2026, 11, 29), False),
        ("iso-27001.last_surveillance_audit", date(2025, 11, 28), True),  # > 12 months
        ("iso-27001.last_surveillance_audit", date(2025, 11, 29), False),
    ],
)
def test_an_expired_certificate_is_asked_again(name, recorded, stale):
    cert = {"valid_until": date(2028, 1, 1), "last_audit_on": date(2026, 6, 1)}
    field = {"iso-27001.valid_until": "valid_until"}.get(name, "last_audit_on")
    cert[field] = recorded
    report = facts(vendor={"certificates": (certificate(CERT_ISO27001, edition="2022", **cert),)})
    finding = evaluate_one("VENDOR-ISO27001", report)
    values = {
        specs.OPERATOR: {
            "iso-27001.number": "X-1",
            "iso-27001.iso27001_edition": "2022",
            "iso-27001.valid_until": cert["valid_until"],
            "iso-27001.last_surveillance_audit": cert["last_audit_on"],
        }
    }
    asked = questions_for((finding,), Subjects(SUBJECTS, values), TODAY, DEFAULT_PARAMETERS)
    if stale:
        assert finding.status is Status.FAIL
        assert {q.reason for q in asked} == {REASON_STALE}
        assert f"op-a:{name}" in {q.id for q in asked}
        assert next(q for q in asked if q.fact.name == name).current == recorded
    else:
        assert asked == []


def test_stale_availability_record_is_asked_again():
    finding = evaluate_one(
        "HW-AVAILABILITY",
        facts(availability={"status": "available", "as_of": date(2025, 1, 1)}),
    )
    values = {
        specs.ACCELERATOR: {
            "china_availability": "available",
            "china_availability_as_of": date(2025, 1, 1),
        }
    }
    asked = questions_for((finding,), Subjects(SUBJECTS, values), TODAY, DEFAULT_PARAMETERS)
    assert finding.status is Status.WARN
    assert [q.fact.name for q in asked] == ["china_availability", "china_availability_as_of"]


def test_price_rows_follow_the_indicative_figures():
    asked = questions_for(
        (), Subjects(SUBJECTS), TODAY, DEFAULT_PARAMETERS, ("tariff_cny_per_kwh",)
    )
    assert [q.fact.name for q in asked] == ["power_pricing", "power_price_cny_per_kwh"]
    assert {q.reason for q in asked} == {REASON_PRICE}
    rent = questions_for(
        (), Subjects(SUBJECTS), TODAY, DEFAULT_PARAMETERS, ("rent_cny_per_server_month",)
    )
    assert [q.id for q in rent] == ["srv-a@dc-a:monthly_rent", "srv-a@dc-a:lead_time_weeks"]


# --- answers: every type, both ways ---------------------------------------------------------

F = specs.fact
ROUND_TRIP = [
    (F(specs.DATA_CENTER, "ups_minutes"), 30, 30.0),
    (F(specs.DATA_CENTER, "ups_minutes"), "15.5", 15.5),
    (F(specs.DATA_CENTER, "ups_minutes"), " 1,200 ".replace("1,200", "120"), 120.0),
    (F(specs.DATA_CENTER, "power_feeds"), 2, 2),
    (F(specs.DATA_CENTER, "power_feeds"), "3", 3),
    (F(specs.DATA_CENTER, "power_feeds"), 2.0, 2),
    (F(specs.DATA_CENTER, "hvdc"), "yes", True),
    (F(specs.DATA_CENTER, "hvdc"), "否", False),
    (F(specs.DATA_CENTER, "hvdc"), True, True),
    (F(specs.DATA_CENTER, "hvdc"), " No ", False),
    (F(specs.OPERATOR, "licence_valid_until"), "2029-06-30", "2029-06-30"),
    (F(specs.OPERATOR, "licence_valid_until"), date(2029, 6, 30), "2029-06-30"),
    (F(specs.OPERATOR, "licence_valid_until"), datetime(2029, 6, 30), "2029-06-30"),
    (F(specs.DATA_CENTER, "power_pricing"), "Pass-Through", "pass-through"),
    (F(specs.DATA_CENTER, "cooling_available"), "air， direct-liquid", ["air", "direct-liquid"]),
    (F(specs.DATA_CENTER, "cooling_available"), ["air", "air"], ["air"]),
    (F(specs.OPERATOR, "licence_number"), " 黔B1-20260001 ", "黔B1-20260001"),
    (F(specs.SERVER, "pytorch_version"), 2.5, "2.5"),
]


@pytest.mark.parametrize(("fact", "raw", "value"), ROUND_TRIP)
def test_every_answer_type_round_trips(fact, raw, value):
    parsed = parse_answer(fact, raw)
    assert parsed == value
    assert parse_answer(fact, parsed) == value  # what the declared section stores reads back
    section = validate_declared({"subj": {fact.name: parsed}} if fact.kind != specs.OFFER else {})
    if section:
        assert section[0].value == value


REFUSED = [
    (F(specs.DATA_CENTER, "ups_minutes"), "thirty", "must be a number"),
    (F(specs.DATA_CENTER, "ups_minutes"), True, "must be a number"),
    (F(specs.DATA_CENTER, "ups_minutes"), "nan", "must be a number"),
    (F(specs.DATA_CENTER, "ups_minutes"), -1, "must be between 0 and 600"),
    (F(specs.DATA_CENTER, "power_feeds"), 1.5, "must be a whole number"),
    (F(specs.DATA_CENTER, "hvdc"), "maybe", "must be yes or no"),
    (F(specs.OPERATOR, "licence_valid_until"), "2029/06/30", "must be a date written YYYY-MM-DD"),
    (F(specs.OPERATOR, "licence_valid_until"), datetime(2029, 6, 30, 12), "must be a date without a time (YYYY-MM-DD)"),
    (F(specs.DATA_CENTER, "power_pricing"), "metered", "must be one of: fixed, pass-through, included"),
    (F(specs.DATA_CENTER, "cooling_available"), "air, water", "must be one of: air, rear-door, direct-liquid, immersion"),
    (F(specs.OPERATOR, "licence_number"), "x" * 501, "must be at most 500 characters"),
    # Bidi controls are stripped (tests/integration/test_text_hygiene.py); other invisible
    # formatting, such as a zero-width space, is still refused.
    (F(specs.OPERATOR, "licence_number"), "B1\u200b-1", "contains control or invisible formatting characters"),
    (F(specs.OPERATOR, "licence_number"), ["B1"], "must be text"),
]  # fmt: skip


@pytest.mark.parametrize(("fact", "raw", "why"), REFUSED)
def test_wrong_answers_are_refused_with_a_reason(fact, raw, why):
    with pytest.raises(AnswerError) as refused:
        parse_answer(fact, raw)
    assert refused.value.message.render() == why


# --- the declared section -----------------------------------------------------------------

SECTION_ERRORS = [
    ([], "declared", "must be an object of subjects, each an object of facts"),
    ({"Bad Key": {}}, "declared", "subject Bad Key is not a catalog key"),
    ({"dc-a": []}, "declared.dc-a", "must be an object of facts"),
    ({"dc-a": {"colour": 1}}, "declared.dc-a", "colour is not a fact a vendor can declare"),
    ({"dc-a": {"ups_minutes": "x"}}, "declared.dc-a.ups_minutes", "must be a number"),
    ({"dc-a": {"monthly_rent": 1}}, "declared.dc-a.monthly_rent", "is a fact about another kind of subject (Offer); dc-a is not one"),
    ({"dc-a": {"ups_minutes": 1, "onsite_24x7": True}}, "declared.dc-a", "mixes facts"),
    ({"dc-a": {"ups_minutes": {"value": 1, "extra": 2}}}, "declared.dc-a.ups_minutes", "must be a value or an object"),
    ({"dc-a": {"ups_minutes": {"value": 1, "received": "May"}}}, "declared.dc-a.ups_minutes.received", "must be a date"),
    ({"dc-a": {"ups_minutes": {"value": 1, "evidence": 5}}}, "declared.dc-a.ups_minutes.evidence", "must be text"),
]  # fmt: skip


@pytest.mark.parametrize(("section", "field", "why"), SECTION_ERRORS)
def test_a_bad_declared_section_names_the_field(section, field, why):
    with pytest.raises(DeclaredError) as refused:
        validate_declared(section)
    assert refused.value.field == field
    assert why in refused.value.message.render()
    assert isinstance(refused.value, ScenarioError)  # caught wherever a scenario error is


def test_declared_section_round_trips_with_evidence_and_merges():
    section = {
        "dc-a": {"ups_minutes": {"value": 30, "evidence": "UPS report", "received": "2026-11-20"}},
        "op-a": {"mlps.last_assessment_date": "2026-06-01", "onsite_24x7": "yes"},
        "srv-a@dc-a": {"lead_time_weeks": 8},
    }
    declared = validate_declared(section)
    assert as_section(declared) == {
        "dc-a": {
            "ups_minutes": {"value": 30.0, "evidence": "UPS report", "received": "2026-11-20"}
        },
        "op-a": {"mlps.last_assessment_date": "2026-06-01", "onsite_24x7": True},
        "srv-a@dc-a": {"lead_time_weeks": 8},
    }
    assert declared[1].python_value == date(2026, 6, 1)
    newer = validate_declared({"dc-a": {"ups_minutes": 45}})
    assert merge(as_section(declared), newer)["dc-a"] == {"ups_minutes": 45.0}
    assert validate_declared(None) == ()


def test_a_finding_knows_the_declared_facts_it_used():
    declared = validate_declared({"dc-a": {"ups_minutes": 30}, "dc-b": {"ups_minutes": 5}})
    keys = {kind: key for kind, (key, _) in SUBJECTS.items()}
    assert [d.subject for d in declared_for_rule("SITE-UPS", keys, declared)] == ["dc-a"]
    assert declared_for_rule("SITE-PUE", keys, declared) == []


def test_declared_facts_and_questions_pickle_for_the_results_cache():
    import pickle

    declared = validate_declared({"op-a": {"licence_valid_until": "2020-01-01"}})
    report = evaluate(ComplianceInput(today=TODAY))
    asked = questions_for(report.findings, Subjects(SUBJECTS), TODAY, DEFAULT_PARAMETERS)
    assert pickle.loads(pickle.dumps(declared)) == declared
    assert pickle.loads(pickle.dumps(asked)) == asked


def test_rack_cooling_asks_the_server_s_cooling_when_the_catalog_lacks_it():
    """Issue 51: the rack's cooling check reads how the server is cooled; a server whose
    cooling no source states is asked, so the check does not stay unknown once answered."""
    report = evaluate(ComplianceInput(today=TODAY))
    cooling = [f for f in report.findings if f.rule_id == "SITE-RACK-COOLING"]
    asked = questions_for(tuple(cooling), Subjects(SUBJECTS), TODAY, DEFAULT_PARAMETERS)
    assert "srv-a:cooling" in {q.id for q in asked}
    known = Subjects(SUBJECTS, {specs.SERVER: {"cooling": "air"}})
    asked = questions_for(tuple(cooling), known, TODAY, DEFAULT_PARAMETERS)
    assert "srv-a:cooling" not in {q.id for q in asked}
    assert specs.fact(specs.SERVER, "cooling").promotable  # recorded in the catalog


def test_a_cloud_offer_is_asked_its_terms_whatever_its_findings():
    subjects = Subjects(
        {specs.OPERATOR: ("cloud-x", "Cloud X"), specs.CLOUD_OFFER: ("x-offer", "X instances")}
    )
    asked = questions_for((), subjects, TODAY, DEFAULT_PARAMETERS, terms=specs.CLOUD_TERMS)
    assert {q.id for q in asked} == {
        "x-offer:deletion_on_exit",
        "x-offer:billing_terms",
        "x-offer:instance_interconnect",
    }
    answered = Subjects(subjects.keys, {specs.CLOUD_OFFER: {"billing_terms": "per second"}})
    asked = questions_for((), answered, TODAY, DEFAULT_PARAMETERS, terms=specs.CLOUD_TERMS)
    assert "x-offer:billing_terms" not in {q.id for q in asked}
