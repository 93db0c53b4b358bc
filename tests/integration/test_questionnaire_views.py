"""Questionnaire pages: download for an option, upload, preview, apply; only the owner."""

import io

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from advisor.questionnaire.models import AnswerSheet
from advisor.questionnaire.xlsx import HEADERS
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
GUIYANG_SITE = {"mode": "catalog", "data_center": "jianmi-guiyang"}


@pytest.fixture(autouse=True)
def seeded():
    load_catalog()


@pytest.fixture
def buyer(client):
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


@pytest.fixture
def assessment(buyer):
    return finished_assessment(buyer, site=GUIYANG_SITE)


def top(assessment):
    options = assessment_results(assessment).recommendation.options
    return next(o for o in options if not o.is_cloud)  # hosted at a data center


def download(client, assessment, key, kind, language="en"):
    url = reverse("questionnaire:download", args=(assessment.pk, key, kind))
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language)


def filled(data: bytes, answers: dict) -> bytes:
    book = openpyxl.load_workbook(io.BytesIO(data))
    sheet = book["questionnaire"]
    for row in range(3, sheet.max_row + 1):
        name = sheet.cell(row, 1).value.rsplit(":", 1)[1]
        if name in answers:
            sheet.cell(row, HEADERS.index("answer") + 1).value = answers[name]
            sheet.cell(row, HEADERS.index("evidence") + 1).value = f"doc {name}"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def upload(client, assessment, data, option=""):
    url = reverse("questionnaire:upload", args=(assessment.pk,))
    file = SimpleUploadedFile("answers.xlsx", data)
    return client.post(url, {"file": file, "option": option}, HTTP_ACCEPT_LANGUAGE="en")


@pytest.mark.parametrize(("language", "header"), [("en", "Your answer"), ("zh-hans", "您的回答")])
def test_option_page_offers_the_questionnaire_in_the_readers_language(
    client, assessment, language, header
):
    option = top(assessment)
    page = client.get(reverse("results:option", args=(assessment.pk, option.key)),
                      HTTP_ACCEPT_LANGUAGE=language)  # fmt: skip
    assert page.status_code == 200
    assert (
        reverse("questionnaire:download", args=(assessment.pk, option.key, "xlsx"))
        in page.content.decode()
    )
    response = download(client, assessment, option.key, "xlsx", language)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    sheet = openpyxl.load_workbook(io.BytesIO(response.content))["questionnaire"]
    assert sheet.cell(2, HEADERS.index("answer") + 1).value == header
    pdf = download(client, assessment, option.key, "pdf", language)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_upload_preview_then_apply(client, assessment):
    option = top(assessment)
    blank = download(client, assessment, option.key, "xlsx").content
    data = filled(blank, {"ups_minutes": 30, "generator_start_s": "soon", "onsite_24x7": "yes"})
    response = upload(client, assessment, data, option.key)
    sheet = AnswerSheet.objects.get(assessment=assessment)
    assert response.status_code == 302
    assert response["Location"] == reverse("questionnaire:preview", args=(assessment.pk, sheet.pk))
    with sheet.file.open("rb") as kept:
        assert kept.read() == data  # the uploaded file is kept as it came

    preview = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en")
    html = preview.content.decode()
    assert preview.status_code == 200
    assert [(r.column, r.header) for r in preview.context["result"].refusals] == [("G", "answer")]
    assert "must be a number" in html
    # Who each answer is about, by name (issue 51): the data center, not its key.
    assert "<td>jianmi-guiyang</td>" not in html
    assert preview.context["names"]["jianmi-guiyang"] is not None
    changes = {c.rule_id: (str(c.before), str(c.after)) for c in preview.context["changes"]}
    assert changes["SITE-UPS"] == ("unknown", "pass")
    assert changes["SITE-STAFF-24X7"] == ("unknown", "pass")
    assessment.refresh_from_db()
    assert "declared" not in assessment.answers, "nothing is applied before the buyer confirms"

    applied = client.post(response["Location"], {"version": assessment.version})
    assert applied.status_code == 302
    assessment.refresh_from_db()
    assert assessment.answers["declared"]["jianmi-guiyang"]["ups_minutes"]["value"] == 30.0
    assert AnswerSheet.objects.get(pk=sheet.pk).applied_at is not None
    page = client.get(applied["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "declared by the vendor" in page
    ups = next(f for f in top(assessment).compliance.findings if f.rule_id == "SITE-UPS")
    assert ups.status == "pass"
    again = download(client, assessment, option.key, "xlsx").content
    ids = [
        r[0]
        for r in openpyxl.load_workbook(io.BytesIO(again))["questionnaire"].iter_rows(
            min_row=3, values_only=True
        )
    ]
    assert "jianmi-guiyang:ups_minutes" not in ids, "an answered question is not asked again"


@pytest.mark.parametrize(
    ("data", "why"),
    [(b"not a workbook", "not an XLSX workbook"), (b"0" * (2 * 2**20 + 1), "larger than 2 MiB")],
)
def test_a_bad_upload_is_refused_with_a_plain_message(client, assessment, data, why):
    response = upload(client, assessment, data)
    assert response.status_code == 400
    assert why in response.content.decode()
    assert not AnswerSheet.objects.exists()


def test_only_the_owner_may_download_upload_or_preview(client, assessment):
    option = top(assessment)
    blank = download(client, assessment, option.key, "xlsx").content
    upload(client, assessment, blank)
    sheet = AnswerSheet.objects.get()
    other = make_user("other", PROCUREMENT_STAFF, password="pw")
    client.force_login(other)
    assert download(client, assessment, option.key, "xlsx").status_code == 404
    assert upload(client, assessment, blank).status_code == 404
    preview = reverse("questionnaire:preview", args=(assessment.pk, sheet.pk))
    assert client.get(preview).status_code == 404
    assert client.post(preview, {"version": assessment.version}).status_code == 404
    assert AnswerSheet.objects.count() == 1
