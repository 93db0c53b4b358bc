"""The Django project itself: apps, middleware, logging, templates, the database, passwords,
languages, static files, the task queue and the demo users.

DATABASE_URL          database (default: SQLite file var/db.sqlite3; postgres:// supported)
DEMO_PASSWORD         password of the demo users created by `manage.py setup_demo`
"""

import os

import dj_database_url
from django.utils.translation import gettext_lazy as _

from config.settings.environment import BASE_DIR, PRODUCTION, VAR_DIR

INSTALLED_APPS = [
    "advisor.admin_config.AdminConfig",  # django.contrib.admin; admin modules load with the URLs
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "django_tasks_db",
    "ninja",  # the API's interactive docs from its own static files, not a CDN
    "simple_history",
    "import_export",
    "axes",  # before "advisor": its failed-sign-in handler runs before the audit's (advisor.signals)
    "advisor",
    "advisor.assessments",
    "advisor.recommendation",
    "advisor.wizard",
    "advisor.brief",
    "advisor.questionnaire",
    "advisor.api",
    "advisor.webhooks",
    # Company sign-in (OpenID Connect, SAML 2.0, DingTalk, Feishu) through django-allauth:
    # docs/company-sign-in.md.
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "allauth.socialaccount.providers.saml",
    "allauth.socialaccount.providers.dingtalk",
    "allauth.socialaccount.providers.feishu",
    "advisor.sso",  # after allauth: its admin module takes allauth's admin pages away
    "vendors",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "advisor.sso.middleware.CompanySignInFormAction",  # form-action for the providers (0128)
    "advisor.security.PermissionsPolicyMiddleware",
    "advisor.security.RequestSizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes requires
]

# Responses to a signed-in user (their assessments, options, briefs and PDFs) are never stored
# by a browser or a proxy cache: Cache-Control: private, no-store (advisor.security).
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.contrib.auth.middleware.AuthenticationMiddleware") + 1,
    "advisor.security.PrivatePagesMiddleware",
)

# Errors with their tracebacks, as JSON lines on stderr (advisor/log.py). ADVISOR_LOG_LEVEL sets
# the level of everything else (default WARNING); the project's own loggers log from INFO.
LOG_LEVEL = os.environ.get("ADVISOR_LOG_LEVEL", "WARNING").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "advisor.log.JsonFormatter"}},
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": "json",
        }
    },
    "root": {"handlers": ["stderr"], "level": LOG_LEVEL},
    "loggers": {
        # Replaces Django's defaults (mail_admins; the console only with DEBUG): a 500 is
        # logged by django.request at ERROR, with its traceback.
        "django": {"handlers": ["stderr"], "level": LOG_LEVEL, "propagate": False},
        "advisor": {"level": "INFO"},
    },
}

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "advisor.context_processors.roles",
            ],
        },
    },
]

# Django's form renderer with the standard widgets (inputs, selects, radios, checkboxes, text
# areas) written in Python, byte for byte what its templates give: a third of the CPU of a wizard
# step and of the own figures page went to the widget templates
# (docs/decisions/0077-widgets-rendered-in-python.md).
FORM_RENDERER = "advisor.presentation.widgets.FormRenderer"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=0,
    )
}
# SQLite: every transaction takes the write lock when it begins, waiting up to 20 s for it.
# SQLite's default (deferred) begins as a reader and fails at once, without waiting, when it
# then writes while another process is writing; Django's database cache swallows that failure,
# so a rate-limited request (django-ratelimit counts in that cache) was refused with a 429
# (docs/decisions/0075-sqlite-immediate-transactions.md). PostgreSQL is not affected.
# Write-ahead logging: a commit appends to the log and syncs it once (a rollback journal is
# created, synced and deleted per transaction), readers do not wait for a writer, and
# synchronous=FULL keeps every committed transaction through a power cut
# (docs/decisions/0082-sqlite-write-ahead-log.md).
SQLITE_INIT_COMMAND = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": SQLITE_INIT_COMMAND}
    )

# Argon2id (Django's and OWASP's first choice: memory-hard, so a stolen hash table is slow to
# attack on GPUs too) for every new or changed password, at OWASP's parameters (19 MiB, t=2,
# p=1: ~27 ms of CPU per check; Django's defaults ~260 ms); a password stored with Django's
# PBKDF2, or with Argon2 at other parameters, still signs in and is re-hashed then
# (docs/decisions/0036-argon2-passwords.md, 0040-argon2-owasp.md).
PASSWORD_HASHERS = [
    "advisor.passwords.OwaspArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

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
# Files whitenoise serves at the site root: /favicon.ico, which browsers and the admin ask for.
WHITENOISE_ROOT = BASE_DIR / "public"
# collectstatic (production): only the hashed names are kept, the names every page asks for
# through {% static %}; source maps (the API reference's 5 MB of them, read by developer tools
# only) are not compressed. Together they take collectstatic from about 19 s to 5 s.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
# whitenoise's own list (whitenoise.compress.Compressor.SKIP_COMPRESS_EXTENSIONS, written out:
# importing it costs every process 20 ms; tests/unit/test_static_files.py compares) plus "map".
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (
    "jpg", "jpeg", "png", "gif", "webp", "zip", "gz", "tgz", "bz2", "tbz", "xz", "br", "swf",
    "flv", "woff", "woff2", "3gp", "3gpp", "asf", "avi", "m4v", "mov", "mp4", "mpeg", "mpg",
    "webm", "wmv",
    "map",
)  # fmt: skip
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
        # "webhooks": webhook deliveries, run by a worker of their own (decision 0123), so a
        # brief never waits behind a receiver.
        "QUEUES": ["default", "webhooks"],
    }
}

DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD", "advisor-demo")
