"""An approver's uploaded certificate is opened within a budget and must vouch for them
(docs/decisions/0120-bounded-credentials.md, 0121-approver-certificate-vouches.md)."""

from __future__ import annotations

import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation

from advisor.brief import credentials
from advisor.brief.models import SigningCertificate
from advisor.roles import APPROVER
from tests.support.approver_certs import authority, pkcs12_file, with_declared_rounds
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

PASSPHRASE = "li na approves"


@pytest.fixture(scope="module")
def org_ca():
    return authority("Example Org Approvers CA")


@pytest.fixture
def li(settings, tmp_path, org_ca):
    """An approver, with the organisation's approvers' CA configured as their trust root."""
    path = tmp_path / "approvers-ca.pem"
    path.write_bytes(org_ca.pem)
    settings.BRIEF_SIGNING = {**settings.BRIEF_SIGNING, "APPROVER_TRUST_ROOTS": [path]}
    settings.VERIFY_SLOT_DIR = tmp_path / "slots"
    return make_user("lina", APPROVER, email="li.na@example.org", first_name="Na", last_name="Li")


def upload(client, data: bytes, language: str = "en"):
    return client.post(
        reverse("brief:certificate"),
        {
            "certificate": SimpleUploadedFile("me.p12", data, "application/x-pkcs12"),
            "passphrase": PASSPHRASE,
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )


def refused(response) -> str:
    assert response.status_code == 400
    assert not SigningCertificate.objects.exists()
    return response.content.decode()


@pytest.mark.parametrize(
    ("common_name", "email"),
    [("Li Na", None), ("李娜 (finance)", "LI.NA@example.org"), ("LiNa", None)],
)
def test_a_certificate_naming_the_approver_from_their_ca_is_registered(
    client, li, org_ca, common_name, email
):
    client.force_login(li)
    data = pkcs12_file(PASSPHRASE, common_name, issuer=org_ca, email=email)
    assert upload(client, data).status_code == 302
    assert SigningCertificate.objects.get(user=li).subject.endswith(f"CN={common_name}")


def test_a_self_signed_certificate_is_refused(client, li):
    client.force_login(li)
    page = refused(upload(client, pkcs12_file(PASSPHRASE, "Li Na", issuer=None)))
    assert "not issued by a certificate authority this site trusts for approvers" in page


def test_a_certificate_from_another_ca_is_refused(client, li):
    client.force_login(li)
    foreign = authority("Example Org Approvers CA")  # the same name, another key
    page = refused(upload(client, pkcs12_file(PASSPHRASE, "Li Na", issuer=foreign)))
    assert "not issued by a certificate authority this site trusts for approvers" in page


def test_a_certificate_in_another_persons_name_is_refused(client, li, org_ca):
    client.force_login(li)
    data = pkcs12_file(
        PASSPHRASE, "Chief Financial Officer Li", issuer=org_ca, email="cfo@example.org"
    )
    page = refused(upload(client, data))
    assert "in the name of Chief Financial Officer Li, cfo@example.org, not yours" in page
    assert "Na Li, li.na@example.org" in page


def test_a_certificate_expiring_within_30_days_is_refused(client, li, org_ca):
    client.force_login(li)
    page = refused(upload(client, pkcs12_file(PASSPHRASE, "Li Na", issuer=org_ca, days=20)))
    assert "in less than 30 days" in page


def test_a_certificate_that_may_not_sign_is_refused_in_chinese_too(client, li, org_ca):
    client.force_login(li)
    data = pkcs12_file(PASSPHRASE, "Li Na", issuer=org_ca, signs=False)
    assert "neither the non-repudiation nor the digital signature" in refused(upload(client, data))
    page = refused(upload(client, data, "zh-hans"))
    assert "不可签署文件" in page


def test_a_pkcs12_asking_for_10_8_rounds_is_refused_within_2_s_while_health_answers(
    client, li, org_ca
):
    client.force_login(li)
    hostile = with_declared_rounds(pkcs12_file(PASSPHRASE, "Li Na", issuer=org_ca), 10**8)
    assert len(hostile) < 8 * 1024
    health = []
    watcher = threading.Thread(target=lambda: health.append(Client().get("/health/").status_code))
    started = time.monotonic()
    watcher.start()
    page = refused(upload(client, hostile))
    seconds = time.monotonic() - started
    watcher.join()
    assert seconds < 2
    assert health == [200]
    assert "key-derivation rounds" in page and "so it was not opened" in page


def test_past_the_rounds_sieve_the_child_is_stopped_within_its_budget(
    settings, monkeypatch, org_ca
):
    """Were the ceiling far higher, opening the file would still be the child's, stopped by
    its CPU and time limits (the parent does no key derivation of an upload)."""
    monkeypatch.setattr(credentials, "MAX_KDF_ROUNDS", 10**9)
    monkeypatch.setattr(credentials, "MAX_KDF_WORK", 10**10)
    settings.CREDENTIAL_CPU_S, settings.CREDENTIAL_BUDGET_S = 1, 2
    hostile = with_declared_rounds(pkcs12_file(PASSPHRASE, "Li Na", issuer=org_ca), 10**8)
    started = time.monotonic()
    with (
        translation.override("en"),
        pytest.raises(credentials.CredentialError, match="needed far more time or memory"),
    ):
        credentials.open_pkcs12(hostile, PASSPHRASE)
    assert time.monotonic() - started < 3  # the 2 s wall-clock kill, and reaping the child


def test_one_upload_at_a_time_per_user(client, li, org_ca):
    client.force_login(li)
    data = pkcs12_file(PASSPHRASE, "Li Na", issuer=org_ca)
    with credentials.one_at_a_time(li.pk):  # another upload of hers is being opened
        page = refused(upload(client, data))
        assert "Your previous certificate upload is still being checked" in page
        other = make_user("zhao", APPROVER, email="zhao@example.org")
        with credentials.one_at_a_time(other.pk):  # someone else's is not hers
            pass
    assert upload(client, data).status_code == 302


def test_a_file_over_the_size_limit_or_not_pkcs12_is_refused_unopened(client, li):
    client.force_login(li)
    assert "not a signing certificate file" in refused(upload(client, b"\x30" * 70_000))
    assert "not a signing certificate file" in refused(upload(client, b"%PDF-1.7 not a p12"))
