"""Stored briefs in an S3-compatible object store (docs/decisions/0014-object-storage.md).

moto's S3 server runs in this process on a free loopback port, as MinIO or any other
S3-compatible store would answer; ``STORAGES["default"]`` is built by the settings' own
``default_file_storage`` from the variables an operator sets. A brief is issued through the
page, its signed PDF lands in the bucket, downloads through the app as its owner and verifies.
Backup and restore with the briefs in the store run the real scripts in subprocesses.
"""

import hashlib
import os
import subprocess
import uuid
from pathlib import Path

import boto3
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from moto.server import ThreadedMotoServer
from storages.backends.s3 import S3Storage

from advisor.brief import storage as brief_storage
from advisor.brief.models import BriefStatus
from advisor.brief.verification import verify_upload
from advisor.roles import PROCUREMENT_STAFF
from config.settings.serving import default_file_storage
from tests.support.briefs import issue_through_the_page
from tests.support.production_data import (
    SHARED,
    environment,
    issue,
    script,
    shell,
    sqlite_source,
)
from tests.support.servers import manage
from tests.support.users import make_user

ACCESS_KEY, SECRET_KEY, REGION = "advisor-test-key", "advisor-test-secret", "us-east-1"
S3 = "storages.backends.s3.S3Storage"


@pytest.fixture(scope="module")
def s3_endpoint():
    """moto's S3 server on a port the OS picks (parallel workers each get their own).

    It must leave the environment as it found it: other tests in this worker would otherwise
    run against moto's fake credentials or endpoint."""
    before = aws_environment()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()
    assert aws_environment() == before


def aws_environment() -> dict:
    return {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "MOTO_", "BOTO"))}


@pytest.fixture(autouse=True)
def no_ambient_aws(monkeypatch, tmp_path):
    """boto3 sees only what each test gives it: no profile, config file or instance metadata
    of the machine running the tests, and nothing set here outlives the test."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "not-the-right-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-right-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def s3_client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=REGION,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )


@pytest.fixture
def bucket(s3_endpoint):
    name = f"advisor-briefs-{uuid.uuid4().hex[:12]}"
    s3_client(s3_endpoint).create_bucket(Bucket=name)
    return name


def operator_env(endpoint: str, bucket: str, prefix: str = "advisor/test") -> dict:
    """The variables an operator sets for a MinIO-like store (path-style, own keys)."""
    return {
        "ADVISOR_STORAGE": "s3",
        "ADVISOR_S3_BUCKET": bucket,
        "ADVISOR_S3_ENDPOINT_URL": endpoint,
        "ADVISOR_S3_REGION": REGION,
        "ADVISOR_S3_ACCESS_KEY_ID": ACCESS_KEY,
        "ADVISOR_S3_SECRET_ACCESS_KEY": SECRET_KEY,
        "ADVISOR_S3_ADDRESSING_STYLE": "path",
        "ADVISOR_S3_PREFIX": prefix,
    }


def keys_in(endpoint: str, bucket: str) -> list[str]:
    listing = s3_client(endpoint).list_objects(Bucket=bucket)
    return sorted(item["Key"] for item in listing.get("Contents", []))


@pytest.fixture
def s3_storage(settings, s3_endpoint, bucket):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": default_file_storage(operator_env(s3_endpoint, bucket)),
    }
    assert isinstance(storages["default"], S3Storage)
    return bucket


# --- the settings switch -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, {"BACKEND": "django.core.files.storage.FileSystemStorage"}),
        (
            {"ADVISOR_STORAGE": "filesystem"},
            {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        ),
        # An explicit choice wins over a bucket left in the environment.
        (
            {"ADVISOR_STORAGE": "Filesystem ", "ADVISOR_S3_BUCKET": "b"},
            {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        ),
        (
            {"ADVISOR_S3_BUCKET": "briefs"},  # a bucket alone selects the object store
            {
                "BACKEND": S3,
                "OPTIONS": {
                    "bucket_name": "briefs",
                    "endpoint_url": None,
                    "region_name": None,
                    "access_key": None,  # boto3's own chain: AWS_* variables, instance role
                    "secret_key": None,
                    "addressing_style": None,
                    "location": "",
                    "default_acl": None,
                    "querystring_auth": True,
                    "file_overwrite": False,
                },
            },
        ),
        (
            {
                "ADVISOR_STORAGE": "S3",
                "ADVISOR_S3_BUCKET": " briefs ",
                "ADVISOR_S3_ENDPOINT_URL": "https://minio.example.cn:9000",
                "ADVISOR_S3_REGION": "cn-north-1",
                "ADVISOR_S3_ACCESS_KEY_ID": "AK",
                "ADVISOR_S3_SECRET_ACCESS_KEY": "SK",
                "ADVISOR_S3_ADDRESSING_STYLE": "Path",
                "ADVISOR_S3_PREFIX": "/advisor/prod/",
                "ADVISOR_S3_DEFAULT_ACL": "private",
                "ADVISOR_S3_CA_BUNDLE": "/etc/ssl/minio-ca.pem",
            },
            {
                "BACKEND": S3,
                "OPTIONS": {
                    "bucket_name": "briefs",
                    "endpoint_url": "https://minio.example.cn:9000",
                    "region_name": "cn-north-1",
                    "access_key": "AK",
                    "secret_key": "SK",
                    "addressing_style": "path",
                    "location": "advisor/prod",
                    "default_acl": "private",
                    "querystring_auth": True,
                    "file_overwrite": False,
                    "verify": "/etc/ssl/minio-ca.pem",
                },
            },
        ),
    ],
)
def test_storage_is_chosen_from_the_environment(environ, expected):
    assert default_file_storage(environ) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"ADVISOR_STORAGE": "s3"}, "ADVISOR_STORAGE=s3 needs ADVISOR_S3_BUCKET"),
        ({"ADVISOR_STORAGE": "s3", "ADVISOR_S3_BUCKET": "  "}, "needs ADVISOR_S3_BUCKET"),
        (
            {"ADVISOR_STORAGE": "minio", "ADVISOR_S3_BUCKET": "b"},
            "'minio': use 'filesystem' or 's3'",
        ),
        (
            {"ADVISOR_S3_BUCKET": "b", "ADVISOR_S3_ACCESS_KEY_ID": "AK"},
            "both ADVISOR_S3_ACCESS_KEY_ID and ADVISOR_S3_SECRET_ACCESS_KEY, or neither",
        ),
        (
            {"ADVISOR_S3_BUCKET": "b", "ADVISOR_S3_ADDRESSING_STYLE": "subdomain"},
            "use one of auto, path, virtual",
        ),
    ],
)
def test_bad_storage_configuration_fails_fast(environ, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        default_file_storage(environ)


def test_a_missing_bucket_stops_the_app_from_starting(tmp_path):
    env = environment(tmp_path / "var", f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path)
    env["ADVISOR_STORAGE"] = "s3"
    with pytest.raises(subprocess.CalledProcessError) as failed:
        manage(env, "check")
    assert "ImproperlyConfigured" in failed.value.stderr
    assert "ADVISOR_STORAGE=s3 needs ADVISOR_S3_BUCKET" in failed.value.stderr


# --- a brief end to end ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_ready", "one_page_briefs")
def test_brief_is_stored_in_the_bucket_downloads_and_verifies(
    client, s3_storage, s3_endpoint, django_capture_on_commit_callbacks, settings
):
    buyer = make_user("buyer", PROCUREMENT_STAFF)
    brief = issue_through_the_page(client, buyer, django_capture_on_commit_callbacks)
    assert brief.status == BriefStatus.AWAITING_APPROVAL, brief.failure

    # The object is in the bucket, under the prefix, and nothing went to MEDIA_ROOT.
    assert keys_in(s3_endpoint, s3_storage) == [f"advisor/test/{brief.pdf.name}"]
    assert brief.pdf.name.startswith(f"briefs/{brief.created_at.year}/{brief.number}-draft")
    assert not Path(settings.MEDIA_ROOT).exists()

    response = client.get(reverse("brief:download", args=(brief.pk,)))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert f'filename="{brief.number}.pdf"' in response["Content-Disposition"]
    pdf = b"".join(response.streaming_content)
    assert int(response["Content-Length"]) == len(pdf)
    assert verify_upload(pdf).ok

    page = client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile("brief.pdf", pdf, content_type="application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    html = page.content.decode()
    assert page.status_code == 200
    assert "Signature intact, document unchanged, on record" in html and brief.number in html

    # Someone else's brief stays "not found", wherever it is stored.
    client.force_login(make_user("stranger", PROCUREMENT_STAFF))
    assert client.get(reverse("brief:download", args=(brief.pk,))).status_code == 404


@pytest.mark.django_db
def test_an_existing_key_is_never_overwritten(s3_storage, s3_endpoint):
    first = storages["default"].save("briefs/2026/FT-2026-000001-draft.pdf", ContentFile(b"one"))
    second = storages["default"].save("briefs/2026/FT-2026-000001-draft.pdf", ContentFile(b"two"))
    assert first != second
    assert storages["default"].open(first).read() == b"one"
    assert brief_storage.stored_names() == sorted([first, second])
    assert brief_storage.describe() == f"s3://{s3_storage}/advisor/test/ at {s3_endpoint}"
    assert brief_storage.local_root() == ""


# --- backup and restore with the briefs in the store ----------------------------------------


STORED_PDF = (
    "from advisor.brief.models import Brief; import hashlib; "
    "print(hashlib.sha256(Brief.objects.get().pdf.open('rb').read()).hexdigest())"
)


@pytest.mark.xdist_group(SHARED)
def test_backup_with_an_object_store_keeps_the_database_and_says_where_the_briefs_are(
    tmp_path, pki_dir, s3_endpoint, bucket, seeded_sqlite
):
    s3 = operator_env(s3_endpoint, bucket, prefix="prod")
    source = sqlite_source(tmp_path, pki_dir, seeded_sqlite)
    source.update(s3)
    issued = issue(source, tmp_path)
    assert [key.split("/")[:2] for key in keys_in(s3_endpoint, bucket)] == [["prod", "briefs"]]
    assert not (tmp_path / "source" / "media").exists()

    made = script("backup", source, str(tmp_path / "backups"))
    backup = Path(made.stdout.strip().splitlines()[-1])
    assert sorted(p.name for p in backup.iterdir()) == ["SHA256SUMS", "database.json"]
    assert f"object store s3://{bucket}/prod/ at {s3_endpoint}" in made.stderr
    assert "holds the database only" in made.stderr and "versioning" in made.stderr

    # The same store, a fresh database: every record finds its PDF, byte for byte.
    target = environment(tmp_path / "target", f"sqlite:///{tmp_path / 'target.sqlite3'}", pki_dir)
    target.update(s3)
    restored = script("restore", target, str(backup))
    assert "they stay in the object store" in restored.stderr
    assert shell(target, STORED_PDF) == hashlib.sha256(issued).hexdigest()

    # A file-system target cannot take it: its PDFs are not in the backup.
    local = environment(tmp_path / "local", f"sqlite:///{tmp_path / 'local.sqlite3'}", pki_dir)
    refused = script("restore", local, str(backup), check=False)
    assert refused.returncode == 2 and "has no media.tar.gz" in refused.stderr

    # A store that lost the object: the restore says which brief is missing.
    s3_client(s3_endpoint).delete_object(Bucket=bucket, Key=keys_in(s3_endpoint, bucket)[0])
    again = environment(tmp_path / "again", f"sqlite:///{tmp_path / 'again.sqlite3'}", pki_dir)
    again.update(s3)
    lost = script("restore", again, str(backup), check=False)
    assert lost.returncode == 4 and "briefs/" in lost.stderr and "missing" in lost.stderr


@pytest.mark.xdist_group(SHARED)
def test_restore_moves_a_file_system_backup_into_an_object_store(
    tmp_path, pki_dir, s3_endpoint, bucket, file_system_backup
):
    issued = file_system_backup.issued
    backup = str(file_system_backup.path)
    assert "object store" not in file_system_backup.stderr

    target = environment(tmp_path / "target", f"sqlite:///{tmp_path / 'target.sqlite3'}", pki_dir)
    target.update(operator_env(s3_endpoint, bucket, prefix=""))
    restored = script("restore", target, backup)
    assert "1 file(s) uploaded" in restored.stdout
    (key,) = keys_in(s3_endpoint, bucket)
    assert key.startswith("briefs/")
    assert shell(target, STORED_PDF) == hashlib.sha256(issued).hexdigest()
    verified = manage(target, "verify_brief", str(file_system_backup.issued_path)).stdout
    assert "on record: FT-" in verified and "tampering: none" in verified

    # The bucket now holds briefs: a second restore into it is refused.
    other = environment(tmp_path / "other", f"sqlite:///{tmp_path / 'other.sqlite3'}", pki_dir)
    other.update(operator_env(s3_endpoint, bucket, prefix=""))
    refused = script("restore", other, backup, check=False)
    assert refused.returncode == 3 and "already holds 1 brief file(s)" in refused.stderr
