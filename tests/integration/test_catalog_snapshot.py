"""The tests' catalog loader (tests/support/catalog.py) leaves what ``load_catalog`` leaves."""

import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, models

from tests.support import catalog
from tests.support.catalog import _tables

pytestmark = [pytest.mark.django_db, pytest.mark.database]


def vendors_tables():
    return [model for model in _tables() if model._meta.app_label == "vendors"]


def empty_the_catalog():
    """Every catalog table emptied and its key sequence reset, within this test's transaction."""
    tables = [model._meta.db_table for model in vendors_tables()]
    with connection.constraint_checks_disabled(), connection.cursor() as cursor:
        for statement in connection.ops.sql_flush(no_style(), tables, reset_sequences=True):
            cursor.execute(statement)


def contents() -> dict:
    """Every catalog row with its keys and figures; times of saving left out (they differ from
    one run of the command to the next)."""
    seen = {}
    for model in vendors_tables():
        fields = [
            f.attname
            for f in model._meta.local_concrete_fields
            if not isinstance(f, models.DateTimeField)
        ]
        seen[model._meta.db_table] = list(model._base_manager.order_by("pk").values_list(*fields))
    return seen


def test_a_restored_catalog_is_the_commands_catalog_row_for_row():
    # The process's copy is made again here, from reset key sequences: on PostgreSQL a sequence
    # keeps what earlier tests in this process drew (rollbacks do not return it), so a copy made
    # then holds other keys than the command draws now (seen when the tests were spread over the
    # workers differently).
    kept = catalog._SNAPSHOTS.pop(connection.vendor, None)
    try:
        empty_the_catalog()
        catalog.load_catalog()  # the command, its rows kept as this process's copy
        empty_the_catalog()
        call_command("load_catalog", verbosity=0)
        by_command = contents()
        assert by_command["vendors_accelerator"] and by_command["vendors_datacenter"]
        empty_the_catalog()
        catalog.load_catalog()  # restored from the copy
        assert contents() == by_command
    finally:
        if kept is not None:
            catalog._SNAPSHOTS[connection.vendor] = kept


def test_rows_added_after_a_restore_take_new_keys():
    catalog.load_catalog()
    from vendors.models import Accelerator

    first = Accelerator.objects.order_by("pk").first()
    added = Accelerator.objects.get(pk=first.pk)
    added.pk = None
    added.key = "added-" + first.key
    added.save()
    assert added.pk > max(Accelerator.objects.exclude(pk=added.pk).values_list("pk", flat=True))
    catalog.load_catalog()  # not empty: the real command, which updates in place
    assert Accelerator.objects.filter(key=first.key).count() == 1
