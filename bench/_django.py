"""Boot Django for a bench script on a throw-away SQLite database with the catalog loaded."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup(*, signing: bool = False):
    """Migrate a temporary database, load the catalog; with ``signing``, a development PKI."""
    sys.path.insert(0, str(ROOT))
    workdir = Path(tempfile.mkdtemp(prefix="advisor-bench-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "advisor.settings")
    os.environ["ADVISOR_TASKS_BACKEND"] = "immediate"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    settings.MEDIA_ROOT = workdir / "media"
    settings.ALLOWED_HOSTS = ["testserver", "localhost"]
    if signing:
        from tests.support.briefs import make_pki, signing_settings

        make_pki(workdir)
        settings.BRIEF_SIGNING = signing_settings(workdir)
    return workdir
