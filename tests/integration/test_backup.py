"""Backup and restore (scripts/backup, scripts/restore): a restored brief still verifies."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.integration.test_recommend_catalog import SCENARIO
from tests.support.briefs import PASSPHRASE
from tests.support.servers import (
    ROOT,
    fresh_postgres_databases,
    manage,
    on_postgres_stage,
    production_env,
)

COUNT_RECORDS = (
    "from advisor.brief.models import AuditEvent, Brief; from django.contrib.auth.models import "
    "User; print(Brief.objects.count(), AuditEvent.objects.count(), User.objects.count())"
)
BRIEF_FILE = "from advisor.brief.models import Brief; b = Brief.objects.get(); print(b.pdf.path)"


def environment(var_dir, database_url, pki_dir):
    return production_env(
        var_dir,
        database_url,
        ADVISOR_TASKS_BACKEND="immediate",
        BRIEF_SIGNING_PKCS12=str(pki_dir / "dev-signer.p12"),
        BRIEF_SIGNING_PASSPHRASE=PASSPHRASE,
        BRIEF_SIGNING_TRUST_ROOTS=str(pki_dir / "dev-ca.pem"),
    )


def script(name, env, *args, check=True):
    return subprocess.run(
        [str(ROOT / "scripts" / name), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=check,
    )


def shell(env, code: str) -> str:
    return manage(env, "shell", "-v", "0", "-c", code).stdout.strip()


def issue_in(env: dict, tmp_path: Path) -> bytes:
    """Migrate and seed the environment's database, issue one brief there; its PDF."""
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "load_catalog")
    shell(
        env,
        "from django.contrib.auth.models import User; from advisor import roles; "
        "User.objects.create_user('buyer').groups.add(roles.ensure_roles()[roles.PROCUREMENT_STAFF])",
    )
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(SCENARIO))
    issued = tmp_path / "issued.pdf"
    manage(env, "issue_brief", "--input", str(scenario), "--user", "buyer", "--output", str(issued))
    return issued.read_bytes()


def round_trip(tmp_path, pki_dir, source_url, target_url, expected_file):
    source = environment(tmp_path / "source", source_url, pki_dir)
    issued = issue_in(source, tmp_path)
    records = shell(source, COUNT_RECORDS)

    backup_dir = tmp_path / "backups"
    made = script("backup", source, str(backup_dir)).stdout.strip().splitlines()[-1]
    assert Path(made).is_dir()
    files = sorted(p.name for p in (backup_dir.glob("advisor-*/*")))
    assert files == sorted([expected_file, "media.tar.gz", "SHA256SUMS"])

    target = environment(tmp_path / "target", target_url, pki_dir)
    script("restore", target, made)
    assert shell(target, COUNT_RECORDS) == records

    restored_pdf = shell(target, BRIEF_FILE)
    assert Path(restored_pdf).read_bytes() == issued
    verified = manage(target, "verify_brief", restored_pdf).stdout  # verify_upload(...).ok
    assert "on record: FT-" in verified and "tampering: none" in verified

    again = script("restore", target, made, check=False)
    assert again.returncode == 3, "a restore never mixes into a database that has records"
    assert "empty" in again.stderr


@pytest.mark.skipif(on_postgres_stage(), reason="runs once, in the SQLite stage")
def test_dumpdata_backup_restores_into_a_fresh_sqlite_database(tmp_path, pki_dir):
    round_trip(
        tmp_path,
        pki_dir,
        f"sqlite:///{tmp_path / 'source.sqlite3'}",
        f"sqlite:///{tmp_path / 'target.sqlite3'}",
        "database.json",
    )


@pytest.mark.postgres
@pytest.mark.skipif(
    not on_postgres_stage(), reason="needs PostgreSQL (scripts/test's second stage)"
)
def test_pg_dump_backup_restores_into_a_fresh_postgresql_database(tmp_path, pki_dir):
    with fresh_postgres_databases(2) as (source_url, target_url):
        round_trip(tmp_path, pki_dir, source_url, target_url, "database.pgdump")
