"""The document's ``procurement`` section → :class:`Procurement` (pure: no catalog read).

The section is checked by :mod:`advisor.domain.document` first; this turns its values into the
domain's inputs (modes, budget, deadline in hours, accelerator filters, required rules,
assumptions, the buyer's own figures), and names the subjects whose declared facts an option's
findings may use.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import date
from decimal import Decimal, InvalidOperation

from advisor.domain.economics.inputs import USAGE_ONCE, USAGE_PROGRAMME, Assumptions, Overrides
from advisor.domain.questionnaire import specs
from advisor.domain.recommend.options import Procurement

HOURS_PER_DAY = 24

# The wizard's qualification codes → the compliance rules that must pass for them.
QUALIFICATION_RULES = {
    "idc-licence": "VENDOR-TELECOM-LICENCE",
    "icp-filing": "VENDOR-ICP-FILING",
    "iso-27001": "VENDOR-ISO27001",
    "iso-9001": "VENDOR-ISO9001",
    "mlps-3": "VENDOR-MLPS3",
}


def deadline_hours(deadline, today: date) -> float | None:
    """Wall-clock hours from the start of ``today`` (Asia/Shanghai) to the end of the deadline."""
    if not deadline:
        return None
    if isinstance(deadline, str):
        deadline = date.fromisoformat(deadline)
    return float((deadline - today).days + 1) * HOURS_PER_DAY


def usage_of(section: dict) -> str:
    """One job unless the section says it is a programme (or, as documents written before runs
    were asked did, gives hours a year or runs a year)."""
    usage = section.get("usage")
    if usage:
        return usage
    given = section.get("runs_per_year") or section.get("hours_per_year")
    return USAGE_PROGRAMME if given else USAGE_ONCE


def assumptions_from(section: dict) -> Assumptions:
    defaults = Assumptions()
    usage = usage_of(section)
    runs = _decimal(section.get("runs_per_year")) if usage == USAGE_PROGRAMME else None
    hours = _decimal(section.get("hours_per_year")) if usage == USAGE_PROGRAMME else None
    years = section.get("years")
    minimum = _decimal(section.get("rent_min_months"))
    return Assumptions(
        usage=usage,
        runs_per_year=runs,
        training_hours_per_year=hours if runs is None else None,
        horizon_years=int(years) if years else defaults.horizon_years,
        rent_min_months=minimum if minimum is not None else defaults.rent_min_months,
        resale_pct=_decimal(section.get("resale_pct")),
    )


def procurement_from(section: dict | None, today: date) -> Procurement:
    section = section or {}
    assumptions = assumptions_from(section)
    return Procurement(
        modes=tuple(section.get("modes") or ("buy", "rent", "cloud")),
        budget_cny=_decimal(section.get("budget_cny")),
        deadline_hours=deadline_hours(section.get("deadline"), today),
        include_accelerators=tuple(section.get("preferred_accelerators") or ()),
        exclude_accelerators=tuple(section.get("excluded_accelerators") or ()),
        domestic_only=bool(section.get("domestic_only")),
        prefer_domestic=bool(section.get("prefer_domestic")) and not section.get("domestic_only"),
        required_rules=tuple(
            QUALIFICATION_RULES[q]
            for q in section.get("qualifications") or ()
            if q in QUALIFICATION_RULES
        ),
        assumptions=assumptions,
        overrides=overrides_from(section.get("overrides")),
    )


def overrides_from(values: dict | None) -> Overrides:
    """The buyer's own figures, by Overrides field name; unknown names and blanks are ignored."""
    known = {f.name for f in fields(Overrides)}
    cleaned = {}
    for name, value in (values or {}).items():
        if name in known and value not in (None, ""):
            number = _decimal(value)
            if number is not None:
                cleaned[name] = number
    return Overrides(**cleaned)


def offer_key(option) -> str:
    """The ``declared`` subject key of one server model at one data center."""
    return f"{option.hardware.server.key}@{option.site.data_center.key}"


def subject_keys(option) -> dict[str, str | None]:
    """``{subject kind: key}`` of an option: whose declared facts its findings may use. A cloud
    option's are its provider (the operator), its offer and its accelerator."""
    if option.cloud is not None:
        return {
            specs.DATA_CENTER: None,
            specs.OPERATOR: option.site.vendor.key,
            specs.CLOUD_OFFER: option.cloud.key,
            specs.SERVER: None,
            specs.ACCELERATOR: option.hardware.accelerator.key,
            specs.OFFER: None,
        }
    return {
        specs.DATA_CENTER: option.site.data_center.key,
        specs.OPERATOR: option.site.vendor.key,
        specs.CLOUD_OFFER: None,
        specs.SERVER: option.hardware.server.key,
        specs.ACCELERATOR: option.hardware.accelerator.key,
        specs.OFFER: offer_key(option),
    }


def _decimal(value) -> Decimal | None:
    try:
        return None if value in (None, "") else Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
