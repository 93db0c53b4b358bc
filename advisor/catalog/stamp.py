"""The catalog stamp: one query that changes whenever the catalog or a rule parameter does.

The latest ``updated_at`` and the row count of every catalog table and of the rule parameters:
a row saved (admin, import, fixture load) moves a latest ``updated_at``, a row added or deleted
moves a count, and a bulk update stamps ``updated_at`` too (``vendors.models.base``). The stored
recommendation is keyed by it (docs/decisions/0033) and catalog reads are kept per stamp between
computations (docs/decisions/0050).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from django.apps import apps
from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from advisor.catalog.cache import cached_stamp, catalog_reads
from advisor.models import RuleParameter


@functools.cache  # the tables and the database are those of the process
def _stamp_sql() -> str:
    """One query for the catalog stamp: latest ``updated_at`` and row count of every table."""
    quote = connection.ops.quote_name
    parts = []
    for model in (*apps.get_app_config("vendors").get_models(), RuleParameter):
        table = quote(model._meta.db_table)
        if any(f.name == "updated_at" for f in model._meta.get_fields()):
            column = quote(model._meta.get_field("updated_at").column)
            parts.append(f"(SELECT MAX({column}) FROM {table})")
        if model is not RuleParameter:
            parts.append(f"(SELECT COUNT(*) FROM {table})")
    return "SELECT " + ", ".join(parts)


def _stamp_row() -> tuple:
    with connection.cursor() as cursor:
        cursor.execute(_stamp_sql())
        return cursor.fetchone()


def _joined(row: tuple) -> str:
    return ":".join("" if value is None else str(value) for value in row)


def catalog_stamp() -> str:
    """Changes whenever a catalog row or a rule parameter is saved (latest ``updated_at``),
    added or deleted (row counts). One database round trip (it was one query per table)."""
    return _joined(_stamp_row())


@dataclass(frozen=True)
class CatalogState:
    stamp: str  # SHA-256 of the catalog stamp
    changed_at: datetime | None  # the latest catalog row saved (None: no dated row)


def _as_datetime(value) -> datetime | None:
    if isinstance(value, str):  # SQLite answers text for a MAX over a datetime column
        value = parse_datetime(value)
    if not isinstance(value, datetime):
        return None
    return value if timezone.is_aware(value) else timezone.make_aware(value, UTC)


def catalog_state() -> CatalogState:
    """The catalog's stamp and when it last changed, in the one stamp query."""
    row = _stamp_row()
    raw = _joined(row)
    dates = [d for d in (_as_datetime(value) for value in row) if d is not None]
    return CatalogState(hashlib.sha256(raw.encode()).hexdigest(), max(dates, default=None))


def catalog_reads_kept(view):
    """``view`` with its memoized catalog reads (presets, data centers, provinces, accelerator
    families) kept per catalog stamp: one stamp query instead of a query per list
    (docs/decisions/0073-lean-stored-result.md, "The wizard's pages")."""

    @functools.wraps(view)
    def with_kept_reads(request, *args, **kwargs):
        with catalog_reads(catalog_state().stamp):
            return view(request, *args, **kwargs)

    return with_kept_reads


def current_stamp() -> str:
    """The catalog stamp (SHA-256, as ``catalog_state``): the one a view kept its reads for
    (:func:`catalog_reads_kept`), else read now."""
    return cached_stamp() or catalog_state().stamp
