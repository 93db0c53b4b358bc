"""An approver's key at a remote signing service, through the Cloud Signature Consortium API
(docs/decisions/0150), tested against a local service (tests.support.csc_service, no network)
that signs with a test key.

The approver registers their credential ID; the certificate the service lists passes the checks
an uploaded one does (decision 0121); at approval their PIN authorises the signature at the
service (bound to its digest, SCAL 2), never stored. The approved brief carries both
signatures, intact and trusted for pyHanko, the approval one visible in the sign-off table;
the verify page and ``POST /api/verify`` judge it as before. A wrong PIN, an unknown credential
or a service out of reach give plain messages and keep the approver's comment."""

from __future__ import annotations

import logging
from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from advisor.brief import services
from advisor.brief.config import trust_roots as load_trust_roots
from advisor.brief.models import AuditEvent, BriefStatus, KeySource, SigningCertificate
from advisor.brief.pki import create_pki
from advisor.brief.signing import (
    APPROVAL_ANCHOR,
    APPROVAL_FIELD,
    named_destination,
    outside_event_loop,
)
from advisor.brief.verify import Tampering, verify_pdf
from advisor.roles import APPROVER
from tests.support.api import api_client
from tests.support.approvals import brief_awaiting_approval, buyer_and_approver
from tests.support.csc_service import signing_service
from tests.support.pdf import pdf_bytes
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

COMMENT = "Approved; the delivery term matches the project plan."
CREDENTIAL = "wang-fang-qualified-01"
PIN = "csc-pin-5186"


@pytest.fixture(scope="module")
def approver_pki(tmp_path_factory):
    return create_pki(
        tmp_path_factory.mktemp("csc-pki"), "at-the-service", "Approver Org", "Wang Fang",
        development=False,
    )  # fmt: skip


@pytest.fixture
def service(approver_pki, settings, tmp_path):
    """The local signing service, configured as the approvers' (its access token in a secret
    file), the approver's CA trusted."""
    running = signing_service(
        approver_pki.signer_pkcs12_path, "at-the-service", credential_id=CREDENTIAL, pin=PIN
    )
    token_file = tmp_path / "csc-token"
    token_file.write_text(running.access_token + "\n")
    signing = dict(settings.BRIEF_SIGNING)
    signing["TRUST_ROOTS"] = [*signing["TRUST_ROOTS"], approver_pki.ca_cert_path]
    signing["APPROVER_CSC"] = {"URL": running.url, "TOKEN": None, "TOKEN_FILE": str(token_file)}
    settings.BRIEF_SIGNING = signing
    yield running
    running.stop()


@pytest.fixture
def people():
    return buyer_and_approver()


@pytest.fixture
def brief(people):
    return brief_awaiting_approval(people[0])


def register(client, credential=CREDENTIAL):
    return client.post(
        reverse("brief:certificate"),
        {"action": "remote", "credential_id": credential},
        HTTP_ACCEPT_LANGUAGE="en",
    )


def review(client, brief, pin, language="en", otp=""):
    return client.post(
        reverse("brief:review", args=(brief.pk,)),
        {
            "decision": "approve",
            "comment": COMMENT,
            "acknowledge_vetoes": "on",
            "pin": pin,
            "otp": otp,
        },
        HTTP_ACCEPT_LANGUAGE=language,
        follow=True,
    )


def test_an_approval_signed_by_the_signing_service(client, people, brief, service, caplog):
    """The full brief (its sign-off table holds the approval stamp)."""
    buyer, boss = people
    caplog.set_level(logging.DEBUG)
    client.force_login(boss)
    page = client.get(reverse("brief:certificate"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Or use your key at the signing service" in page and 'name="credential_id"' in page

    unknown = register(client, "someone-elses")
    assert unknown.status_code == 400
    assert "has no credential “someone-elses”" in unknown.content.decode()

    assert register(client).status_code == 302
    registered = SigningCertificate.objects.get(user=boss)
    assert (registered.source, registered.credential_id) == (KeySource.CSC, CREDENTIAL)
    assert "Wang Fang" in registered.subject and "Approver Org CA" in registered.issuer

    detail = client.get(reverse("brief:detail", args=(brief.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    text = detail.content.decode()
    assert "PIN for your key at the signing service" in text and 'name="otp"' in text

    draft = brief.sha256
    wrong = review(client, brief, "0000")
    assert wrong.status_code == 400
    assert "The signing service refused this PIN or code" in wrong.content.decode()
    assert COMMENT in wrong.content.decode()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL and brief.sha256 == draft
    # A refused authorisation is not tried again one level lower (it could lock the key).
    assert [e for e, _b in service.requests].count("credentials/authorize") == 1

    service.requests.clear()
    approved = review(client, brief, PIN)
    assert f"Brief {brief.number} approved." in approved.content.decode()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approver_signed
    # The PIN went to the service's authorisation only, bound to the digest it signed.
    authorize = [b for e, b in service.requests if e == "credentials/authorize"]
    signed_hashes = [b["hash"] for e, b in service.requests if e == "signatures/signHash"]
    assert len(authorize) == 1 and authorize[0]["PIN"] == PIN
    assert authorize[0]["hash"] == signed_hashes[0] and len(signed_hashes) == 1
    assert all("PIN" not in b for e, b in service.requests if e != "credentials/authorize")

    pdf = pdf_bytes(brief)
    report = verify_pdf(pdf, load_trust_roots())
    assert report.tampering is Tampering.NONE
    assert [s.field_name for s in report.signatures] == ["BriefSignature", APPROVAL_FIELD]
    assert all(s.intact and s.valid and s.trusted for s in report.signatures)
    assert "Wang Fang" in report.signatures[1].signer
    reader = PdfFileReader(BytesIO(pdf))
    approval = next(s for s in reader.embedded_signatures if s.field_name == APPROVAL_FIELD)
    context = ValidationContext(trust_roots=load_trust_roots(), allow_fetching=False)
    status = outside_event_loop(validate_pdf_signature, approval, context)
    assert status.bottom_line and status.intact and status.trusted
    widget = approval.sig_field
    page_index, left, top = named_destination(reader, APPROVAL_ANCHOR)
    x1, y1, x2, y2 = (float(v) for v in widget["/Rect"])
    assert x2 - x1 > 50 and y2 - y1 > 30
    assert abs(x1 - left) <= 1 and abs(y2 - top) <= 1
    assert widget["/AP"]["/N"].data

    verified = client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile("b.pdf", pdf, "application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "Approved and signed by" in verified and "Wang Fang" in verified
    upload = SimpleUploadedFile("b.pdf", pdf, "application/pdf")
    answer = api_client(buyer, scope="read").post("/api/verify", {"pdf": upload}).json()
    assert answer["ok"] is True
    assert answer["approval"] == {"trusted": True, "signer_is_approver": True, "approver": "boss"}

    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert PIN not in logged and service.access_token not in logged
    for response in (wrong, approved):
        assert PIN not in response.content.decode()
    for row in SigningCertificate.objects.values():
        assert PIN not in {str(v) for v in row.values()}
    assert all(PIN not in str(event.detail) for event in AuditEvent.objects.all())


@pytest.mark.usefixtures("one_page_briefs")
def test_a_service_out_of_reach_refuses_the_approval_and_keeps_the_comment(
    client, people, brief, service
):
    _buyer, boss = people
    services.register_remote(boss, CREDENTIAL)
    service.stop()
    client.force_login(boss)
    page = review(client, brief, PIN)
    assert page.status_code == 400
    assert "The signing service cannot be used now" in page.content.decode()
    assert COMMENT in page.content.decode()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL


@pytest.mark.usefixtures("one_page_briefs")
def test_another_certificate_at_the_service_refuses_the_approval(client, people, brief, service):
    _buyer, boss = people
    services.register_remote(boss, CREDENTIAL)
    SigningCertificate.objects.filter(user=boss).update(fingerprint="0" * 64)
    client.force_login(boss)
    page = review(client, brief, PIN, language="zh-hans")
    text = page.content.decode()
    assert page.status_code == 400
    assert "签名服务现在为您的凭据列出了另一张证书" in text and COMMENT in text
    assert not [e for e, _b in service.requests if e == "credentials/authorize"]


@pytest.mark.usefixtures("one_page_briefs")
def test_without_a_pin_nothing_is_asked_of_the_service(client, people, brief, service):
    _buyer, boss = people
    services.register_remote(boss, CREDENTIAL)
    client.force_login(boss)
    service.requests.clear()
    page = review(client, brief, "", language="zh-hans")
    assert page.status_code == 400
    assert "请输入您在签名服务处密钥的 PIN" in page.content.decode()
    assert service.requests == []


def test_the_services_certificate_passes_the_checks_an_uploaded_one_does(client, service):
    other = make_user("li", APPROVER, email="li@example.org", first_name="Na", last_name="Li")
    client.force_login(other)
    named = register(client)
    assert named.status_code == 400
    assert "This certificate is in the name of Wang Fang, not yours" in named.content.decode()
    assert not SigningCertificate.objects.filter(user=other).exists()


def test_a_wrong_access_token_is_a_service_fault(client, people, service, settings):
    _buyer, boss = people
    signing = dict(settings.BRIEF_SIGNING)
    signing["APPROVER_CSC"] = {"URL": service.url, "TOKEN": "not-the-token", "TOKEN_FILE": None}
    settings.BRIEF_SIGNING = signing
    client.force_login(boss)
    page = register(client)
    assert page.status_code == 400
    # The service refuses this site (401): the deployment's fault, not the approver's.
    assert "does not accept this site" in page.content.decode()


def test_without_a_configured_service_there_is_no_form(client, people, settings):
    _buyer, boss = people
    client.force_login(boss)
    page = client.get(reverse("brief:certificate"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="credential_id"' not in page


def test_the_deploy_check_wants_https_and_an_existing_module(settings, tmp_path):
    from advisor.brief.checks import check_approver_key_sources

    settings.PRODUCTION = True
    signing = dict(settings.BRIEF_SIGNING)
    signing["APPROVER_CSC"] = {"URL": "http://csc.example.org", "TOKEN": None, "TOKEN_FILE": None}
    signing["APPROVER_PKCS11_MODULE"] = str(tmp_path / "missing.so")
    settings.BRIEF_SIGNING = signing
    assert [m.id for m in check_approver_key_sources()] == ["advisor.E014", "advisor.E015"]
    module = tmp_path / "vendor.so"
    module.write_bytes(b"\x7fELF")
    signing["APPROVER_CSC"] = {"URL": "https://csc.example.org", "TOKEN": None, "TOKEN_FILE": None}
    signing["APPROVER_PKCS11_MODULE"] = str(module)
    assert check_approver_key_sources() == []
