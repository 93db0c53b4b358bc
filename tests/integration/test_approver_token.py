"""An approver's key on their own PKCS#11 token (docs/decisions/0149), tested with SoftHSM.

The approver names the token and the key on their certificate page; the certificate read from
the token passes the checks an uploaded one does (decision 0121); at approval they type the
PIN (never stored) and the token signs. The approved brief carries both signatures, intact and
trusted for pyHanko, the approval one visible in the sign-off table; the verify page and
``POST /api/verify`` judge it as before. A wrong PIN, an absent token or key give plain
messages and keep the approver's comment; nothing is signed."""

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
from tests.support.pdf import pdf_bytes
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

COMMENT = "Approved: the budget line for hosting is fine as written."


@pytest.fixture
def tokens(settings, approver_token):
    """The deployment reaches approvers' tokens through SoftHSM's module, and trusts the
    approver's CA (for registration and for verifiers)."""
    pki, token = approver_token
    signing = dict(settings.BRIEF_SIGNING)
    signing["TRUST_ROOTS"] = [*signing["TRUST_ROOTS"], pki.ca_cert_path]
    signing["APPROVER_PKCS11_MODULE"] = str(token.module)
    settings.BRIEF_SIGNING = signing
    return token


@pytest.fixture
def people():
    return buyer_and_approver()


@pytest.fixture
def brief(people):
    return brief_awaiting_approval(people[0])


def register(client, token, **changes):
    data = {
        "action": "token",
        "token_label": token.label,
        "key_label": token.key_label,
        "key_id": "",
        "pin": token.pin,
    } | changes
    return client.post(reverse("brief:certificate"), data, HTTP_ACCEPT_LANGUAGE="en")


def review(client, brief, pin, language="en"):
    return client.post(
        reverse("brief:review", args=(brief.pk,)),
        {"decision": "approve", "comment": COMMENT, "acknowledge_vetoes": "on", "pin": pin},
        HTTP_ACCEPT_LANGUAGE=language,
        follow=True,
    )


def test_an_approval_signed_on_the_approvers_token(client, people, brief, tokens, caplog):
    buyer, boss = people
    caplog.set_level(logging.DEBUG)
    client.force_login(boss)
    page = client.get(reverse("brief:certificate"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Or use the key on your signing token" in page and 'name="token_label"' in page

    refused = register(client, tokens, pin="000000")
    assert refused.status_code == 400
    assert "The token refused this PIN" in refused.content.decode()
    assert not SigningCertificate.objects.filter(user=boss).exists()

    assert register(client, tokens).status_code == 302
    registered = SigningCertificate.objects.get(user=boss)
    assert registered.source == KeySource.PKCS11
    assert (registered.token_label, registered.key_label) == (tokens.label, "wang-fang")
    assert "Wang Fang" in registered.subject and "Approver Org CA" in registered.issuer
    assert bytes(registered.ciphertext) == b""
    shown = client.get(reverse("brief:certificate"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Signing token (PKCS#11)" in shown and tokens.label in shown

    detail = client.get(reverse("brief:detail", args=(brief.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    text = detail.content.decode()
    assert "PIN of your signing token" in text and 'name="pin"' in text
    assert 'name="passphrase"' not in text

    # A wrong PIN: refused in plain words, the comment kept, nothing signed.
    draft = brief.sha256
    wrong = review(client, brief, "111111")
    assert wrong.status_code == 400
    assert "The token refused this PIN" in wrong.content.decode()
    assert COMMENT in wrong.content.decode()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL and brief.sha256 == draft

    approved = review(client, brief, tokens.pin)
    assert f"Brief {brief.number} approved." in approved.content.decode()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approver_signed
    pdf = pdf_bytes(brief)

    # pyHanko: both signatures intact and trusted, the approval one by Wang Fang on the token,
    # visible (a widget with an area) on the sign-off page.
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
    assert "Wang Fang" in status.signing_cert.subject.human_friendly
    widget = approval.sig_field  # the field is its own widget
    page, left, top = named_destination(reader, APPROVAL_ANCHOR)
    x1, y1, x2, y2 = (float(v) for v in widget["/Rect"])
    assert x2 - x1 > 50 and y2 - y1 > 30  # over the sign-off table's approver box
    assert abs(x1 - left) <= 1 and abs(y2 - top) <= 1
    assert widget["/AP"]["/N"].data  # a drawn stamp
    assert approval.sig_object["/Reason"] == f"Approval of procurement brief {brief.number}"

    # The verify page and the API judge it as an approval by the approver on record.
    verified = client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile("b.pdf", pdf, "application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "Approved and signed by" in verified and "Wang Fang" in verified
    assert "Signature intact, document unchanged, on record" in verified
    upload = SimpleUploadedFile("b.pdf", pdf, "application/pdf")
    answer = api_client(buyer, scope="read").post("/api/verify", {"pdf": upload}).json()
    assert answer["ok"] is True
    assert answer["approval"] == {"trusted": True, "signer_is_approver": True, "approver": "boss"}

    # The PIN is in no log, response, stored row or audit entry.
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert tokens.pin not in logged
    for response in (wrong, approved):
        assert tokens.pin not in response.content.decode()
    for row in SigningCertificate.objects.values():
        assert tokens.pin not in {str(v) for v in row.values()}
    for event in AuditEvent.objects.all():
        assert tokens.pin not in str(event.detail)


@pytest.mark.usefixtures("one_page_briefs")
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"token_label": "not-plugged-in"}, "No signing token labelled “not-plugged-in”"),
        ({"key_label": "someone-else"}, "holds no key with its certificate under “someone-else”"),
        ({"fingerprint": "0" * 64}, "The certificate on your token is not the one you registered"),
    ],
)
def test_a_token_that_cannot_sign_refuses_the_approval_and_keeps_the_comment(
    client, people, brief, tokens, changes, message
):
    _buyer, boss = people
    services.register_token(boss, tokens.label, tokens.key_label, "", tokens.pin)
    SigningCertificate.objects.filter(user=boss).update(**changes)
    client.force_login(boss)
    page = review(client, brief, tokens.pin)
    text = page.content.decode()
    assert page.status_code == 400
    assert message in text and COMMENT in text
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL and not brief.approver_signed


@pytest.mark.usefixtures("one_page_briefs")
def test_messages_in_chinese(client, people, brief, tokens):
    _buyer, boss = people
    services.register_token(boss, tokens.label, "", tokens.key_id.hex(), tokens.pin)
    client.force_login(boss)
    page = review(client, brief, "111111", language="zh-hans")
    text = page.content.decode()
    assert page.status_code == 400
    assert "签名令牌的 PIN" in text and "令牌拒绝了此 PIN" in text and COMMENT in text
    empty = review(client, brief, "", language="zh-hans").content.decode()
    assert "请输入签名令牌的 PIN" in empty


def test_the_tokens_certificate_passes_the_checks_an_uploaded_one_does(
    client, people, tokens, settings, tmp_path
):
    _buyer, boss = people
    other = make_user("li", APPROVER, email="li@example.org", first_name="Na", last_name="Li")
    client.force_login(other)
    named = register(client, tokens)
    assert named.status_code == 400
    assert "This certificate is in the name of Wang Fang, not yours" in named.content.decode()
    assert not SigningCertificate.objects.filter(user=other).exists()

    # Approvers' trust roots that do not hold the approver's CA: refused.
    from tests.support.approver_certs import authority

    elsewhere = tmp_path / "elsewhere.pem"
    elsewhere.write_bytes(authority("Elsewhere CA").pem)
    signing = dict(settings.BRIEF_SIGNING)
    signing["APPROVER_TRUST_ROOTS"] = [elsewhere]
    settings.BRIEF_SIGNING = signing
    client.force_login(boss)
    untrusted = register(client, tokens)
    assert untrusted.status_code == 400
    assert "not issued by a certificate authority this site trusts" in untrusted.content.decode()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"key_label": "", "key_id": ""}, "Name the key: give its label or its ID."),
        ({"key_label": "", "key_id": "zz"}, "A key ID is hexadecimal digits"),
        ({"pin": ""}, "Enter your token&#x27;s PIN."),
    ],
)
def test_the_token_form_says_what_is_missing(client, people, tokens, changes, message):
    _buyer, boss = people
    client.force_login(boss)
    page = register(client, tokens, **changes)
    assert page.status_code == 400 and message in page.content.decode()


def test_the_key_is_found_by_its_id(client, people, tokens):
    _buyer, boss = people
    client.force_login(boss)
    assert register(client, tokens, key_label="", key_id="A1:B2").status_code == 302
    assert SigningCertificate.objects.get(user=boss).key_id == "a1b2"


@pytest.mark.usefixtures("one_page_briefs")
def test_without_a_configured_module_there_is_no_token_form(
    client, people, brief, tokens, settings
):
    _buyer, boss = people
    services.register_token(boss, tokens.label, tokens.key_label, "", tokens.pin)
    signing = dict(settings.BRIEF_SIGNING)
    signing["APPROVER_PKCS11_MODULE"] = None
    settings.BRIEF_SIGNING = signing
    client.force_login(boss)
    page = client.get(reverse("brief:certificate"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="token_label"' not in page
    refused = review(client, brief, tokens.pin)
    assert refused.status_code == 400
    assert "this site is no longer set up to reach signing tokens" in refused.content.decode()
    assert COMMENT in refused.content.decode()
