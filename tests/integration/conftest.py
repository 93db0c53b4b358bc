"""Fixtures shared by the integration tests: a brief-ready environment, the standard brief
generated once for the tests that only read it, and the production data the backup and
object-store tests share (tests/support/production_data.py).
"""

from pathlib import Path

import pytest

from tests.support.briefs import signer_env, signing_settings
from tests.support.catalog import load_catalog
from tests.support.production_data import (
    Backup,
    environment,
    issue,
    seed,
    sqlite_source,
    take_backup,
)
from tests.support.servers import Server, production_env
from tests.support.shared_briefs import SharedBriefs


@pytest.fixture
def brief_ready(pki_dir, tmp_path, settings):
    """The seeded catalog, signing with the test PKI, and stored PDFs under tmp_path."""
    load_catalog()
    settings.BRIEF_SIGNING = signing_settings(pki_dir)
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(scope="session")
def seeded_sqlite(tmp_path_factory, pki_dir) -> Path:
    """A migrated SQLite database with the catalog and a buyer, made once; sources copy it."""
    directory = tmp_path_factory.mktemp("seeded")
    database = directory / "seeded.sqlite3"
    seed(environment(directory / "var", f"sqlite:///{database}", pki_dir))
    return database


@pytest.fixture(scope="session")
def file_system_backup(tmp_path_factory, pki_dir, seeded_sqlite) -> Backup:
    """One brief issued on a file-system source and backed up (scripts/backup), made once.

    Tests only read it: each restores it into a target of its own."""
    directory = tmp_path_factory.mktemp("file-system-backup")
    source = sqlite_source(directory, pki_dir, seeded_sqlite)
    issued = issue(source, directory)
    return take_backup(source, issued, directory / "issued.pdf", directory / "backups")


@pytest.fixture(scope="session")
def production_stack(tmp_path_factory, pki_dir):
    """The production start (scripts/serve-production: prepare, gunicorn and the task worker) on
    its own SQLite file, signing with the test PKI, started once per session and stopped at its
    end; up and working when a test gets it. Tests using it carry ``xdist_group(STACK)`` (one
    stack, in one worker)."""
    var_dir = tmp_path_factory.mktemp("production")
    env = production_env(
        var_dir, f"sqlite:///{var_dir / 'db.sqlite3'}", WEB_CONCURRENCY="2", **signer_env(pki_dir)
    )
    server = Server(env)
    try:
        # Upper bounds for a busy machine (about a minute on a quiet 2-core one), not waits.
        server.wait_until_up(timeout=300)
        server.wait_for_output(
            "Starting worker", timeout=120
        )  # db_worker, after requeueing stuck briefs
        yield server
    finally:
        assert server.stop() in (0, 143, -15), server.output()


@pytest.fixture
def computed(monkeypatch):
    """Every document the recommendation is computed for, while the test runs (the stored
    recommendation's tests count them: a page view must compute nothing)."""
    from advisor.recommendation import services

    calls = []
    original = services.run_recommendation

    def counting(document, **kwargs):
        calls.append(document)
        return original(document, **kwargs)

    monkeypatch.setattr(services, "run_recommendation", counting)
    return calls


@pytest.fixture(scope="session")
def shared_briefs(django_db_setup, django_db_blocker, pki_dir, tmp_path_factory):
    """The standard job's brief per language, generated once per test process, for tests that
    only read it (tests/support/shared_briefs.py)."""
    return SharedBriefs(django_db_blocker, pki_dir, tmp_path_factory.mktemp("shared-briefs"))
