"""Backup and restore (scripts/backup, scripts/restore): a restored brief still verifies.

SQLite: the session's file-system backup (one brief issued on a copy of the seeded database,
tests/integration/conftest.py) restores into a fresh database. PostgreSQL: the whole path,
seeding included, on two fresh databases (pg_dump format).
"""

from pathlib import Path

import pytest

from tests.support.production_data import (
    BRIEF_FILE,
    COUNT_RECORDS,
    SHARED,
    Backup,
    backup_files,
    environment,
    issue_in,
    script,
    shell,
    take_backup,
)
from tests.support.servers import fresh_postgres_databases, manage


def restores_and_verifies(backup: Backup, target: dict) -> None:
    script("restore", target, str(backup.path))
    assert shell(target, COUNT_RECORDS) == backup.records

    restored_pdf = shell(target, BRIEF_FILE)
    assert Path(restored_pdf).read_bytes() == backup.issued
    verified = manage(target, "verify_brief", restored_pdf).stdout  # verify_upload(...).ok
    assert "on record: FT-" in verified and "tampering: none" in verified

    again = script("restore", target, str(backup.path), check=False)
    assert again.returncode == 3, "a restore never mixes into a database that has records"
    assert "empty" in again.stderr


@pytest.mark.xdist_group(SHARED)
def test_dumpdata_backup_restores_into_a_fresh_sqlite_database(
    tmp_path, pki_dir, file_system_backup
):
    backup = file_system_backup
    assert backup_files(backup.path) == ["SHA256SUMS", "database.json", "media.tar.gz"]
    target = environment(tmp_path / "target", f"sqlite:///{tmp_path / 'target.sqlite3'}", pki_dir)
    restores_and_verifies(backup, target)


@pytest.mark.postgres
def test_pg_dump_backup_restores_into_a_fresh_postgresql_database(tmp_path, pki_dir):
    with fresh_postgres_databases(2) as (source_url, target_url):
        source = environment(tmp_path / "source", source_url, pki_dir)
        issued = issue_in(source, tmp_path)
        backup = take_backup(source, issued, tmp_path / "issued.pdf", tmp_path / "backups")
        assert backup_files(backup.path) == ["SHA256SUMS", "database.pgdump", "media.tar.gz"]
        restores_and_verifies(backup, environment(tmp_path / "target", target_url, pki_dir))
