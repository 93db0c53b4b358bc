"""The vocabulary every compliance rule shares: status, severity, evidence, rule, finding.

A rule is a stable id plus translatable texts (marked with ``N_``) and an ``evaluate``
function. ``evaluate`` returns an :class:`Outcome`: a status, a message with its figures
(:class:`~advisor.domain.i18n.Message`) and the evidence compared. The engine adds the
rule's metadata to make a :class:`Finding`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from advisor.domain.i18n import N_, Message


class Status(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    UNKNOWN = "unknown"


class Severity(StrEnum):
    BLOCKER = "blocker"
    WARNING = "warning"
    ADVICE = "advice"


class Area(StrEnum):
    SITE = "site"
    VENDOR = "vendor"
    HARDWARE = "hardware"


STATUS_LABELS = {
    Status.PASS: N_("pass"),
    Status.WARN: N_("warning"),
    Status.FAIL: N_("fail"),
    Status.UNKNOWN: N_("unknown"),
}
SEVERITY_LABELS = {
    Severity.BLOCKER: N_("blocker"),
    Severity.WARNING: N_("warning"),
    Severity.ADVICE: N_("advice"),
}
AREA_LABELS = {
    Area.SITE: N_("Site"),
    Area.VENDOR: N_("Hosting vendor"),
    Area.HARDWARE: N_("Hardware"),
}


@dataclass(frozen=True)
class Evidence:
    """One compared figure: what was measured, the threshold and how they compare.

    ``label`` and ``unit`` are translatable markers; ``measured`` and ``threshold`` are
    plain values (numbers, ISO dates or short codes), ``None`` when not known.
    ``comparison`` is the operator the measured value must satisfy, e.g. ``"<="``.
    """

    label: str
    measured: object = None
    threshold: object = None
    unit: str = ""
    comparison: str = ""


@dataclass(frozen=True)
class Outcome:
    status: Status
    message: Message
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class Rule:
    id: str
    area: Area
    title: str
    explanation: str
    citation: str
    severity: Severity
    evaluate: Callable = field(repr=False, compare=False)
    parameter_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    rule_id: str
    area: Area
    title: str
    explanation: str
    citation: str
    severity: Severity
    status: Status
    message: Message
    evidence: tuple[Evidence, ...] = ()

    @property
    def is_failed_blocker(self) -> bool:
        return self.status is Status.FAIL and self.severity is Severity.BLOCKER

    def as_dict(self) -> dict:
        """A JSON-ready snapshot: English templates plus parameters (docs/decisions/0002)."""
        return {
            "rule_id": self.rule_id,
            "area": str(self.area),
            "title": self.title,
            "explanation": self.explanation,
            "citation": self.citation,
            "severity": str(self.severity),
            "status": str(self.status),
            "message": {"template": self.message.template, "params": dict(self.message.params)},
            "evidence": [
                {
                    "label": item.label,
                    "measured": item.measured,
                    "threshold": item.threshold,
                    "unit": item.unit,
                    "comparison": item.comparison,
                }
                for item in self.evidence
            ],
        }


def outcome(status: Status, template: str, evidence=(), **params) -> Outcome:
    """Shorthand used by the rules: ``outcome(Status.PASS, N_("... {x}"), evidence, x=1)``."""
    return Outcome(status, Message(template, params), tuple(evidence))


def figure(value):
    """A number as it should read in a message: no float noise, integers without ``.0``."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    rounded = round(float(value), 3)
    return int(rounded) if rounded == int(rounded) else rounded
