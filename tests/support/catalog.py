"""The seeded catalog for tests that need it as a precondition, loaded once per test process.

``manage.py load_catalog`` reads nine fixture files and saves every record through the ORM with
its history (about a second of CPU), and hundreds of tests start from it. The first call in a
test process runs the real command on an empty catalog and keeps every row it wrote (each
table's rows as the database returned them); later calls on an empty catalog insert those rows
again in one statement per table, which leaves the database exactly as the command left it
(same keys, figures, history and timestamps), then reset the primary-key sequences as
``loaddata`` does. Tests of the command itself (idempotency, history, what it loads) call
``call_command("load_catalog")``, never this.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection


@dataclass(frozen=True)
class _Table:
    model: type
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]


# Per process and database engine: what the real command wrote into each table.
_SNAPSHOTS: dict[str, tuple[_Table, ...]] = {}


def _tables():
    """Every concrete table of the project's models, with auto-created many-to-many tables."""
    seen = set()
    for model in apps.get_models(include_auto_created=True):
        meta = model._meta
        if meta.proxy or not meta.managed or meta.db_table in seen:
            continue
        seen.add(meta.db_table)
        yield model


def _counts() -> dict[type, int]:
    with connection.cursor() as cursor:
        counts = {}
        for model in _tables():
            cursor.execute(
                f"SELECT COUNT(*) FROM {connection.ops.quote_name(model._meta.db_table)}"
            )
            counts[model] = cursor.fetchone()[0]
    return counts


def _read(model) -> _Table:
    columns = tuple(field.column for field in model._meta.local_concrete_fields)
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(map(quote, columns))} FROM {quote(model._meta.db_table)} "
            f"ORDER BY {quote(model._meta.pk.column)}"
        )
        return _Table(model, columns, tuple(cursor.fetchall()))


def _write(tables: tuple[_Table, ...]) -> None:
    quote = connection.ops.quote_name
    with connection.constraint_checks_disabled(), connection.cursor() as cursor:
        for table in tables:
            placeholders = ", ".join(["%s"] * len(table.columns))
            cursor.executemany(
                f"INSERT INTO {quote(table.model._meta.db_table)} "
                f"({', '.join(map(quote, table.columns))}) VALUES ({placeholders})",
                table.rows,
            )
    connection.check_constraints(table_names=[t.model._meta.db_table for t in tables])
    resets = connection.ops.sequence_reset_sql(no_style(), [t.model for t in tables])
    if resets:
        with connection.cursor() as cursor:
            for statement in resets:
                cursor.execute(statement)


def load_catalog() -> None:
    """The catalog as ``manage.py load_catalog`` seeds it, in the current test database."""
    before = _counts()
    snapshot = _SNAPSHOTS.get(connection.vendor)
    if snapshot is not None and all(before[table.model] == 0 for table in snapshot):
        _write(snapshot)
        return
    call_command("load_catalog", verbosity=0)
    after = _counts()
    written = [model for model, count in after.items() if count > before[model]]
    if snapshot is None and all(before[model] == 0 for model in written):
        _SNAPSHOTS[connection.vendor] = tuple(_read(model) for model in written)
