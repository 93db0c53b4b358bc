"""The public verify page is bounded, and names an untrusted signer for what it is.

Findings: six anonymous uploads of a 19.9 MB PDF with 200,000 empty signature fields kept all
web workers busy for 33-48 s each (no rate limit); a brief re-signed with a look-alike,
untrusted certificate was headed "Signature intact, but this document is not in our records".
"""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from advisor.brief import verification as verification_module
from advisor.brief.models import AuditAction, AuditEvent
from advisor.brief.verification import NotAPdf, check_structure, object_count, verify_upload
from tests.support.briefs import make_pki, make_signed_pdf, signing_settings

pytestmark = pytest.mark.django_db

NOT_ON_RECORD = "Signature intact, but this document is not in our records"
NOT_OURS = "Not signed by us"


@pytest.fixture(autouse=True)
def signing(pki_dir):
    with override_settings(BRIEF_SIGNING=signing_settings(pki_dir)):
        yield


@pytest.fixture(scope="module")
def ours(pki_dir):
    return make_signed_pdf(pki_dir, "FT-2026-000101")


@pytest.fixture(scope="module")
def look_alike(tmp_path_factory):
    """Signed by a certificate with the very same names, from a CA we do not trust."""
    directory = tmp_path_factory.mktemp("look-alike-pki")
    make_pki(directory)  # same organisation and signer names as the test PKI
    return make_signed_pdf(directory, "FT-2026-000101")


def upload(client, data: bytes, **extra):
    return client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile("brief.pdf", data, content_type="application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
        **extra,
    )


def headline(response) -> str:
    html = response.content.decode()
    start = html.index('<h2 id="verdict">') + len('<h2 id="verdict">')
    return " ".join(html[start : html.index("</h2>", start)].split())


# --- Headline: untrusted signer, distinct from tampering and from "not on record" -----------


def test_a_look_alike_signer_gets_its_own_headline(client, look_alike):
    response = upload(client, look_alike.signed)
    assert response.status_code == 200
    assert headline(response).startswith(NOT_OURS)
    html = response.content.decode()
    assert "does not chain to our signing authority" in html
    assert "Test Signer" in html and "not a trusted signer" in html


def test_our_signature_not_on_record_keeps_its_headline(client, ours):
    assert headline(upload(client, ours.signed)) == NOT_ON_RECORD


def test_tampering_with_a_look_alike_is_still_tampering(client, look_alike):
    changed = bytearray(look_alike.signed)
    changed[len(look_alike.unsigned) // 2] ^= 0x01  # inside the signed bytes
    assert headline(upload(client, bytes(changed))).startswith("The document was changed")


def test_the_command_refuses_a_look_alike(look_alike, tmp_path):
    result = verify_upload(look_alike.signed)
    assert result.untrusted and not result.ok


# --- Bounds checked before the PDF is parsed --------------------------------------------------


def many_fields(count: int) -> bytes:
    body = b"".join(
        b"%d 0 obj\n<< /FT /Sig /T (f%d) >>\nendobj\n" % (i, i) for i in range(1, count + 1)
    )
    return b"%PDF-1.7\n" + body + b"trailer\n<< /Size 1 >>\n%%EOF\n"


def packed_objects(count: int) -> bytes:
    return (
        b"%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N "
        + str(count).encode()
        + b" /First 4 /Length 0 >>\nstream\n\nendstream\nendobj\n%%EOF\n"
    )


@pytest.mark.parametrize(
    "data",
    [
        many_fields(200_000),
        many_fields(20),  # more signature fields than any brief has
        packed_objects(50_000),
        many_fields(10) + packed_objects(25_000),
    ],
    ids=["200k-fields", "20-signatures", "object-stream", "mixed"],
)
def test_hostile_structure_is_refused_before_parsing(client, monkeypatch, data):
    def must_not_parse(*args, **kwargs):
        raise AssertionError("the PDF was parsed")

    monkeypatch.setattr(verification_module, "verify_pdf", must_not_parse)
    response = upload(client, data)
    assert response.status_code == 422
    assert "too complex to check here" in response.content.decode()
    assert not AuditEvent.objects.filter(action=AuditAction.BRIEF_VERIFIED).exists()


def test_a_real_brief_is_far_inside_the_bounds(ours, look_alike):
    for pdf in (ours.signed, look_alike.signed, ours.unsigned):
        check_structure(pdf)
        assert object_count(pdf) < verification_module.MAX_OBJECTS // 20


def test_the_time_budget_ends_a_long_check(client, ours, settings):
    settings.VERIFY_BUDGET_S = -1  # spent before the first signature is checked
    response = upload(client, ours.signed)
    assert response.status_code == 422
    assert "too complex to check here" in response.content.decode()
    with pytest.raises(NotAPdf, match="too-complex"):
        verify_upload(ours.signed, budget_s=-1)


# --- Per-client rate limit (django-ratelimit) -------------------------------------------------


@pytest.fixture
def limited(settings, monkeypatch):
    settings.VERIFY_RATE_LIMIT = "3/m"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # One fixed window, so that no minute boundary can fall between the posts.
    monkeypatch.setattr("django_ratelimit.core._get_window", lambda value, period: 1_000_000)
    from django.core.cache import cache

    cache.clear()


@pytest.mark.usefixtures("limited")
def test_uploads_are_limited_per_client_address(client, ours):
    first = {"REMOTE_ADDR": "203.0.113.7"}
    for _ in range(3):
        assert upload(client, ours.signed, **first).status_code == 200
    refused = upload(client, ours.signed, **first)
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert "Too many checks from your address" in refused.content.decode()
    assert AuditEvent.objects.filter(action=AuditAction.BRIEF_VERIFIED).count() == 3
    # Another client is not held up; reading the page is never limited.
    assert upload(client, ours.signed, REMOTE_ADDR="198.51.100.9").status_code == 200
    assert client.get(reverse("brief:verify"), **first).status_code == 200
