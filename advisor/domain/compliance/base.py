"""The vocabulary every compliance rule shares: status, severity, evidence, rule, finding.

A rule is a stable id plus translatable texts (marked with ``N_``) and an ``evaluate``
function. ``evaluate`` returns an :class:`Outcome`: a status, a message with its figures
(:class:`~advisor.domain.i18n.Message`) and the evidence compared. The engine adds the
rule's metadata to make a :class:`Finding`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from advisor.domain.compliance.provinces import province_names
from advisor.domain.i18n import N_, Message
from advisor.domain.plain import message as plain_message


class Status(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    UNKNOWN = "unknown"


class Severity(StrEnum):
    BLOCKER = "blocker"
    WARNING = "warning"
    ADVICE = "advice"
    # A check of the buyer's own room that only the buyer's facilities team can answer: an
    # internal checklist item, never a vendor's veto (it does not change the verdict).
    INTERNAL = "internal"


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
    Severity.INTERNAL: N_("internal check for your facilities team"),
}
AREA_LABELS = {
    Area.SITE: N_("Site"),
    Area.VENDOR: N_("Hosting vendor"),
    Area.HARDWARE: N_("Hardware"),
}


@dataclass(frozen=True)
class Evidence:
    """One compared figure: what was found, what is required, and how they compare.

    ``label`` names what was found (an ``N_`` noun phrase that reads as a sentence's
    subject, e.g. "The data center's PUE"); ``unit`` is a unit marker; ``measured`` and
    ``threshold`` are plain values (numbers, ISO dates, codes, booleans, tuples of codes),
    ``None`` when not known. ``comparison`` is the operator the found value must satisfy, e.g.
    ``"<="`` (empty: reported only). ``words`` names the vocabulary (:data:`VALUE_WORDS`) its
    codes are read in; ``requirement`` an ``N_`` template with ``{threshold}`` that says who
    requires what when it is not the plain rule ("the buyer asks for at most {threshold}").
    A reader never sees these fields as an expression: :func:`evidence_sentence` words them.
    """

    label: str
    measured: object = None
    threshold: object = None
    unit: str = ""
    comparison: str = ""
    words: str = ""
    requirement: str = ""


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
    # The ComplianceInput fields the rule reads (a test checks them against its code): options
    # that share these facts share the finding (engine.SharedFindings). Empty: never shared.
    reads: tuple[str, ...] = ()
    # For a rule reading facts of both the site and the hardware: the values among them its
    # outcome depends on (with the parameters), as a hashable tuple; options whose values are
    # equal share the finding (a test checks it against the rule's outcomes). None: by reads.
    reads_values: Callable | None = field(default=None, repr=False, compare=False)


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
            "message": plain_message(self.message),
            "evidence": [
                {
                    "label": item.label,
                    "measured": _plain(item.measured),
                    "threshold": _plain(item.threshold),
                    "unit": item.unit,
                    "comparison": item.comparison,
                    "words": item.words,
                    "requirement": item.requirement,
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


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


# --- Evidence as a sentence ------------------------------------------------------------------
#
# A finding's evidence reads "The data center's PUE is not recorded; at most 1.2 is required."
# ("数据中心的 PUE 值未记录；要求不超过 1.2。"), never "PUE: — <= 1.2". The sentence is a message
# with parameters (docs/decisions/0002): the label, the values (with their units and the words
# for their codes, nested messages themselves) and the requirement, all rendered in the
# reader's language by the presentation layer.

# The words for the codes a value may hold, by vocabulary name (``Evidence.words``).
VALUE_WORDS = {
    "availability": {
        "available": N_("available in China"),
        "licence-required": N_("a US export licence is required"),
        "not-available": N_("not available in China"),
        "domestic": N_("a domestic product"),
    },
    "cooling": {
        "air": N_("air cooling"),
        "rear-door": N_("rear-door heat exchangers"),
        "direct-liquid": N_("direct liquid cooling"),
        "immersion": N_("immersion cooling"),
    },
    "nic": {"ethernet": N_("plain Ethernet")},
    "pue-basis": {"measured": N_("a measured annual figure"), "design": N_("a design figure")},
    "topology": {
        "all-to-all": N_("all-to-all"),
        "nvswitch": N_("NVSwitch (all-to-all)"),
        "nvlink-pairs": N_("NVLink bridges between pairs"),
        "pcie-switch": N_("a PCIe switch"),
        "hccs-mesh": N_("an HCCS full mesh"),
        "xgmi-mesh": N_("an xGMI full mesh"),
    },
}
# Product and protocol names, the same in every language (shown as they are).
VALUE_NAMES = {
    "nic": {"infiniband": "InfiniBand", "roce": "RoCE"},
    "stack": {"cuda": "CUDA", "rocm": "ROCm", "cann": "CANN"},
}
PROVINCE_WORDS = "province"  # a province's English and Chinese names (``name`` / ``name_zh``)

SENTENCE = N_("{state}.")
SENTENCE_WITH_REQUIREMENT = N_("{state}; {requirement}.")
STATE_VALUE = N_("{label} is {value}")
STATE_WORDS = N_("{label} is {words}")  # a value in words (no space before it in Chinese)
STATE_NOT_RECORDED = N_("{label} is not recorded")
STATE_FLAG_NOT_RECORDED = N_("{label}: not recorded")
STATE_YES = N_("{label}: yes")
STATE_NO = N_("{label}: no")
STATE_NONE = N_("{label}: none")
REQUIRED = N_("this is required")
NOT_RECORDED = N_("not recorded")  # a figure a message names but the catalog lacks
NUMBER_NOT_RECORDED = N_("(number not recorded)")
LIMIT_NOT_RECORDED = N_("the limit is not recorded")
REQUIREMENTS = {
    "<=": N_("at most {threshold} is required"),
    "<": N_("below {threshold} is required"),
    ">=": N_("at least {threshold} is required"),
    ">": N_("more than {threshold} is required"),
    "==": N_("{threshold} is required"),
    "in": N_("one of {threshold} is required"),
}
WORDS_REQUIRED = N_("{words} is required")
DATE_REQUIREMENTS = {
    "<=": N_("{threshold} or earlier is required"),
    ">=": N_("{threshold} or later is required"),
}
LIST_PAIR = N_("{first}, {rest}")
# Value forms with no words of their own (a number and its unit): not translated.
QUANTITY = "{value} {unit}"
PERCENT = "{value}%"
NAME = "{name}"
NO_WORDS = (QUANTITY, PERCENT, NAME)

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FIELDS = ("label", "measured", "threshold", "unit", "comparison", "words", "requirement")


def evidence_sentence(item) -> Message:
    """The sentence a reader reads for one piece of evidence (an :class:`Evidence`, or its
    stored form from :meth:`Finding.as_dict`, which may lack ``words`` and ``requirement``)."""
    if not isinstance(item, Evidence):
        item = Evidence(**{key: item.get(key) for key in _FIELDS if item.get(key) is not None})
    label = Message(item.label)
    state = _state(item, label)
    requirement = _requirement(item)
    if requirement is None:
        return Message(SENTENCE, {"state": state})
    return Message(SENTENCE_WITH_REQUIREMENT, {"state": state, "requirement": requirement})


def _state(item: Evidence, label: Message) -> Message:
    value = item.measured
    if value is None:
        yes_or_no = item.threshold is True
        return Message(
            STATE_FLAG_NOT_RECORDED if yes_or_no else STATE_NOT_RECORDED, {"label": label}
        )
    if value is True:
        return Message(STATE_YES, {"label": label})
    if value is False:
        return Message(STATE_NO, {"label": label})
    if value == "" or value == () or value == []:
        return Message(STATE_NONE, {"label": label})
    value = shown(value, item.unit, item.words)
    if _in_words(value):
        return Message(STATE_WORDS, {"label": label, "words": value})
    return Message(STATE_VALUE, {"label": label, "value": value})


def _in_words(value) -> bool:
    """Whether a shown value is words (a code's words, a list of them, a name), not a figure."""
    return isinstance(value, Message) and value.template not in (QUANTITY, PERCENT)


def _requirement(item: Evidence) -> Message | None:
    if not item.comparison:
        return None
    if item.threshold is None:
        return Message(LIMIT_NOT_RECORDED)
    if item.threshold is True and not item.requirement:
        return Message(REQUIRED)
    threshold = shown(item.threshold, item.unit, item.words)
    if item.requirement:
        return Message(item.requirement, {"threshold": threshold})
    if item.comparison == "==" and _in_words(threshold):
        return Message(WORDS_REQUIRED, {"words": threshold})
    is_date = isinstance(item.threshold, str) and _ISO_DATE.match(item.threshold)
    template = (DATE_REQUIREMENTS if is_date else {}).get(item.comparison)
    return Message(
        template or REQUIREMENTS.get(item.comparison, REQUIREMENTS["=="]), {"threshold": threshold}
    )


def shown(value, unit: str = "", words: str = ""):
    """A value as a reader reads it: codes in words, a list joined, a number with its unit."""
    if isinstance(value, list | tuple):
        return listing([shown(item, unit, words) for item in value])
    if words == PROVINCE_WORDS:
        names = province_names(str(value))
        if names is not None:
            return Message(NAME, {"name": names[0], "name_zh": names[1]})
        return value
    vocabulary = VALUE_WORDS.get(words, {})
    if value in vocabulary:
        return Message(vocabulary[value])
    names = VALUE_NAMES.get(words, {})
    if value in names:
        return names[value]
    if not unit:
        return value
    if unit == "%":
        return Message(PERCENT, {"value": value})
    return Message(QUANTITY, {"value": value, "unit": Message(unit)})


def listing(items) -> Message | str:
    """Items joined in the reader's language ("A, B, C"; "A、B、C")."""
    items = list(items)
    if not items:
        return ""
    joined = items[-1]
    for item in reversed(items[:-1]):
        joined = Message(LIST_PAIR, {"first": item, "rest": joined})
    return joined
