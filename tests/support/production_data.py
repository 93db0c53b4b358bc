"""Production data directories for the backup and object-store tests (subprocesses).

The scripts under test (scripts/backup, scripts/restore) and ``manage.py`` run as an operator
runs them, in subprocesses with the production environment. Every subprocess starts Django
(seconds on a busy machine), so what several tests need is made once per session by the
fixtures in tests/integration/conftest.py: a seeded SQLite database (migrated, the catalog, a
buyer) that each source copies, and one file-system backup with one issued brief that more than
one test restores. Tests that use them carry ``xdist_group(SHARED)`` so that pytest-xdist
(``--dist loadgroup``) builds them in one worker, once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.briefs import signer_env
from tests.support.scenarios import QWEN_7B_LORA_COMPARED
from tests.support.servers import ROOT, manage, production_env

# The xdist group of the tests that share the session's production data.
SHARED = "production-data"

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
        **signer_env(pki_dir),
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


def seed(env: dict) -> None:
    """Migrate the environment's database, load the catalog, create the buyer (procurement
    staff, as a person who issues briefs is)."""
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "load_catalog")
    shell(
        env,
        "from django.contrib.auth.models import User; from advisor import roles; "
        "User.objects.create_user('buyer').groups.add(roles.ensure_roles()[roles.PROCUREMENT_STAFF])",
    )


def issue(env: dict, directory: Path) -> bytes:
    """Issue one brief of the standard job as the buyer (``manage.py issue_brief``); its PDF,
    also written to ``directory / "issued.pdf"``."""
    scenario = directory / "scenario.json"
    scenario.write_text(json.dumps(QWEN_7B_LORA_COMPARED))
    issued = directory / "issued.pdf"
    manage(env, "issue_brief", "--input", str(scenario), "--user", "buyer", "--output", str(issued))
    return issued.read_bytes()


def issue_in(env: dict, directory: Path) -> bytes:
    """Seed the environment's (empty) database and issue one brief there; its PDF."""
    seed(env)
    return issue(env, directory)


def sqlite_source(directory: Path, pki_dir: Path, seeded: Path) -> dict:
    """A production environment on a copy of the seeded SQLite database, under ``directory``."""
    database = directory / "source.sqlite3"
    shutil.copyfile(seeded, database)
    return environment(directory / "source", f"sqlite:///{database}", pki_dir)


def backup_files(backup: Path) -> list[str]:
    return sorted(p.name for p in backup.iterdir())


@dataclass(frozen=True)
class Backup:
    """A backup taken by scripts/backup of a source with one issued brief."""

    source: dict  # the source's environment
    issued: bytes  # the brief's PDF as issued
    issued_path: Path
    records: str  # briefs, audit events and users in the source (COUNT_RECORDS)
    path: Path  # the backup directory scripts/backup made
    stderr: str  # what scripts/backup said


def take_backup(source: dict, issued: bytes, issued_path: Path, directory: Path) -> Backup:
    records = shell(source, COUNT_RECORDS)
    made = script("backup", source, str(directory))
    path = Path(made.stdout.strip().splitlines()[-1])
    assert path.is_dir() and path.parent == directory
    return Backup(source, issued, issued_path, records, path, made.stderr)
