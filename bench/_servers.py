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
        **extra,
    )
    return env
