"""The one settings module. Configuration comes from the environment.

DATABASE_URL          database (default: SQLite file var/db.sqlite3; postgres:// supported)
DJANGO_SECRET_KEY     secret key (default: a development key generated once into var/secret_key)
DJANGO_DEBUG          "1" turns debug on; anything else (or unset) is production mode
DJANGO_ALLOWED_HOSTS  comma-separated host names (default with debug: localhost, 127.0.0.1)
DEMO_PASSWORD         password of the demo users created by `manage.py setup_demo`
"""

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
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
    "advisor.admin_config.AdminConfig",  # django.contrib.admin; admin modules load with the URLs
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
    "axes",  # before "advisor": its failed-sign-in handler runs before the audit's (advisor.signals)
    "advisor",
    "advisor.assessments",
    "advisor.recommendation",
    "advisor.wizard",
    "advisor.brief",
    "advisor.questionnaire",
    "vendors",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
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
                "django.template.context_processors.csp",
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
# The organisation's PKCS#12, its passphrase (from the environment, or from a secret file the
# deployment names) and the CA certificates come from the environment. Only with debug on do
# they default to the development signer that `manage.py make_dev_signing_cert` makes under
# var/signing/; production never does, refuses a signer issued by a development CA, and
# `check --deploy` and scripts/serve-production stop on one (advisor.security).
SIGNING_DIR = VAR_DIR / "signing"


def _signing_path(variable: str, development_default: Path) -> Path | None:
    value = os.environ.get(variable, "").strip()
    if value:
        return Path(value)
    return development_default if DEBUG else None


BRIEF_SIGNING = {
    "PKCS12_PATH": _signing_path("BRIEF_SIGNING_PKCS12", SIGNING_DIR / "dev-signer.p12"),
    "PASSPHRASE": os.environ.get("BRIEF_SIGNING_PASSPHRASE") or None,
    "PASSPHRASE_FILE": _signing_path(
        "BRIEF_SIGNING_PASSPHRASE_FILE", SIGNING_DIR / "dev-signer.passphrase"
    ),
    "TRUST_ROOTS": [
        Path(p.strip())
        for p in os.environ.get(
            "BRIEF_SIGNING_TRUST_ROOTS", str(SIGNING_DIR / "dev-ca.pem") if DEBUG else ""
        ).split(",")
        if p.strip()
    ],
    # Shown in the signature; production's default is the certificate's own name.
    "SIGNER_NAME": os.environ.get(
        "BRIEF_SIGNER_NAME", "Procurement Advisor (development)" if DEBUG else ""
    ),
    "ORGANISATION": os.environ.get("BRIEF_SIGNING_ORGANISATION", "Procurement Advisor Dev"),
    # The organisation as a Chinese brief names it (the certificate keeps the name above).
    "ORGANISATION_ZH": os.environ.get("BRIEF_SIGNING_ORGANISATION_ZH", "采购顾问（开发环境）"),
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
# the storage API: MEDIA_ROOT on a shared disk by default, or an S3-compatible object store
# (docs/decisions/0014-object-storage.md).
#
# ADVISOR_STORAGE         "filesystem" (default: MEDIA_ROOT) or "s3" (django-storages' S3Storage);
#                         setting ADVISOR_S3_BUCKET alone selects "s3" too
# ADVISOR_S3_BUCKET       bucket name (required with "s3")
# ADVISOR_S3_ENDPOINT_URL the store's endpoint for anything but AWS: MinIO, Ceph, Aliyun OSS,
#                         Tencent COS, ... (e.g. "https://oss-cn-hangzhou.aliyuncs.com")
# ADVISOR_S3_REGION       region name (e.g. "cn-north-1"; MinIO accepts "us-east-1")
# ADVISOR_S3_ACCESS_KEY_ID, ADVISOR_S3_SECRET_ACCESS_KEY  both or neither; without them boto3's
#                         usual chain applies (AWS_ACCESS_KEY_ID..., ~/.aws, instance role)
# ADVISOR_S3_ADDRESSING_STYLE  "path" (MinIO, most self-hosted stores), "virtual" (Aliyun OSS,
#                         Tencent COS) or "auto" (default: boto3 decides)
# ADVISOR_S3_PREFIX       key prefix inside the bucket (default none), e.g. "advisor/prod"
# ADVISOR_S3_DEFAULT_ACL  canned ACL sent with each object, e.g. "private" (default: none sent,
#                         the bucket's own policy applies; AWS buckets with ACLs disabled refuse one)
# ADVISOR_S3_CA_BUNDLE    PEM file of the CA that signed a self-hosted store's TLS certificate
# Briefs are never public: links are signed (querystring auth) and an existing key is never
# overwritten (a second file gets a new name), whatever the bucket holds.
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
FILESYSTEM_STORAGE = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
S3_ADDRESSING_STYLES = ("auto", "path", "virtual")


def default_file_storage(environ) -> dict:
    """``STORAGES["default"]`` from the environment (a mapping, e.g. ``os.environ``)."""

    def value(name: str) -> str:
        return environ.get(name, "").strip()

    kind = value("ADVISOR_STORAGE").lower() or (
        "s3" if value("ADVISOR_S3_BUCKET") else "filesystem"
    )
    if kind == "filesystem":
        return dict(FILESYSTEM_STORAGE)
    if kind != "s3":
        raise ImproperlyConfigured(
            f"ADVISOR_STORAGE={value('ADVISOR_STORAGE')!r}: use 'filesystem' or 's3'."
        )
    bucket = value("ADVISOR_S3_BUCKET")
    if not bucket:
        raise ImproperlyConfigured(
            "ADVISOR_STORAGE=s3 needs ADVISOR_S3_BUCKET, the bucket that holds the stored briefs."
        )
    access_key, secret_key = (
        value("ADVISOR_S3_ACCESS_KEY_ID"),
        value("ADVISOR_S3_SECRET_ACCESS_KEY"),
    )
    if bool(access_key) != bool(secret_key):
        raise ImproperlyConfigured(
            "Set both ADVISOR_S3_ACCESS_KEY_ID and ADVISOR_S3_SECRET_ACCESS_KEY, or neither "
            "(then boto3 finds the credentials: AWS_* variables, ~/.aws, instance role)."
        )
    style = value("ADVISOR_S3_ADDRESSING_STYLE").lower() or None
    if style is not None and style not in S3_ADDRESSING_STYLES:
        raise ImproperlyConfigured(
            f"ADVISOR_S3_ADDRESSING_STYLE={style!r}: use one of {', '.join(S3_ADDRESSING_STYLES)}."
        )
    options = {
        "bucket_name": bucket,
        "endpoint_url": value("ADVISOR_S3_ENDPOINT_URL") or None,
        "region_name": value("ADVISOR_S3_REGION") or None,
        "access_key": access_key or None,
        "secret_key": secret_key or None,
        "addressing_style": style,
        "location": value("ADVISOR_S3_PREFIX").strip("/"),
        "default_acl": value("ADVISOR_S3_DEFAULT_ACL") or None,
        "querystring_auth": True,
        "file_overwrite": False,
    }
    if value("ADVISOR_S3_CA_BUNDLE"):
        options["verify"] = value("ADVISOR_S3_CA_BUNDLE")
    return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}


STORAGES = {
    "default": default_file_storage(os.environ),
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

# --- Security (docs/decisions/0011) ---------------------------------------------------------
# Production mode (DJANGO_DEBUG unset or 0) passes `manage.py check --deploy --fail-level
# WARNING`: HTTPS only (redirect, HSTS, Secure cookies), a nonce-based Content Security Policy,
# no framing, a same-origin referrer. Development (DJANGO_DEBUG=1) keeps plain HTTP.
#
# DJANGO_SECURE_SSL_REDIRECT      "0" when the proxy in front already redirects HTTP to HTTPS
#                                 (default on in production)
# DJANGO_SECURE_PROXY_SSL_HEADER  "X-Forwarded-Proto: https" behind a TLS-terminating proxy that
#                                 sets that header (and strips it from clients' requests)
# DJANGO_CSRF_TRUSTED_ORIGINS     comma-separated origins, e.g. "https://advisor.example.cn"
# DJANGO_HSTS_SECONDS             HSTS max-age (default one year in production, 0 = no HSTS)
# DJANGO_HSTS_PRELOAD             "0" leaves out the preload directive (then silence security.W021)
# DJANGO_PROXY_COUNT              proxies in front: the sign-in lockout then reads the client's
#                                 address from X-Forwarded-For (default 0: REMOTE_ADDR)
# DJANGO_SESSION_HOURS            how long a sign-in lasts (default 8)
# DJANGO_SESSION_EXPIRE_AT_BROWSER_CLOSE  "0" keeps the sign-in across browser restarts
# AXES_FAILURE_LIMIT, AXES_COOLOFF_MINUTES  failed sign-ins (per user name and address) before a
#                                 lockout, and its length (default 5 and 30)


def proxy_ssl_header(value: str) -> tuple[str, str] | None:
    """``"X-Forwarded-Proto: https"`` -> ``("HTTP_X_FORWARDED_PROTO", "https")``."""
    name, _sep, expected = value.partition(":")
    if not name.strip() or not expected.strip():
        return None
    return "HTTP_" + name.strip().upper().replace("-", "_"), expected.strip()


SECURE_SSL_REDIRECT = env_flag("DJANGO_SECURE_SSL_REDIRECT", default=PRODUCTION)
# Load balancers probe /health/ over plain HTTP: it answers there instead of redirecting.
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
SECURE_PROXY_SSL_HEADER = proxy_ssl_header(os.environ.get("DJANGO_SECURE_PROXY_SSL_HEADER", ""))
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]
SECURE_HSTS_SECONDS = int(
    os.environ.get("DJANGO_HSTS_SECONDS", str(365 * 24 * 3600) if PRODUCTION else "0")
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env_flag("DJANGO_HSTS_PRELOAD", default=True)
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_HTTPONLY = True  # htmx sends the token from the page (hx-headers), not the cookie
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No page uses a device or browser feature: every response says so (advisor.security).
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "encrypted-media",
        "fullscreen",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "picture-in-picture",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )  # fmt: skip
)

# Content Security Policy: scripts and styles only from this origin or carrying the response's
# nonce ({{ csp_nonce }}); no inline handlers, style attributes or eval. Charts are inline SVG
# drawn with attributes, not styles. Enforced in production (and so in the tests); report-only
# in development, where violations still show in the browser console but Django's debug pages
# (inline styles and scripts) keep working.
CONTENT_SECURITY_POLICY = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CSP = CONTENT_SECURITY_POLICY if PRODUCTION else {}
SECURE_CSP_REPORT_ONLY = {} if PRODUCTION else CONTENT_SECURITY_POLICY

# Sign-in: sessions end after DJANGO_SESSION_HOURS and, by default, when the browser closes.
SESSION_COOKIE_AGE = int(float(os.environ.get("DJANGO_SESSION_HOURS", "8")) * 3600)
SESSION_EXPIRE_AT_BROWSER_CLOSE = env_flag("DJANGO_SESSION_EXPIRE_AT_BROWSER_CLOSE", default=True)

# Lockout after repeated failed sign-ins (django-axes), on the sign-in page and Django admin
# alike (both go through authenticate()). Attempts live in the database, shared by every app
# server; an admin unlocks by deleting the attempt in admin ("Access attempts") or with
# `manage.py axes_reset_username NAME`. Sign-ins themselves are in the audit log.
#
# Password spraying (many names, one guess each, from one address) never reaches the per-name
# limit: an address with ADVISOR_SIGN_IN_ADDRESS_LIMIT failed sign-ins (any names) within
# ADVISOR_SIGN_IN_ADDRESS_MINUTES gets the 429 page for every sign-in until the window has
# passed (advisor.security.SignInAddressBackend; 0 turns it off). Far above what one office
# behind one address mistypes; a colleague's success resets only their own name's count.
AUTHENTICATION_BACKENDS = [
    "advisor.security.SignInAddressBackend",
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
SIGN_IN_ADDRESS_LIMIT = int(os.environ.get("ADVISOR_SIGN_IN_ADDRESS_LIMIT", "10"))
SIGN_IN_ADDRESS_MINUTES = int(os.environ.get("ADVISOR_SIGN_IN_ADDRESS_MINUTES", "15"))
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES", "30")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True  # successful sign-ins go to the audit log (advisor.signals)
AXES_LOCKOUT_CALLABLE = "advisor.security.lockout_response"  # translated page, 429
AXES_USERNAME_CALLABLE = "advisor.security.attempt_username"  # at most the column's 255
PROXY_COUNT = int(os.environ.get("DJANGO_PROXY_COUNT", "0"))
# Uploads to the public verify page per client address (django-ratelimit's "N/period" form:
# s, m, h or d); empty turns the limit off. Counted in the default cache (docs/decisions/0019).
VERIFY_RATE_LIMIT = os.environ.get("ADVISOR_VERIFY_RATE_LIMIT", "10/m")
RATELIMIT_USE_CACHE = "default"
# Brief workers `scripts/serve-production` starts (its default mode): ADVISOR_TASK_WORKERS, by
# default one per CPU this process may use (they run niced, so page views come first; each
# renders one brief at a time, ~2.5 s of CPU). The script reads the same variable, same default.
BRIEF_WORKERS = max(
    1, int(os.environ.get("ADVISOR_TASK_WORKERS") or len(os.sched_getaffinity(0)) or 1)
)
# Seconds a brief worker's lease on a brief lasts while it renders (renewed every third of
# it); a worker dead longer than this has its brief queued again by another (docs/decisions/0021).
BRIEF_GENERATION_LEASE_S = float(os.environ.get("BRIEF_GENERATION_LEASE_S", "60"))
# Checking an uploaded PDF runs in a child process with hard limits (docs/decisions/0019):
# ADVISOR_VERIFY_BUDGET_S wall-clock seconds before the child is killed (the page waits no
# longer), ADVISOR_VERIFY_CPU_S CPU seconds, ADVISOR_VERIFY_MEMORY_MB memory it may add, and at
# most ADVISOR_VERIFY_SLOTS checks at once on a host (file locks in ADVISOR_VERIFY_SLOT_DIR,
# shared by every web worker; the excess gets 503 with Retry-After). A brief takes ~0.1 s.
VERIFY_BUDGET_S = float(os.environ.get("ADVISOR_VERIFY_BUDGET_S", "4"))
VERIFY_CPU_S = float(os.environ.get("ADVISOR_VERIFY_CPU_S", "3"))
VERIFY_MEMORY_MB = int(os.environ.get("ADVISOR_VERIFY_MEMORY_MB", "512"))
VERIFY_SLOTS = max(1, int(os.environ.get("ADVISOR_VERIFY_SLOTS", "2")))
VERIFY_SLOT_DIR = Path(os.environ.get("ADVISOR_VERIFY_SLOT_DIR", VAR_DIR / "verify-slots"))
if PROXY_COUNT:
    AXES_IPWARE_PROXY_COUNT = PROXY_COUNT
    AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")

# Uploads: a config.json is at most 256 KiB and a brief PDF 20 MB (the forms say so in words);
# a request body over ADVISOR_MAX_REQUEST_BYTES is refused with 413 before anything parses it.
ADVISOR_MAX_REQUEST_BYTES = 25 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024  # form fields other than files
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # larger files go to a temporary file, not memory
DATA_UPLOAD_MAX_NUMBER_FILES = 5
