"""The scenario's ``declared`` section: facts the vendor declared, over the catalog's.

``"declared": {"<subject key>": {"<fact>": value, ...}, ...}``. A value is the answer itself,
or ``{"value": ..., "evidence": "...", "received": "YYYY-MM-DD"}`` to keep the vendor's
evidence (document name, certificate number) and the day the answers came. Fact names are
the catalog's field names (``specs.FACTS``); the subject key is the data center, operator,
server or accelerator key, or ``"<server key>@<data center key>"`` for an offer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from advisor.domain.i18n import N_, Message
from advisor.domain.questionnaire.answers import AnswerError, parse_answer
from advisor.domain.questionnaire.specs import (
    DATE,
    FACTS,
    OFFER,
    SUBJECT_LABELS,
    TEXT_MAX_LENGTH,
    Fact,
)
from advisor.domain.scenario import ScenarioError
from advisor.domain.text import clean_text

SECTION = "declared"
FACTS_BY_NAME = {fact.name: fact for fact in FACTS}
SUBJECT_KEY = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}(@[a-z0-9][a-z0-9._-]{0,99})?$")
MAX_SUBJECTS = 50
VALUE_KEYS = ("value", "evidence", "received")


class DeclaredError(ScenarioError):
    """An invalid ``declared`` section: ``field`` is the dotted path, e.g.
    ``declared.jianmi-guiyang.ups_minutes``; caught wherever a ScenarioError is."""


@dataclass(frozen=True)
class DeclaredFact:
    subject: str
    fact: Fact
    value: object  # JSON-ready: ISO text for dates
    evidence: str = ""
    received: str | None = None  # ISO date

    @property
    def python_value(self):
        """The value as the catalog field holds it (a ``date`` for dates)."""
        if self.fact.type == DATE:
            return date.fromisoformat(self.value)
        return self.value


def _error(path: str, template: str, **params) -> DeclaredError:
    return DeclaredError(path, Message(template, params))


def validate_declared(section) -> tuple[DeclaredFact, ...]:
    """Every declared fact of ``section``, checked; raises :class:`DeclaredError` naming it.

    ``None`` (no section) gives no facts. One subject key holds facts of one kind only.
    """
    if section is None:
        return ()
    if not isinstance(section, dict):
        raise _error(SECTION, N_("must be an object of subjects, each an object of facts"))
    if len(section) > MAX_SUBJECTS:
        raise _error(SECTION, N_("names at most {count} subjects"), count=MAX_SUBJECTS)
    declared = []
    for subject, facts in section.items():
        path = f"{SECTION}.{subject}"
        if not isinstance(subject, str) or not SUBJECT_KEY.match(subject):
            raise _error(
                SECTION,
                N_("subject {key} is not a catalog key (lower-case letters, digits, - and _)"),
                key=str(subject)[:40],
            )
        if not isinstance(facts, dict):
            raise _error(path, N_("must be an object of facts"))
        kinds = set()
        for name, raw in facts.items():
            fact = FACTS_BY_NAME.get(name) if isinstance(name, str) else None
            if fact is None:
                raise _error(path, N_("{name} is not a fact a vendor can declare"), name=name)
            if (fact.kind == OFFER) != ("@" in subject):
                raise _error(
                    f"{path}.{name}",
                    N_("is a fact about another kind of subject ({kind}); {key} is not one"),
                    kind=SUBJECT_LABELS[fact.kind],
                    key=subject,
                )
            kinds.add(fact.kind)
            declared.append(_declared_fact(subject, fact, raw, f"{path}.{name}"))
        if len(kinds) > 1:
            raise _error(
                path, N_("mixes facts of different subjects (data center, operator, server…)")
            )
    return tuple(declared)


def _declared_fact(subject: str, fact: Fact, raw, path: str) -> DeclaredFact:
    evidence, received = "", None
    if isinstance(raw, dict):
        unknown = sorted(set(raw) - set(VALUE_KEYS))
        if unknown or "value" not in raw:
            raise _error(path, N_("must be a value or an object with value, evidence and received"))
        evidence = raw.get("evidence") or ""
        if not isinstance(evidence, str) or len(evidence) > TEXT_MAX_LENGTH:
            raise _error(
                f"{path}.evidence",
                N_("must be text of at most {count} characters"),
                count=TEXT_MAX_LENGTH,
            )
        received = raw.get("received")
        if received is not None:
            try:
                received = date.fromisoformat(received).isoformat()
            except (TypeError, ValueError):
                raise _error(f"{path}.received", N_("must be a date written YYYY-MM-DD")) from None
        raw = raw["value"]
    try:
        value = parse_answer(fact, raw)
    except AnswerError as error:
        raise DeclaredError(path, error.message) from None
    return DeclaredFact(subject, fact, value, clean_text(evidence).strip(), received)


def as_section(facts) -> dict:
    """``DeclaredFact``s back into the JSON section (the plain value when there is no evidence)."""
    section: dict[str, dict] = {}
    for item in facts:
        value = item.value
        if item.evidence or item.received:
            value = {"value": item.value}
            if item.evidence:
                value["evidence"] = item.evidence
            if item.received:
                value["received"] = item.received
        section.setdefault(item.subject, {})[item.fact.name] = value
    return section


def merge(section: dict | None, facts) -> dict:
    """``section`` with ``facts`` added (a newer answer replaces an older one)."""
    merged = {subject: dict(values) for subject, values in (section or {}).items()}
    for subject, values in as_section(facts).items():
        merged.setdefault(subject, {}).update(values)
    return merged


def by_subject(facts) -> dict[str, dict[str, DeclaredFact]]:
    """``{subject: {fact name: DeclaredFact}}`` for laying the facts over catalog rows."""
    grouped: dict[str, dict[str, DeclaredFact]] = {}
    for item in facts:
        grouped.setdefault(item.subject, {})[item.fact.name] = item
    return grouped
