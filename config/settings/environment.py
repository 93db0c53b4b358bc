"""Where the advisor runs: its folders, debug or production, the secret key and host names.

DJANGO_SECRET_KEY     secret key (default: a development key generated once into var/secret_key)
DJANGO_DEBUG          "1" turns debug on; anything else (or unset) is production mode
DJANGO_ALLOWED_HOSTS  comma-separated host names (default with debug: localhost, 127.0.0.1)
ADVISOR_VAR_DIR       the data folder (default var/ in the checkout)
"""

import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(os.environ.get("ADVISOR_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def development_secret_key() -> str:
    """A random key kept in var/ (outside git), created on first use."""
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


DEBUG = env_flag("DJANGO_DEBUG")
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or development_secret_key()
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get(
        "DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else ""
    ).split(",")
    if h.strip()
]
PRODUCTION = not DEBUG
