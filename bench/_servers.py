"""A loopback port and the environment of a production start, for the benches and the tests.

The benches' own module (a bench never imports from ``tests/``); ``tests/support/servers.py``
takes these from here.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def production_env(var_dir: Path, database_url: str, **extra: str) -> dict:
    """This process's environment without the app's settings, then a production configuration."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "ADVISOR_", "BRIEF_", "DATABASE_"))
    }
    env.update(
        DJANGO_SECRET_KEY="tests-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        # Plain HTTP on loopback, as behind a TLS proxy that already redirects to HTTPS.
        DJANGO_SECURE_SSL_REDIRECT="0",
        ADVISOR_VAR_DIR=str(var_dir),
        DATABASE_URL=database_url,
    )
    env["ADVISOR_TASK_WORKERS"] = "1"  # one brief worker unless `extra` asks for more
    env.update(extra)
    return env


def production_signer(directory: Path) -> dict:
    """A stand-in for the organisation's own signer (a CA and signer that are not the
    development ones: production refuses those), made in ``directory`` unless it is there, and
    the production start's variables naming it (the passphrase from a secret file)."""
    from advisor.brief.pki import create_pki

    key = directory / "signer.p12"
    if not key.exists():
        create_pki(
            directory, "bench-only-passphrase", "Bench Org", "Bench Signer", development=False
        )
    return {
        "BRIEF_SIGNING_PKCS12": str(key),
        "BRIEF_SIGNING_PASSPHRASE_FILE": str(directory / "signer.passphrase"),
        "BRIEF_SIGNING_TRUST_ROOTS": str(directory / "ca.pem"),
        "BRIEF_SIGNING_ORGANISATION": "Bench Org",
    }
