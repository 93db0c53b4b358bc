"""Which catalog records are past their kind's freshness limit (docs/decisions/0110).

A figure does not stop being a figure when it ages: the catalog keeps it and the pages show
its date. What ages is the reason to trust it, so each kind has a limit after which an admin
should look for a newer publication:

* tariffs: 12 months after the month the table applies to (grid companies publish monthly);
* rack fees: 12 months after publication (or after ``as_of`` where no publication date is
  recorded);
* offers (purchase, rent and cloud prices): 6 months after the price date (or ``as_of``);
* certificates: at their expiry date. A certificate without an expiry date cannot be judged
  and is reported apart as "expiry not recorded", never as current.

``stale_records`` lists them for ``load_catalog``; ``stale_q`` is the same test as a query, for
the admin's "freshness" filter.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Q

from advisor.domain.compliance.dates import add_months
from vendors.models import Certificate, Offer, RackFee, Tariff

STALE = "stale"
UNDATED = "undated"


@dataclass(frozen=True)
class Limit:
    """A kind's freshness rule: the date fields read (first filled one wins) and the months
    after that date a record stays current (``None``: the date itself is the end, as a
    certificate's expiry)."""

    date_fields: tuple[str, ...]
    months: int | None


LIMITS: dict[type, Limit] = {
    Tariff: Limit(("month",), 12),
    RackFee: Limit(("published_on", "as_of"), 12),
    Offer: Limit(("quoted_on", "as_of"), 6),
    Certificate: Limit(("valid_until",), None),
}


@dataclass(frozen=True)
class StaleRecord:
    model: str  # e.g. "offer"
    key: str
    state: str  # STALE or UNDATED
    dated: date | None  # the date the limit was measured from
    due: date | None  # the day the record went out of date

    def describe(self) -> str:
        if self.state == UNDATED:
            return f"{self.model} {self.key}: no date to judge its freshness by"
        return f"{self.model} {self.key}: dated {self.dated}, out of date since {self.due}"


def _cutoff(limit: Limit, today: date) -> date:
    """Records whose date is before this day are past the limit."""
    return today if limit.months is None else add_months(today, -limit.months)


def _dated_q(fields: tuple[str, ...], before: date) -> Q:
    """The first filled date field of ``fields`` is before ``before``."""
    result, earlier_empty = Q(), Q()
    for index, name in enumerate(fields):
        here = Q(**{f"{name}__lt": before})
        result |= earlier_empty & here if index else here
        earlier_empty &= Q(**{f"{name}__isnull": True})
    return result


def stale_q(model: type, today: date, state: str = STALE) -> Q:
    """The records of ``model`` past their limit on ``today`` (``STALE``), or without any date
    to judge them by (``UNDATED``)."""
    limit = LIMITS[model]
    if state == UNDATED:
        return Q(**{f"{name}__isnull": True for name in limit.date_fields})
    return _dated_q(limit.date_fields, _cutoff(limit, today))


def _record_date(row, limit: Limit) -> date | None:
    return next(
        (getattr(row, name) for name in limit.date_fields if getattr(row, name)),
        None,
    )


def stale_records(today: date) -> list[StaleRecord]:
    """Every record past its kind's limit, then every record without a date, by kind and key."""
    found = []
    for model, limit in LIMITS.items():
        name = model._meta.model_name
        rows = model.objects.filter(stale_q(model, today) | stale_q(model, today, UNDATED))
        for row in rows.order_by("key"):
            dated = _record_date(row, limit)
            if dated is None:
                found.append(StaleRecord(name, row.key, UNDATED, None, None))
                continue
            due = dated if limit.months is None else add_months(dated, limit.months)
            found.append(StaleRecord(name, row.key, STALE, dated, due))
    return sorted(found, key=lambda r: (r.state != STALE, r.model, r.key))
