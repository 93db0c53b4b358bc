"""An approver signs with their own certificate: the approved PDF carries two valid signatures
(the system's and the approver's approval signature); a wrong passphrase signs nothing; the key
and its passphrase never reach the logs, the database in clear or a response."""

from __future__ import annotations

import logging
import subprocess
from io import BytesIO, StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

from advisor.brief import generation, services
from advisor.brief.config import trust_roots as load_trust_roots
from advisor.brief.models import AuditAction, AuditEvent, Brief, BriefStatus, SigningCertificate
from advisor.brief.pki import create_pki
from advisor.brief.render import BriefMeta, render_html
from advisor.brief.signing import APPROVAL_FIELD, SignatureRequest, sign_pdf_as
from advisor.brief.verify import Tampering, verify_pdf
from advisor.roles import APPROVER
from tests.support.approvals import brief_awaiting_approval, buyer_and_approver
from tests.support.pdf import pdf_bytes
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready", "one_page_briefs")]

PASSPHRASE = "wang-fang approves 2026"


@pytest.fixture(scope="module")
def approver_pki(tmp_path_factory):
    """The approver's own CA and certificate (a PKCS#12 under PASSPHRASE)."""
    directory = tmp_path_factory.mktemp("approver-pki")
    return create_pki(directory, PASSPHRASE, "Approver Org", "Wang Fang", development=False)


@pytest.fixture
def trusted(brief_ready, settings, approver_pki):
    signing = dict(settings.BRIEF_SIGNING)
    signing["TRUST_ROOTS"] = [*signing["TRUST_ROOTS"], approver_pki.ca_cert_path]
    settings.BRIEF_SIGNING = signing


@pytest.fixture
def people():
    return buyer_and_approver()


@pytest.fixture
def brief(people):
    return brief_awaiting_approval(people[0])


def register(client, approver_pki, passphrase=PASSPHRASE):
    upload = SimpleUploadedFile(
        "me.p12", approver_pki.signer_pkcs12_path.read_bytes(), "application/x-pkcs12"
    )
    return client.post(
        reverse("brief:certificate"),
        {"certificate": upload, "passphrase": passphrase},
        HTTP_ACCEPT_LANGUAGE="en",
    )


def review(client, brief, passphrase):
    return client.post(
        reverse("brief:review", args=(brief.pk,)),
        {
            "decision": "approve",
            "comment": "ok",
            "acknowledge_vetoes": "on",
            "passphrase": passphrase,
        },
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )


@pytest.mark.usefixtures("trusted")
def test_approval_signed_by_the_approver_carries_two_signatures(
    client, people, brief, approver_pki, caplog, tmp_path
):
    _buyer, boss = people
    caplog.set_level(logging.DEBUG)
    client.force_login(boss)
    page = register(client, approver_pki)
    assert page.status_code == 302
    registered = SigningCertificate.objects.get(user=boss)
    assert "Wang Fang" in registered.subject
    p12 = approver_pki.signer_pkcs12_path.read_bytes()
    stored = bytes(registered.ciphertext)
    assert p12 not in stored and stored != p12
    assert AuditEvent.objects.filter(action=AuditAction.CERTIFICATE_REGISTERED).count() == 1

    # A wrong passphrase refuses the approval and signs nothing.
    draft = brief.sha256
    refused = review(client, brief, "not my passphrase")
    assert "That passphrase does not open your signing certificate" in refused.content.decode()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL and brief.sha256 == draft

    approved = review(client, brief, PASSPHRASE)
    assert f"Brief {brief.number} approved." in approved.content.decode()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approver_signed
    pdf = pdf_bytes(brief)
    report = verify_pdf(pdf, load_trust_roots())
    assert report.tampering is Tampering.NONE
    assert [s.field_name for s in report.signatures] == ["BriefSignature", APPROVAL_FIELD]
    assert all(s.intact and s.valid and s.trusted for s in report.signatures)
    signers = [s.signer for s in report.signatures]
    assert "Test Signer" in signers[0] and "Wang Fang" in signers[1]
    assert "Test Org CA" in report.signatures[0].chain[0]
    assert "Approver Org CA" in report.signatures[1].chain[0]
    assert "Wang Fang" in report.signatures[1].chain[-1]

    # pdfsig (poppler) sees both, by different signers.
    path = tmp_path / "approved.pdf"
    path.write_bytes(pdf)
    listing = subprocess.run(["pdfsig", str(path)], capture_output=True, text=True).stdout
    assert "Signature #1" in listing and "Signature #2" in listing
    assert "Test Signer" in listing and "Wang Fang" in listing

    # verify_brief names both signers and which one approved.
    out = StringIO()
    call_command("verify_brief", str(path), stdout=out)
    line = out.getvalue()
    assert "'BriefSignature' (issuer)" in line and f"'{APPROVAL_FIELD}' (approver)" in line
    assert "Wang Fang" in line and "Approver Org CA" in line

    # The verify page shows the approver's signature as the approval.
    verified = client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile("b.pdf", pdf, "application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "Approved and signed by" in verified and "Wang Fang" in verified
    assert "Certificate chain" in verified and "Approver Org CA" in verified

    # Neither the passphrase nor the key is in the logs, a response or the database in clear.
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert PASSPHRASE not in logged
    for response in (page, refused, approved):
        assert PASSPHRASE.encode() not in response.content
    for row in SigningCertificate.objects.values():
        for value in row.values():
            text = bytes(value) if isinstance(value, memoryview | bytes) else str(value).encode()
            assert PASSPHRASE.encode() not in text and p12 not in text


def test_without_a_certificate_the_approval_is_the_systems_and_says_so(client, people, brief):
    _buyer, boss = people
    client.force_login(boss)
    page = client.get(reverse("brief:detail", args=(brief.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    assert "the approval will be recorded by the system, not signed by you" in page.content.decode()
    services.approve(brief, boss, comment="ok", acknowledged=True)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and not brief.approver_signed
    report = verify_pdf(pdf_bytes(brief), load_trust_roots())
    assert [s.field_name for s in report.signatures] == ["BriefSignature"]
    meta = generation.meta(brief, approved=True)
    html = render_html(brief.snapshot, meta)
    assert "The approval was recorded by the system, not signed by the approver." in html
    signed_meta = BriefMeta(**{**meta.__dict__, "approver_signed": True})
    assert "Signed by the approver with their own certificate" in render_html(
        brief.snapshot, signed_meta
    )


def test_a_wrong_passphrase_registers_nothing(client, people, approver_pki):
    _buyer, boss = people
    client.force_login(boss)
    response = register(client, approver_pki, passphrase="wrong")
    assert response.status_code == 400
    assert "The passphrase does not open this file" in response.content.decode()
    assert b'value="wrong"' not in response.content  # a password is never sent back
    assert not SigningCertificate.objects.exists()


@pytest.mark.usefixtures("trusted")
def test_a_registered_certificate_must_sign(people, brief, approver_pki):
    _buyer, boss = people
    services.register_certificate(boss, approver_pki.signer_pkcs12_path.read_bytes(), PASSPHRASE)
    with (
        translation.override("en"),
        pytest.raises(services.BriefError, match="Enter the passphrase"),
    ):
        services.approve(brief, boss, acknowledged=True)
    assert Brief.objects.get(pk=brief.pk).status == BriefStatus.AWAITING_APPROVAL


@pytest.mark.usefixtures("trusted")
def test_content_changed_between_the_two_signatures_is_tampering(brief, approver_pki):
    """A second, trusted signature does not launder a change made after the first."""
    signed = pdf_bytes(brief)
    writer = IncrementalPdfFileWriter(BytesIO(signed))
    writer.root["/Lang"] = generic.pdf_string("fr")  # any change to the document itself
    writer.update_root()
    changed = BytesIO()
    writer.write(changed)
    request = SignatureRequest("Approval", field_name=APPROVAL_FIELD)
    p12 = approver_pki.signer_pkcs12_path.read_bytes()
    both = sign_pdf_as(changed.getvalue(), p12, PASSPHRASE, request, "Guiyang")
    report = verify_pdf(both, load_trust_roots())
    assert all(s.intact and s.valid and s.trusted for s in report.signatures)
    assert report.tampering is Tampering.CONTENT_APPENDED
    assert not report.signatures[0].only_signatures_after
    # The same second signature over the untouched PDF is no tampering.
    clean = verify_pdf(sign_pdf_as(signed, p12, PASSPHRASE, request, "Guiyang"), load_trust_roots())
    assert clean.tampering is Tampering.NONE and clean.signatures[0].only_signatures_after


def _check(client, pdf: bytes, language: str = "en"):
    upload = SimpleUploadedFile("brief.pdf", pdf, "application/pdf")
    return client.post(reverse("brief:verify"), {"pdf": upload}, HTTP_ACCEPT_LANGUAGE=language)


def _api_check(user, pdf: bytes) -> dict:
    from tests.support.api import api_client

    upload = SimpleUploadedFile("brief.pdf", pdf, "application/pdf")
    answer = api_client(user, scope="read").post("/api/verify", {"pdf": upload})
    assert answer.status_code == 200
    return answer.json()


@pytest.mark.usefixtures("trusted")
def test_an_approval_signed_by_someone_other_than_the_approver_is_flagged(
    client, people, brief, approver_pki
):
    """The approval signature names Wang Fang; the record says approver2 approved (a
    certificate in another person's name registered before registration checked names)."""
    buyer, boss = people
    services.register_certificate(boss, approver_pki.signer_pkcs12_path.read_bytes(), PASSPHRASE)
    approved = services.approve(brief, boss, acknowledged=True, passphrase=PASSPHRASE)
    other = make_user(
        "approver2", APPROVER, email="a2@example.org", first_name="Er", last_name="Zhang"
    )
    Brief.objects.filter(pk=approved.pk).update(approved_by=other)
    pdf = pdf_bytes(Brief.objects.get(pk=approved.pk))

    page = _check(client, pdf)
    text = page.content.decode()
    assert page.status_code == 200
    assert (
        "Issued by us, but the approval signature does not vouch for the recorded approver" in text
    )
    assert "names someone other than the approver on record (approver2)" in text
    assert "(not the approver on record)" in text
    assert "Signature intact, document unchanged, on record" not in text
    assert "verification-bad" in text

    answer = _api_check(buyer, pdf)
    assert answer["ok"] is False and answer["on_record"] is True and answer["issuer_trusted"]
    assert answer["approval"] == {
        "trusted": True,
        "signer_is_approver": False,
        "approver": "approver2",
    }
    assert [s["role"] for s in answer["signatures"]] == ["issuer", "approver"]

    # The approver on record signed it: all green, on the page and in the API.
    Brief.objects.filter(pk=approved.pk).update(approved_by=boss)
    assert "Signature intact, document unchanged, on record" in _check(client, pdf).content.decode()
    again = _api_check(buyer, pdf)
    assert again["ok"] and again["approval"]["signer_is_approver"] is True


def test_an_untrusted_approval_signature_does_not_disown_the_systems(
    client, people, brief, approver_pki, settings
):
    """The system's signature is judged on its own: an approval signature whose CA verifiers
    do not trust leaves the brief "issued by us", with the approval signature in doubt."""
    buyer, boss = people
    settings.BRIEF_SIGNING = {
        **settings.BRIEF_SIGNING,
        "APPROVER_TRUST_ROOTS": [approver_pki.ca_cert_path],  # not in TRUST_ROOTS
    }
    services.register_certificate(boss, approver_pki.signer_pkcs12_path.read_bytes(), PASSPHRASE)
    approved = services.approve(brief, boss, acknowledged=True, passphrase=PASSPHRASE)
    pdf = pdf_bytes(approved)

    text = _check(client, pdf).content.decode()
    assert (
        "Issued by us, but the approval signature does not vouch for the recorded approver" in text
    )
    assert "does not chain to an authority we trust" in text
    assert "Not signed by us" not in text
    answer = _api_check(buyer, pdf)
    assert answer["issuer_trusted"] and not answer["ok"]
    assert answer["approval"]["trusted"] is False
