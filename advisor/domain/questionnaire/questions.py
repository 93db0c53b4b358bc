"""An option's unknown and stale findings (and indicative prices) → questions for the vendor."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from advisor.domain.compliance.base import Finding, Status
from advisor.domain.questionnaire.specs import (
    FACTS,
    PRICE_FACTS,
    PRICE_FIGURES,
    RULE_FACTS,
    SUBJECT_KINDS,
    Fact,
    is_stale,
)

REASON_UNKNOWN = "unknown"
REASON_STALE = "stale"
REASON_PRICE = "price"
_ORDER = {fact.id: index for index, fact in enumerate(FACTS)}


@dataclass(frozen=True)
class Question:
    """One row of the questionnaire: a fact of one subject, and why it is asked."""

    subject: str  # the subject's key (data center, operator, server, accelerator, offer)
    subject_name: str
    fact: Fact
    reason: str  # REASON_UNKNOWN, REASON_STALE or REASON_PRICE
    rules: tuple[str, ...] = ()
    citations: tuple[str, ...] = ()  # N_() markers, one per rule
    current: object = None  # the recorded value when it is stale

    @property
    def id(self) -> str:
        """Stable across exports: the subject's key and the fact's catalog name."""
        return f"{self.subject}:{self.fact.name}"


@dataclass(frozen=True)
class Subjects:
    """Who the option's facts are about: ``{kind: (key, display name)}``; ``values`` holds
    what the catalog (with any declared facts laid over it) records, ``{kind: {name: value}}``."""

    keys: dict[str, tuple[str, str]]
    values: dict[str, dict[str, object]] = field(default_factory=dict)

    def value(self, fact: Fact):
        return self.values.get(fact.kind, {}).get(fact.name)


def _is_stale(fact: Fact, value, today: date, params) -> bool:
    return is_stale(fact, value, today, params)


def questions_for(
    findings: tuple[Finding, ...],
    subjects: Subjects,
    today: date,
    params,
    price_figures: tuple[str, ...] = (),
    terms: tuple[Fact, ...] = (),
) -> list[Question]:
    """The questions that would settle ``findings``, ordered by subject and catalog order.

    An unknown finding asks for each of its rule's facts that is not recorded (all of them
    when every one is, since something else is missing); any finding asks again for a dated
    fact that is stale (expired, or older than the rule allows). ``price_figures`` names the
    economics figures that are missing or only indicative; their quote rows are added.
    ``terms`` are facts asked whenever they are not recorded (a cloud provider's contract
    terms, ``specs.CLOUD_TERMS``), whatever the findings.
    """
    asked: dict[str, Question] = {}

    def ask(fact: Fact, reason: str, finding: Finding | None = None):
        if fact.kind not in subjects.keys:
            return
        key, name = subjects.keys[fact.kind]
        question = Question(key, name, fact, reason, current=subjects.value(fact))
        previous = asked.get(question.id, question)
        if finding is not None and finding.rule_id not in previous.rules:
            previous = Question(
                previous.subject,
                previous.subject_name,
                fact,
                REASON_STALE if REASON_STALE in (reason, previous.reason) else previous.reason,
                (*previous.rules, finding.rule_id),
                (*previous.citations, finding.citation),
                previous.current,
            )
        asked[question.id] = previous

    for finding in findings:
        needed = RULE_FACTS.get(finding.rule_id, ())
        stale = [f for f in needed if _is_stale(f, subjects.value(f), today, params)]
        for fact in stale:
            ask(fact, REASON_STALE, finding)
        if finding.status is Status.UNKNOWN:
            missing = [f for f in needed if subjects.value(f) is None]
            for fact in missing or needed:
                ask(fact, REASON_UNKNOWN, finding)
        elif stale:
            # A renewed document or statement: everything the rule reads is asked with it.
            for fact in needed:
                ask(fact, REASON_STALE, finding)
    for fact in terms:
        if subjects.value(fact) is None:
            ask(fact, REASON_UNKNOWN)
    wanted = set(price_figures)
    for fact in PRICE_FACTS:
        if wanted & set(PRICE_FIGURES[fact.name]):
            ask(fact, REASON_PRICE)
    kind_order = {kind: index for index, kind in enumerate(SUBJECT_KINDS)}
    return sorted(
        asked.values(), key=lambda q: (kind_order[q.fact.kind], _ORDER[q.fact.id], q.subject)
    )


def declared_for_rule(rule_id: str, keys: dict[str, str], declared) -> list:
    """The declared facts (``DeclaredFact``) a rule's finding was computed from, given the
    option's subject keys ``{kind: key}``: a finding says so when this is not empty."""
    needed = {(keys.get(f.kind), f.name) for f in RULE_FACTS.get(rule_id, ())}
    return [item for item in declared if (item.subject, item.fact.name) in needed]
