"""The preface of the specification and of each lot: project, deadline, quantity, budget,
delivery term, region and contract period."""

from __future__ import annotations

import math
from datetime import date, timedelta
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from advisor.brief.specification.values import (
    CLOUD,
    COMMISSIONING_DAYS,
    GOODS,
    HOSTING,
    LOT_COST_ITEMS,
    READINESS,
    RENT,
    Lot,
    PrefaceRow,
    blank,
)
from advisor.domain.i18n import plural_number
from advisor.presentation.labels import MODE_LABELS, label, method_label
from advisor.presentation.numbers import cny, plain_number
from advisor.presentation.text import local_name

# --- Preface ------------------------------------------------------------------------------------


def deadline_day(snapshot: dict) -> date | None:
    hours = (snapshot.get("procurement") or {}).get("deadline_hours")
    if not hours:
        return None
    # Hours from the start of the snapshot's day to the end of the deadline day
    # (advisor/domain/recommend/procurement.deadline_hours).
    days = math.floor(float(hours) / 24) - 1
    return date.fromisoformat(snapshot["today"]) + timedelta(days=days)


def project_name(snapshot: dict) -> str:
    scenario = snapshot["scenario"]
    return _("Computing capacity to fine-tune %(model)s (%(method)s)") % {
        "model": scenario["model"]["name"],
        "method": method_label(scenario.get("method"), scenario.get("lora")),
    }


def preface(snapshot: dict, option: dict, lots: list[Lot]) -> list[PrefaceRow]:
    deadline = deadline_day(snapshot)
    rows = [
        (_("Project"), project_name(snapshot)),
        (_("Procurement mode"), label(MODE_LABELS, option.get("mode"))),
        (_("Quantity"), quantity_text(option)),
        (_("Lots"), _("; ").join(lot.title for lot in lots)),
        (_("Training to finish by"), deadline.isoformat() if deadline else None),
        (_("Requesting department"), None),
        (_("Accepting department"), None),
        (_("Buyer's procurement rules"), None),
    ]
    return [PrefaceRow(name, value or blank(), value is not None) for name, value in rows]


def quantity_text(option: dict) -> str:
    capacity = option["capacity"]
    if option.get("mode") == "cloud":
        return ngettext(
            "%(instances)s cloud instance of %(per)s accelerators (%(gpus)s accelerators)",
            "%(instances)s cloud instances of %(per)s accelerators (%(gpus)s accelerators)",
            plural_number(capacity["instances"]),
        ) % {
            "instances": capacity["instances"],
            "per": capacity["gpus_per_instance"],
            "gpus": capacity["gpus"],
        }
    return ngettext(
        "%(servers)s server of %(per)s accelerators (%(gpus)s accelerators)",
        "%(servers)s servers of %(per)s accelerators (%(gpus)s accelerators)",
        plural_number(capacity["instances"]),
    ) % {
        "servers": capacity["instances"],
        "per": capacity["gpus_per_instance"],
        "gpus": capacity["gpus"],
    }


def cost_lines(option: dict) -> list[dict]:
    cost = (option.get("economics") or {}).get("cost") or {}
    return list(cost.get("lines") or ())


def _cost_quantity(option: dict, item: str) -> str | None:
    line = next((x for x in cost_lines(option) if x["item"] == item), None)
    return plain_number(line["quantity"]) if line else None


def lot_budget(option: dict, kind: str) -> Decimal | None:
    """The lot's budget line: the sum of the brief's cost lines that the lot buys."""
    amounts = [
        Decimal(str(line["amount_cny"]))
        for line in cost_lines(option)
        if line["item"] in LOT_COST_ITEMS[kind]
    ]
    return sum(amounts, Decimal(0)) if amounts else None


def horizon_years(snapshot: dict) -> int:
    assumptions = (snapshot.get("procurement") or {}).get("assumptions") or {}
    return int(assumptions.get("horizon_years") or 3)


def delivery_term(snapshot: dict, option: dict) -> tuple[str | None, bool]:
    """When the lot must be delivered and ready: dated back from the deadline by the training
    time and the commissioning days, or a blank."""
    deadline = deadline_day(snapshot)
    if deadline is None:
        return None, False
    hours = float(option["sizing"].get("time_to_train_hours") or 0)
    ready = deadline - timedelta(days=math.ceil(hours / 24) + COMMISSIONING_DAYS)
    today = date.fromisoformat(snapshot["today"])
    if ready <= today:
        return _("as soon as possible: training must finish by %(deadline)s") % {
            "deadline": deadline.isoformat()
        }, True
    return _(
        "ready for use by %(ready)s (training of about %(hours)s h must finish by %(deadline)s)"
    ) % {
        "ready": ready.isoformat(),
        "hours": plain_number(round(hours, 1)),
        "deadline": deadline.isoformat(),
    }, True


def region_text(option: dict) -> str | None:
    """Where the chosen site is, as a region (never a data center's or provider's name)."""
    center = option.get("data_center") or {}
    zone = option.get("zone") or {}
    city = local_name(center, "city") if center.get("city") else ""
    province = local_name(zone) if zone else ""
    if city and province:
        return _("%(city)s, %(province)s") % {"city": city, "province": province}
    return city or province or None


def lot_preface(snapshot: dict, option: dict, kind: str, place: str | None) -> list[PrefaceRow]:
    budget = lot_budget(option, kind)
    term, known = delivery_term(snapshot, option)
    rows = [
        (
            _("Budget of this lot") if kind != READINESS else _("Internal running cost"),
            _("%(amount)s (the approved brief's cost lines of this lot)")
            % {"amount": cny(budget, 2)}
            if budget is not None
            else None,
        ),
        (_("Delivery term"), term if known else None),
        (_("Place"), place),
    ]
    if kind in (GOODS, HOSTING, RENT, CLOUD):
        rows.append((_("Contract period"), contract_period(snapshot, option, kind)))
    return [PrefaceRow(name, value or blank(), value is not None) for name, value in rows]


def contract_period(snapshot: dict, option: dict, kind: str) -> str | None:
    if kind == GOODS:
        years = horizon_years(snapshot)
        return ngettext(
            "delivery, then a warranty of %(years)s year from acceptance",
            "delivery, then a warranty of %(years)s years from acceptance",
            years,
        ) % {"years": years}
    if kind == HOSTING:
        months = _cost_quantity(option, "colocation")
        if not months:
            return None
        return ngettext(
            "%(months)s rack-month", "%(months)s rack-months", plural_number(months)
        ) % {"months": months}
    if kind == RENT:
        months = _cost_quantity(option, "rent")
        if not months:
            return None
        return ngettext(
            "%(months)s server-month", "%(months)s server-months", plural_number(months)
        ) % {"months": months}
    hours = _cost_quantity(option, "cloud_compute")
    return _("about %(hours)s card-hours") % {"hours": hours} if hours else None
