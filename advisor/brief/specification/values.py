"""The marks, lot kinds and dataclasses a specification is made of, the small helpers every
part uses, and the wording of the evidence a bidder supplies."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.utils.translation import gettext as _

MANDATORY = "★"
IMPORTANT = "▲"
# The convention every interconnect figure is stated in: GB/s per accelerator in one direction,
# summed over its links (what an all-reduce's bus bandwidth is compared with). The catalog keeps
# the bidirectional sum, twice that (docs/decisions/0115-procurement-lots.md).
CATALOG_TO_ONE_DIRECTION = 0.5
# The classes a link requirement names (GB/s per accelerator, one direction): the highest class
# the brief's layout reaches, so that any product of that class qualifies.
LINK_CLASSES_GBS = (400, 300, 200, 150, 100, 50, 25)
SYMBOLS = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "==": "="}
# Rules the lots state in their own words (from the sizing, or measurable instead of a label).
STATED_RULES = {
    "HW-INTRANODE-LINK",
    "HW-INTERNODE-NIC",
    "HW-NVME-CAPACITY",
    "HW-NVME-READ",
    "HW-SOFTWARE-STACK",
    "SITE-RACK-POWER",
    "SITE-RACK-COOLING",
    "SITE-PUE",
    "SITE-FLOOR-LOAD",
}
# What the catalog records about itself, not a requirement on what is bought.
NOT_REQUIREMENTS = {"HW-AVAILABILITY"}
# Evidence labels that describe the place or the load, not what a bidder offers.
NOT_OFFERED = {
    "The outdoor mean relative humidity",
    "The licence number",
    "The data center's province",
}
FONT_EAST_ASIA = "Noto Sans CJK SC"

# Lot kinds.
GOODS = "goods"
HOSTING = "hosting"
RENT = "rent"
CLOUD = "cloud"
READINESS = "readiness"
# The cost lines (docs/decisions/0044-cost-lines.md) each lot's budget line sums.
LOT_COST_ITEMS = {
    GOODS: {"purchase", "maintenance"},
    HOSTING: {"colocation", "electricity", "demand_charge"},
    RENT: {"rent", "data_transfer"},
    CLOUD: {"cloud_compute", "data_transfer"},
    READINESS: {"electricity", "demand_charge"},
}
# Days between delivery and the start of training (installation, commissioning, acceptance),
# used only to date the delivery term from the deadline.
COMMISSIONING_DAYS = 7

# The yes/no condition of a requirement line (its text says "required").
NUMBER = "number"
YES_NO = "yes-no"


@dataclass(frozen=True)
class Line:
    mark: str  # MANDATORY, IMPORTANT or "" (information)
    text: str
    evidence: str = ""  # what the bidder supplies for this clause
    condition: str = ""  # NUMBER or YES_NO for a measurable line


@dataclass(frozen=True)
class Section:
    title: str
    lines: list[Line]


@dataclass(frozen=True)
class PrefaceRow:
    label: str
    value: str
    known: bool


@dataclass(frozen=True)
class Policy:
    title: str
    applicable: bool
    why: str

    @property
    def verdict(self) -> str:
        return _("Applicable") if self.applicable else _("Not applicable")


@dataclass(frozen=True)
class Lot:
    kind: str
    title: str
    vendor: bool  # False: an internal checklist, not tendered
    preface: list[PrefaceRow]
    sections: list[Section]
    acceptance: list[Line]
    policies: list[Policy]

    def requirement_lines(self) -> list[Line]:
        return [line for section in self.sections for line in section.lines]


@dataclass(frozen=True)
class Specification:
    title: str
    number: str
    day: date
    language: str
    preface: list[PrefaceRow]
    lots: list[Lot]
    notes: list[str] = field(default_factory=list)
    examples_title: str = ""
    examples: list[str] = field(default_factory=list)

    def requirement_lines(self) -> list[Line]:
        return [line for lot in self.lots for line in lot.requirement_lines()]


def blank() -> str:
    return _("[to be filled in]")


def _findings(option: dict) -> dict[str, dict]:
    return {f["rule_id"]: f for f in option["compliance"]["findings"]}


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def meets(measured, comparison: str, threshold) -> bool | None:
    """Whether a measured value meets a threshold; None when it cannot be told."""
    if measured is None or threshold is None:
        return None
    if _is_number(measured) and _is_number(threshold):
        return {
            ">=": measured >= threshold,
            "<=": measured <= threshold,
            ">": measured > threshold,
            "<": measured < threshold,
            "==": measured == threshold,
        }.get(comparison)
    if comparison == "==":
        return measured == threshold
    return None


# --- Evidence a bidder supplies ------------------------------------------------------------------


def technical_proof() -> str:
    return _("technical documents proving it (datasheet, test report or the maker's statement)")


def certificate_copy() -> str:
    return _("a copy of the licence or certificate, valid on the closing date")


def site_record() -> str:
    return _("the data center's measured records or a third-party test report")


def commitment() -> str:
    return _("a written commitment signed by the bidder")
