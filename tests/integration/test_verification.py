"""The public verification page and `manage.py verify_brief`."""

from io import BytesIO

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

from advisor.brief.models import AuditAction, AuditEvent, Brief, BriefStatus
from tests.support.briefs import make_signed_pdf, signing_settings

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def pdf(pki_dir):
    return make_signed_pdf(pki_dir)


@pytest.fixture(autouse=True)
def signing(pki_dir):
    with override_settings(BRIEF_SIGNING=signing_settings(pki_dir)):
        yield


@pytest.fixture
def brief(pdf):
    buyer = User.objects.create_user("buyer1")
    approver = User.objects.create_user("boss")
    return Brief.objects.create(
        number=pdf.number,
        language="en",
        status=BriefStatus.APPROVED,
        prepared_by=buyer,
        approved_by=approver,
        ruleset_version="test",
        sha256=pdf.sha256,
        unsigned_sha256=pdf.unsigned_sha256,
    )


def upload(client, data: bytes, name="brief.pdf"):
    return client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile(name, data, content_type="application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
    )


def appended_page(signed: bytes) -> bytes:
    writer = IncrementalPdfFileWriter(BytesIO(signed))
    page = generic.DictionaryObject(
        {
            generic.pdf_name("/Type"): generic.pdf_name("/Page"),
            generic.pdf_name("/MediaBox"): generic.ArrayObject(
                [generic.NumberObject(v) for v in (0, 0, 595, 842)]
            ),
        }
    )
    writer.insert_page(page)
    out = BytesIO()
    writer.write(out)
    return out.getvalue()


def flipped(data: bytes, at: int) -> bytes:
    changed = bytearray(data)
    changed[at] ^= 0x01
    return bytes(changed)


def test_page_is_public(client):
    response = client.get(reverse("brief:verify"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert "Verify a procurement brief" in response.content.decode()


def test_intact_brief_on_record_shows_number_status_and_approver(client, brief, pdf):
    html = upload(client, pdf.signed).content.decode()
    assert "Signature intact, document unchanged, on record" in html
    assert brief.number in html and "Approved" in html and "boss" in html
    assert "Test Signer" in html
    event = AuditEvent.objects.get(action=AuditAction.BRIEF_VERIFIED)
    assert event.brief == brief and event.detail["outcome"] == "none"


def test_nothing_else_of_the_brief_is_shown(client, brief, pdf):
    brief.snapshot = {"secret": "budget ceiling 9,999,999"}
    brief.save()
    assert "9,999,999" not in upload(client, pdf.signed).content.decode()


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        (lambda p: flipped(p.signed, len(p.unsigned) // 2), "signed bytes were altered"),
        (lambda p: appended_page(p.signed), "appended after the signature"),
        (lambda p: p.unsigned, "signature stripped"),
    ],
    ids=["byte-flip", "appended-page", "stripped-signature"],
)
def test_tampering_is_named(client, brief, pdf, tamper, expected):
    html = upload(client, tamper(pdf)).content.decode()
    assert expected in html
    assert "on record</h2>" not in html


def test_intact_pdf_not_issued_by_us(client, pdf):
    html = upload(client, pdf.signed).content.decode()
    assert "not in our records" in html


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"", "empty.pdf", "The submitted file is empty."),
        (b"GIF89a not a pdf", "x.pdf", "The selected file is not a PDF."),
    ],
)
def test_bad_uploads_get_a_clear_message(client, data, name, message):
    response = upload(client, data, name)
    assert response.status_code == 422
    assert message in response.content.decode()


def test_missing_file_is_asked_for(client):
    response = client.post(reverse("brief:verify"), {}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 422
    assert "Select the PDF you want to check." in response.content.decode()


def test_verify_brief_command_exit_status(brief, pdf, tmp_path, capsys):
    good = tmp_path / "good.pdf"
    good.write_bytes(pdf.signed)
    call_command("verify_brief", str(good))
    assert f"on record: {brief.number}" in capsys.readouterr().out

    bad = tmp_path / "bad.pdf"
    bad.write_bytes(appended_page(pdf.signed))
    with pytest.raises(CommandError) as failure:
        call_command("verify_brief", str(bad))
    assert failure.value.returncode == 1


def test_verify_brief_command_refuses_intact_but_unknown(pdf, tmp_path):
    path = tmp_path / "unknown.pdf"
    path.write_bytes(pdf.signed)
    with pytest.raises(CommandError):
        call_command("verify_brief", str(path))
