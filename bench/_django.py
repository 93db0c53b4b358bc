"""Boot Django for a bench script on a throw-away SQLite database with the catalog loaded.

The database is prepared as the production start prepares it (migrations and the cache table:
production mode caches pages in the database) and static files are named plainly, so a bench
runs on a fresh clone after ``scripts/setup`` with nothing else made first. Pages are requested
over HTTPS (``secure=True``), as production serves them. The process then starts as a served
worker starts (config/wsgi.py): views imported, templates compiled, catalogs read
(``warm_up``), and what start made moved out of the garbage collector's reach
(``freeze_what_start_made``, decision 0078), so a bench's collections walk what a worker's walk.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASSPHRASE = "bench-only"


def setup(*, signing: bool = False):
    """Migrate a temporary database, load the catalog; with ``signing``, a throw-away PKI."""
    sys.path.insert(0, str(ROOT))
    workdir = Path(tempfile.mkdtemp(prefix="advisor-bench-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["ADVISOR_TASKS_BACKEND"] = "immediate"
    # Pages render without collected static files (no manifest to build for a bench).
    os.environ.setdefault("ADVISOR_STATIC_STORAGE", "plain")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    call_command("load_catalog", verbosity=0)
    from advisor.warmup import freeze_what_start_made, warm_up

    warm_up()
    freeze_what_start_made()
    settings.MEDIA_ROOT = workdir / "media"
    settings.ALLOWED_HOSTS = ["testserver", "localhost"]
    if signing:
        from advisor.brief.pki import create_pki

        # Not a development CA: the bench runs in production mode, which refuses one.
        create_pki(workdir, PASSPHRASE, "Bench Org", "Bench Signer", development=False)
        settings.BRIEF_SIGNING = {
            "PKCS12_PATH": workdir / "signer.p12",
            "PASSPHRASE": PASSPHRASE,
            "PASSPHRASE_FILE": None,
            "TRUST_ROOTS": [workdir / "ca.pem"],
            "SIGNER_NAME": "Bench Signer",
            "ORGANISATION": "Bench Org",
            "LOCATION": "Guiyang",
            "TIMESTAMP_URL": None,
        }
    return workdir
