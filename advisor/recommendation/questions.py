"""What is still unknown about an option: the questions for its vendors, and what they answered.

Read by the option page (open questions, the facts behind each finding), the questionnaire
(workbook, letter, preview of the answers' effect) and the brief (declared facts and open
questions, frozen in its snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.catalog import compliance as compliance_selectors
from advisor.catalog.cache import memoized
from advisor.catalog.subjects import subjects_for
from advisor.domain.compliance.base import Severity, Status
from advisor.domain.economics.inputs import BASIS_OFFICIAL, BASIS_OVERRIDE, BASIS_QUOTE
from advisor.domain.plain import jsonable
from advisor.domain.questionnaire.declared import DeclaredFact
from advisor.domain.questionnaire.questions import (
    Question,
    declared_for_rule,
    questions_for,
)
from advisor.domain.questionnaire.specs import CLOUD_TERMS, FACTS, OFFER, RULE_FACTS
from advisor.domain.recommend import OWN_ROOM_KEY, Option, RecommendRun
from advisor.domain.recommend.procurement import subject_keys

# A figure resting on one of these is firm; any other basis is indicative and asked for.
FIRM_BASES = (BASIS_QUOTE, BASIS_OVERRIDE, BASIS_OFFICIAL)
MODE_PRICE = {
    "buy": "purchase_cny_per_server",
    "rent": "rent_cny_per_server_month",
    "cloud": "cloud_cny_per_gpu_hour",
}


def price_figures(option: Option, modes: tuple[str, ...]) -> tuple[str, ...]:
    """The economics figures this option rests on that are missing or only indicative."""
    site = option.site
    if site.data_center.key == OWN_ROOM_KEY or option.is_cloud:
        return ()  # a cloud's price is its listed GPU-hour price (the buyer's own figure)
    wanted = list(site.missing_costs)
    for name in ("tariff_cny_per_kwh", "rack_fee_cny_per_month", "rack_power_limit_kw"):
        provenance = site.cost_provenance.get(name)
        if provenance is None or provenance.basis not in FIRM_BASES:
            wanted.append(name)
    _, provenance = site.prices_for(option.hardware)
    for mode in modes:
        name = MODE_PRICE.get(mode)
        if name and (provenance.get(name) is None or provenance[name].basis not in FIRM_BASES):
            wanted.append(name)
    return tuple(dict.fromkeys(wanted))


def questions(run: RecommendRun, option: Option) -> list[Question]:
    """The questionnaire for ``option``: its unknown and stale findings, its indicative prices.

    Facts already declared in this assessment are not asked again unless they are stale.
    """
    subjects = subjects_for(option, run.declared)
    # The own room's internal checks are its facilities team's, never a vendor's question.
    findings = tuple(f for f in option.compliance.findings if f.severity is not Severity.INTERNAL)
    asked = questions_for(
        findings,
        subjects,
        run.today,
        memoized("rule parameters", compliance_selectors.rule_parameters),
        price_figures(option, run.procurement.modes),
        CLOUD_TERMS if option.is_cloud else (),
    )
    declared = {(item.subject, item.fact.name) for item in run.declared}
    return [
        q
        for q in asked
        if (q.subject, q.fact.name) not in declared or q.reason == "stale"
        if q.fact.kind != OFFER or "rent" in run.procurement.modes or q.fact.name != "monthly_rent"
    ]


@dataclass(frozen=True)
class Change:
    """A finding before and after the vendor's answers."""

    rule_id: str
    title: str
    before: Status
    after: Status
    message: object


def changes(before: Option, after: Option) -> list[Change]:
    """The findings whose status the answers change."""
    old = {f.rule_id: f for f in before.compliance.findings}
    return [
        Change(f.rule_id, f.title, old[f.rule_id].status, f.status, f.message)
        for f in after.compliance.findings
        if f.rule_id in old and old[f.rule_id].status is not f.status
    ]


def declared_in(option: Option, rule_id: str, declared) -> list[DeclaredFact]:
    """The declared facts a finding of ``option`` was computed from."""
    return declared_for_rule(rule_id, subject_keys(option), declared)


def questionnaire_snapshot(run: RecommendRun, option: Option) -> dict:
    """For the brief: every declared fact with its evidence, and the questions still open.

    JSON-ready; question wordings stay English templates, translated when the PDF renders.
    """
    keys = subject_keys(option)
    mine = {(keys[f.kind], f.name) for f in FACTS}
    declared = [
        {
            "subject": item.subject,
            "fact": item.fact.name,
            "question": item.fact.question,
            "value": item.value,
            "unit": item.fact.unit,
            "evidence": item.evidence,
            "received": item.received,
            "rules": [rule for rule, needed in RULE_FACTS.items() if item.fact in needed],
        }
        for item in run.declared
        if (item.subject, item.fact.name) in mine
    ]
    open_questions = [
        {
            "id": q.id,
            "subject": jsonable(q.subject_name),
            "question": q.fact.question,
            "reason": q.reason,
            "rules": list(q.rules),
        }
        for q in questions(run, option)
    ]
    by_rule = {
        f.rule_id: [item.fact.name for item in declared_in(option, f.rule_id, run.declared)]
        for f in option.compliance.findings
    }
    return {
        "declared": declared,
        "open": open_questions,
        "declared_by_rule": {rule: names for rule, names in by_rule.items() if names},
    }


def declared_by_rule(run: RecommendRun, option: Option) -> dict[str, list[DeclaredFact]]:
    """Per finding of ``option``, the vendor's declared facts it was computed from."""
    return {
        f.rule_id: declared_in(option, f.rule_id, run.declared) for f in option.compliance.findings
    }


@dataclass(frozen=True)
class OpenItems:
    """What is still to ask before ordering ``option``: questions, to how many vendors, how
    many of them settle a veto check."""

    questions: int
    subjects: int
    veto: int


def open_items(run: RecommendRun, option: Option) -> OpenItems:
    asked = questions(run, option)
    vetoes = {f.rule_id for f in option.compliance.findings if f.severity == "blocker"}
    return OpenItems(
        questions=len(asked),
        subjects=len({q.subject for q in asked}),
        veto=sum(1 for q in asked if vetoes & set(q.rules)),
    )
