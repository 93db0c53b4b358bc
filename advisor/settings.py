"""The one settings module. Configuration comes from the environment.

DATABASE_URL          database (default: SQLite file var/db.sqlite3; postgres:// supported)
DJANGO_SECRET_KEY     secret key (default: a development key generated once into var/secret_key)
DJANGO_DEBUG          "1" turns debug on; anything else (or unset) is production mode
DJANGO_ALLOWED_HOSTS  comma-separated host names (default with debug: localhost, 127.0.0.1)
DEMO_PASSWORD         password of the demo users created by `manage.py setup_demo`
"""

import os
import secrets
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
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

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "django_tasks_db",
    "simple_history",
    "import_export",
    "advisor",
    "advisor.wizard",
    "advisor.brief",
    "vendors",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
]

ROOT_URLCONF = "advisor.urls"
WSGI_APPLICATION = "advisor.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "advisor.context_processors.roles",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=0,
    )
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
# Each domain area keeps its own catalogue so areas can be translated independently.
LOCALE_PATHS = [BASE_DIR / "locale", *sorted((BASE_DIR / "advisor" / "domain").glob("*/locale"))]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns when it is missing
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "media/"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Brief generation runs as a task: immediately in development and tests; in production
# through the database-backed queue (`manage.py db_worker` as its own process). Override with
# ADVISOR_TASKS_BACKEND=immediate|database.
TASKS_BACKENDS = {
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
    "database": "django_tasks_db.DatabaseBackend",
}
TASKS = {
    "default": {
        "BACKEND": TASKS_BACKENDS[
            os.environ.get("ADVISOR_TASKS_BACKEND", "database" if PRODUCTION else "immediate")
        ],
        "QUEUES": ["default"],
    }
}

DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD", "advisor-demo")

# The hosting-vendor claims, prices and policy figures shipped in fixtures carry their own
# source and date; see fixtures/ and shared research notes.

# --- Brief signing (docs/decisions/0008) -------------------------------------------------------
# The organisation's PKCS#12 and passphrase come from the environment in production;
# `manage.py make_dev_signing_cert` creates a development CA and signer under var/signing/.
SIGNING_DIR = VAR_DIR / "signing"
BRIEF_SIGNING = {
    "PKCS12_PATH": Path(os.environ.get("BRIEF_SIGNING_PKCS12", SIGNING_DIR / "dev-signer.p12")),
    # The passphrase comes from the environment; without it, from the development file.
    "PASSPHRASE": os.environ.get("BRIEF_SIGNING_PASSPHRASE") or None,
    "PASSPHRASE_FILE": SIGNING_DIR / "dev-signer.passphrase",
    "TRUST_ROOTS": [
        Path(p)
        for p in os.environ.get("BRIEF_SIGNING_TRUST_ROOTS", str(SIGNING_DIR / "dev-ca.pem")).split(
            ","
        )
        if p
    ],
    "SIGNER_NAME": os.environ.get("BRIEF_SIGNER_NAME", "Procurement Advisor (development)"),
    "ORGANISATION": os.environ.get("BRIEF_SIGNING_ORGANISATION", "Procurement Advisor Dev"),
    "LOCATION": os.environ.get("BRIEF_SIGNING_LOCATION", "Guiyang, Guizhou, CN"),
    "TIMESTAMP_URL": os.environ.get("BRIEF_TIMESTAMP_URL") or None,
}

# Public address of this deployment: printed in briefs (verification link and QR code).
SITE_URL = os.environ.get("ADVISOR_SITE_URL", "http://127.0.0.1:8000")
# An approver must approve a brief before it loses its "Draft — not approved" mark.
BRIEF_APPROVAL_REQUIRED = env_flag("BRIEF_APPROVAL_REQUIRED", default=True)

# --- Serving: static files, stored files, cache, database connections (docs/decisions/0012) ---
# Several app servers may run side by side: nothing lives in one process's memory. Sessions
# are database-backed (Django's default engine); the cache is a database table in production
# (`manage.py createcachetable`, run by scripts/serve-production); stored briefs go through
# the storage API (MEDIA_ROOT on a shared disk by default).
#
# ADVISOR_STATIC_STORAGE  "manifest" (default in production: hashed, compressed names served by
#                         whitenoise; needs `manage.py collectstatic`) or "plain"
# ADVISOR_CACHE           "database" (default in production: table advisor_cache, shared by all
#                         processes) or "locmem" (default with debug: per process only)
# DATABASE_CONN_MAX_AGE   seconds a database connection is kept between requests (default 0)
STATIC_STORAGE_BACKENDS = {
    "manifest": "whitenoise.storage.CompressedManifestStaticFilesStorage",
    "plain": "django.contrib.staticfiles.storage.StaticFilesStorage",
}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": STATIC_STORAGE_BACKENDS[
            os.environ.get("ADVISOR_STATIC_STORAGE", "manifest" if PRODUCTION else "plain")
        ]
    },
}
CACHE_TABLE = "advisor_cache"
CACHE_BACKENDS = {
    "database": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": CACHE_TABLE},
    "locmem": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}
CACHES = {
    "default": CACHE_BACKENDS[
        os.environ.get("ADVISOR_CACHE", "database" if PRODUCTION else "locmem")
    ]
}
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("DATABASE_CONN_MAX_AGE", "0"))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
