"""Two processes writing one SQLite file: the second waits for the first instead of failing.

Django's database cache (where django-ratelimit counts requests on a SQLite deployment) reads,
then writes, inside one transaction, and swallows a database error. With SQLite's default
deferred transactions, that write failed at once whenever another connection was committing,
and the rate limit then refused the request (decision 0075). The product's SQLite settings
begin every transaction with the write lock (``transaction_mode: IMMEDIATE``), waiting for it.

The test runs the cache's pattern on a second connection while a first one holds an open write
transaction on the same file, and commits the first only once the second has started to need
the write lock (seen through SQLite's statement trace, not a timer).
"""

from __future__ import annotations

import copy
import threading

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.backends.sqlite3.base import DatabaseWrapper

# Runs in the suite's SQLite stage only: it is not marked ``database`` or ``postgres``, the
# markers of what runs again on PostgreSQL (docs/decisions/0027-test-stages.md).
WAIT_S = 60  # a bound on a hang, never reached when the code is right


def _connection(path, alias: str) -> DatabaseWrapper:
    """A connection to ``path`` with the product's own SQLite options."""
    options = copy.deepcopy(settings.DATABASES["default"])
    options.update(NAME=str(path), TEST={})
    wrapper = DatabaseWrapper(options, alias=alias)
    connections[alias] = wrapper  # per thread: atomic(using=alias) finds it
    return wrapper


def _counted_write(path, needs_lock: threading.Event, outcome: dict) -> None:
    """The database cache's pattern: read the row, then write it, in one transaction."""
    second = _connection(path, "contention_second")
    try:
        second.ensure_connection()
        second.connection.set_trace_callback(
            lambda sql: needs_lock.set() if sql.startswith(("BEGIN IMMEDIATE", "INSERT")) else None
        )
        with transaction.atomic(using="contention_second"), second.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM counts WHERE key = 'verify'")
            cursor.fetchone()
            cursor.execute("INSERT INTO counts (key, hits) VALUES ('verify', 1)")
        outcome["written"] = True
    except DatabaseError as error:
        outcome["error"] = error
    finally:
        needs_lock.set()
        second.close()


def test_a_write_waits_for_another_connections_commit(tmp_path, django_db_blocker):
    path = tmp_path / "contention.sqlite3"
    with django_db_blocker.unblock():
        first = _connection(path, "contention_first")
        with first.cursor() as cursor:
            cursor.execute("CREATE TABLE counts (key TEXT, hits INTEGER)")
        needs_lock, outcome = threading.Event(), {}
        writer = threading.Thread(target=_counted_write, args=(path, needs_lock, outcome))
        with transaction.atomic(using="contention_first"), first.cursor() as cursor:
            cursor.execute("INSERT INTO counts (key, hits) VALUES ('other', 1)")
            writer.start()
            assert needs_lock.wait(WAIT_S)
        writer.join(WAIT_S)
        with first.cursor() as cursor:
            cursor.execute("SELECT key FROM counts ORDER BY key")
            rows = [key for (key,) in cursor.fetchall()]
        first.close()
    assert not writer.is_alive()
    assert outcome == {"written": True}
    assert rows == ["other", "verify"]


def test_the_product_begins_sqlite_transactions_with_the_write_lock():
    options = settings.DATABASES["default"]["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] >= 10


def test_the_product_s_sqlite_file_keeps_a_write_ahead_log_synced_at_every_commit(
    tmp_path, django_db_blocker
):
    """Decision 0082: WAL (a commit appends to the log and syncs it once; readers do not wait
    for a writer) with synchronous=FULL (a committed transaction survives a power cut)."""
    path = tmp_path / "wal.sqlite3"
    with django_db_blocker.unblock():
        connection = _connection(path, "wal_check")
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
            cursor.execute("PRAGMA synchronous")
            assert cursor.fetchone()[0] == 2  # FULL
            with transaction.atomic(using="wal_check"):
                cursor.execute("CREATE TABLE counts (key TEXT)")
                cursor.execute("INSERT INTO counts VALUES ('one')")
        assert (tmp_path / "wal.sqlite3-wal").exists()
        connection.close()
