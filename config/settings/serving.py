"""Serving: static files, stored files, cache, database connections, upload sizes."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.application import DATABASES
from config.settings.environment import PRODUCTION

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
# DATABASE_CONN_MAX_AGE   seconds a database connection is kept between requests (default 0;
#                         scripts/serve-production sets 60: docs/decisions/0069)
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


# Uploads: a config.json is at most 256 KiB and a brief PDF 20 MB (the forms say so in words);
# a request body over ADVISOR_MAX_REQUEST_BYTES is refused with 413 before anything parses it.
ADVISOR_MAX_REQUEST_BYTES = 25 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024  # form fields other than files
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # larger files go to a temporary file, not memory
DATA_UPLOAD_MAX_NUMBER_FILES = 5
