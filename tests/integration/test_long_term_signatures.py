"""Long-term signatures (docs/decisions/0117): with a timestamp authority and the CAs'
revocation information configured, a brief is signed PAdES B-LT, the approver's signature
too; pyHanko validates the approved brief from what the file carries (its document security
store, no fetching) with both signatures intact and trusted. Without revocation information
the signature falls back to B-T, without a timestamp authority to B-B, and the document and
the verify page say which. A production deploy check warns when no timestamp authority is set.

Everything is local: the CA, its CRL file and an RFC 3161 authority on 127.0.0.1."""

from __future__ import annotations

from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.dss import DocumentSecurityStore

from advisor.brief import generation, services
from advisor.brief.checks import check_timestamp_authority
from advisor.brief.config import signing_config
from advisor.brief.config import trust_roots as load_trust_roots
from advisor.brief.models import BriefStatus
from advisor.brief.render import render_html
from advisor.brief.signing import APPROVAL_FIELD, LEVEL_B, LEVEL_LT, LEVEL_T, planned_level
from advisor.brief.verify import Tampering, verify_pdf
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.integration.test_verification import appended_page
from tests.support.approvals import brief_awaiting_approval
from tests.support.long_term import LocalTimestampAuthority, create_long_term_pki
from tests.support.pdf import pdf_bytes
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready", "one_page_briefs")]


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return create_long_term_pki(tmp_path_factory.mktemp("long-term-pki"))


@pytest.fixture
def authority(pki):
    with LocalTimestampAuthority(pki) as running:
        yield running


def configure(settings, pki, authority=None, *, revocation=True):
    signing = dict(settings.BRIEF_SIGNING)
    signing.update(
        PKCS12_PATH=pki.signer_path,
        PASSPHRASE=pki.passphrase,
        PASSPHRASE_FILE=None,
        TRUST_ROOTS=[pki.ca_path],
        TIMESTAMP_URL=authority.url if authority else None,
        REVOCATION_FILES=[pki.crl_path] if revocation else [],
        REVOCATION_FETCH=False,
    )
    settings.BRIEF_SIGNING = signing


@pytest.fixture
def people():
    return (
        make_user("buyer", PROCUREMENT_STAFF, password="pw"),
        make_user(
            "boss",
            APPROVER,
            password="pw",
            email="boss@example.org",
            first_name="Li",  # the approver certificate names "Li Approver" (decision 0121)
            last_name="Approver",
        ),
    )


def stated_level(meta_calls: list) -> list[str]:
    return [meta.signature_level for meta in meta_calls]


@pytest.fixture
def rendered(monkeypatch):
    """The metadata each rendering of a brief was given (the level it states)."""
    calls = []
    render = generation.render_pdf

    def recording(snapshot, meta):
        calls.append(meta)
        return render(snapshot, meta)

    monkeypatch.setattr(generation, "render_pdf", recording)
    return calls


def long_term_validation(pdf: bytes, pki) -> list:
    """pyHanko's validation of every signature with only what the file carries: the trust
    root, and the certificates and CRLs of its document security store; revocation
    information required, nothing fetched."""
    reader = PdfFileReader(BytesIO(pdf))
    dss = DocumentSecurityStore.read_dss(reader)
    assert list(dss.crls), "no CRL in the document security store"
    statuses = []
    for signature in reader.embedded_signatures:
        context = dss.as_validation_context(
            {
                "trust_roots": load_trust_roots(),
                "allow_fetching": False,
                "revocation_mode": "require",
            }
        )
        status = validate_pdf_signature(
            signature, signer_validation_context=context, ts_validation_context=context
        )
        statuses.append((signature.field_name, status))
    return statuses


def test_an_approved_brief_is_b_lt_with_both_signatures(
    settings, pki, authority, people, rendered, client
):
    configure(settings, pki, authority)
    assert planned_level(signing_config()) == LEVEL_LT
    buyer, boss = people
    brief = brief_awaiting_approval(buyer)
    assert brief.status == BriefStatus.AWAITING_APPROVAL
    assert stated_level(rendered) == [LEVEL_LT]

    # The approver signs with their own certificate, at the same level.
    client.force_login(boss)
    upload = SimpleUploadedFile("me.p12", pki.approver_path.read_bytes(), "application/x-pkcs12")
    registered = client.post(
        reverse("brief:certificate"),
        {"certificate": upload, "passphrase": pki.passphrase},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert registered.status_code == 302
    services.approve(brief, boss, comment="ok", acknowledged=True, passphrase=pki.passphrase)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approver_signed
    assert stated_level(rendered) == [LEVEL_LT, LEVEL_LT]
    assert authority.requests >= 3  # the draft's signature, the approved PDF's two

    pdf = pdf_bytes(brief)
    statuses = long_term_validation(pdf, pki)
    assert [name for name, _ in statuses] == ["BriefSignature", APPROVAL_FIELD]
    for name, status in statuses:
        assert status.intact and status.valid and status.trusted, name
        assert status.timestamp_validity is not None and status.timestamp_validity.trusted, name
    signers = [status.signing_cert.subject.human_friendly for _, status in statuses]
    assert "Long Term System Signer" in signers[0] and "Li Approver" in signers[1]

    # Our own verification agrees, and names the level.
    report = verify_pdf(pdf, load_trust_roots())
    assert report.tampering is Tampering.NONE
    assert [s.level for s in report.signatures] == [LEVEL_LT, LEVEL_LT]
    page = client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile("b.pdf", pdf, "application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "PAdES B-LT" in page and "checkable after the certificates expire" in page

    # The validation data after the last signature are allowed; a page added after it is not.
    assert verify_pdf(appended_page(pdf), load_trust_roots()).tampering is (
        Tampering.CONTENT_APPENDED
    )


def test_without_revocation_information_it_falls_back_to_b_t_and_says_so(
    settings, pki, authority, people, rendered
):
    configure(settings, pki, authority, revocation=False)
    assert planned_level(signing_config()) == LEVEL_LT
    brief = brief_awaiting_approval(people[0])
    assert brief.status == BriefStatus.AWAITING_APPROVAL
    # B-LT was tried, the CRL could not be had: rendered again stating B-T, signed at B-T.
    assert stated_level(rendered) == [LEVEL_LT, LEVEL_T]
    report = verify_pdf(pdf_bytes(brief), load_trust_roots())
    assert [s.level for s in report.signatures] == [LEVEL_T]
    assert report.signatures[0].timestamp_trusted


def test_without_a_timestamp_authority_it_is_b_b_and_says_so(settings, pki, people, rendered):
    configure(settings, pki)
    assert planned_level(signing_config()) == LEVEL_B
    brief = brief_awaiting_approval(people[0])
    assert stated_level(rendered) == [LEVEL_B]
    report = verify_pdf(pdf_bytes(brief), load_trust_roots())
    assert [s.level for s in report.signatures] == [LEVEL_B]
    meta = generation.meta(brief, approved=False, signature_level=LEVEL_B)
    html = render_html(brief.snapshot, meta)
    assert "Signature level PAdES B-B (no trusted timestamp)" in html


def test_production_deploy_check_warns_without_a_timestamp_authority(settings, pki):
    configure(settings, pki)
    settings.PRODUCTION = True
    assert [m.id for m in check_timestamp_authority()] == ["brief.W001"]
    signing = dict(settings.BRIEF_SIGNING, TIMESTAMP_URL="http://tsa.example/")
    settings.BRIEF_SIGNING = signing
    assert check_timestamp_authority() == []
    settings.BRIEF_SIGNING = dict(signing, REVOCATION_FILES=[], REVOCATION_FETCH=False)
    assert [m.id for m in check_timestamp_authority()] == ["brief.W002"]
    settings.PRODUCTION = False
    assert check_timestamp_authority() == []
