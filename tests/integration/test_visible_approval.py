"""The approver's signature is visible in the sign-off table (issue 46): the approved brief,
rendered in full, carries the approval signature's widget over the approver's row with a
stamp (name, time, reason, location), and the location is the approver's own, from their
certificate, not the system's."""

from __future__ import annotations

from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from pyhanko.pdf_utils.reader import PdfFileReader

from advisor.brief import services
from advisor.brief.config import trust_roots as load_trust_roots
from advisor.brief.models import BriefStatus
from advisor.brief.signing import APPROVAL_ANCHOR, APPROVAL_FIELD, named_destination, stamp_lines
from advisor.brief.verify import Tampering, verify_pdf
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.integration.test_long_term_signatures import configure
from tests.support.approvals import brief_awaiting_approval
from tests.support.long_term import create_long_term_pki
from tests.support.pdf import pdf_bytes, pdf_text
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]


def widget_of(pdf: bytes, field_name: str):
    reader = PdfFileReader(BytesIO(pdf))
    for reference in reader.root["/AcroForm"]["/Fields"]:
        field = reference.get_object()
        if str(field.get("/T")) == field_name:
            return reader, reference
    raise AssertionError(field_name)


def test_the_approval_signature_shows_in_the_sign_off_table(settings, tmp_path, client):
    pki = create_long_term_pki(tmp_path)
    configure(settings, pki)
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    boss = make_user(
        "boss",
        APPROVER,
        password="pw",
        email="boss@example.org",
        first_name="Li",  # the approver certificate names "Li Approver" (decision 0121)
        last_name="Approver",
    )
    brief = brief_awaiting_approval(buyer)
    client.force_login(boss)
    upload = SimpleUploadedFile("me.p12", pki.approver_path.read_bytes(), "application/x-pkcs12")
    client.post(
        reverse("brief:certificate"),
        {"certificate": upload, "passphrase": pki.passphrase},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    services.approve(brief, boss, comment="ok", acknowledged=True, passphrase=pki.passphrase)
    brief.refresh_from_db()
    assert brief.status == BriefStatus.APPROVED and brief.approver_signed
    pdf = pdf_bytes(brief)

    report = verify_pdf(pdf, load_trust_roots())
    assert report.tampering is Tampering.NONE
    system, approval = report.signatures
    assert approval.field_name == APPROVAL_FIELD and approval.intact and approval.trusted
    assert approval.location == "Guiyang, Guizhou, CN"  # the approver's, from the certificate
    assert system.location == settings.BRIEF_SIGNING["LOCATION"]

    # The widget sits where the sign-off table's approver row has its box, on that page,
    # with a drawn stamp.
    reader, reference = widget_of(pdf, APPROVAL_FIELD)
    field = reference.get_object()
    page, left, top = named_destination(reader, APPROVAL_ANCHOR)
    x1, y1, x2, y2 = (float(v) for v in field["/Rect"])
    assert x2 - x1 > 50 and y2 - y1 > 30
    assert abs(x1 - left) <= 1 and abs(y2 - top) <= 1
    page_ref, _resources = reader.find_page_for_modification(page)
    annotations = page_ref.get_object()["/Annots"]
    on_page = [annotations.raw_get(i) for i in range(len(annotations))]
    assert reference.idnum in {getattr(a, "idnum", None) for a in on_page}
    assert field["/AP"]["/N"].data  # an appearance stream is drawn
    sign_off_page = pdf_text(pdf, tmp_path, first=page + 1, last=page + 1, name="approved.pdf")
    assert "Sign-off" in sign_off_page and "Approver" in sign_off_page


def test_a_chinese_brief_is_signed_and_stamped_in_chinese(settings, tmp_path, client):
    """The signatures' reasons (what the verify page and the approval stamp print) are in the
    brief's language: a Chinese brief reads 采购简报 … and 批准采购简报 …, no English."""
    pki = create_long_term_pki(tmp_path)
    configure(settings, pki)
    buyer = make_user("buyer-zh", PROCUREMENT_STAFF, password="pw")
    boss = make_user("boss-zh", APPROVER, password="pw", first_name="Li", last_name="Approver")
    brief = brief_awaiting_approval(buyer, language="zh-hans")
    client.force_login(boss)
    upload = SimpleUploadedFile("me.p12", pki.approver_path.read_bytes(), "application/x-pkcs12")
    client.post(reverse("brief:certificate"), {"certificate": upload, "passphrase": pki.passphrase})
    services.approve(brief, boss, comment="同意", acknowledged=True, passphrase=pki.passphrase)
    brief.refresh_from_db()
    report = verify_pdf(pdf_bytes(brief), load_trust_roots())
    system, approval = report.signatures
    assert system.reason == f"采购简报 {brief.number}（已批准）"
    assert approval.reason == f"批准采购简报 {brief.number}"
    # The stamp wraps a Chinese run by its width (two columns a character).
    lines = stamp_lines("批准采购简报" * 4).split("\n")
    assert len(lines) == 2 and all(len(line) <= 15 for line in lines)
