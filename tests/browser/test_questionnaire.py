"""In Chromium, both languages: download the vendor questionnaire, upload a filled copy,
preview, apply, see the findings change and the brief's declared facts and open questions."""

import io
import subprocess

import openpyxl
import pytest
from django.test import override_settings

from advisor.assessments.answers import assessment_document
from advisor.brief import services as brief_services
from advisor.questionnaire.xlsx import HEADERS
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.browser.conftest import ARTIFACTS
from tests.integration.test_questionnaire import VALID_ANSWERS
from tests.support.assessments import finished_assessment
from tests.support.briefs import signing_settings
from tests.support.catalog import load_catalog
from tests.support.pdf import pdf_bytes, pdf_text
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = {
    "en": {
        "locale": "en-US",
        "upload": "Upload and preview",
        "apply": "Apply these answers as declared facts",
        "declared": "declared by the vendor",
        "section": "Open questions for the vendor",
        "applied": "The vendor's answers are applied to this assessment.",
    },
    "zh-hans": {
        "locale": "zh-CN",
        "upload": "上传并预览",
        "apply": "将这些答复作为申报事实采用",
        "declared": "供应商申报",
        "section": "向供应商提出的待答问题",
        "applied": "供应商答复已用于本评估。",
    },
}


@pytest.fixture
def world(tmp_path, pki_dir):
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    assessment = finished_assessment(
        buyer, site={"mode": "catalog", "data_center": "jianmi-guiyang"}
    )
    with override_settings(BRIEF_SIGNING=signing_settings(pki_dir), MEDIA_ROOT=tmp_path / "media"):
        yield assessment


def fill(path, answers):
    book = openpyxl.load_workbook(path)
    sheet = book["questionnaire"]
    for row in range(3, sheet.max_row + 1):
        name = sheet.cell(row, 1).value.rsplit(":", 1)[1]
        if name in answers:
            sheet.cell(row, HEADERS.index("answer") + 1).value = answers[name]
            sheet.cell(row, HEADERS.index("evidence") + 1).value = f"doc-{name}"
    out = io.BytesIO()
    book.save(out)
    path.write_bytes(out.getvalue())


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_questionnaire_loop_in_the_browser(
    browser, live_server, world, tmp_path, language, django_capture_on_commit_callbacks
):
    capture_on_commit = django_capture_on_commit_callbacks
    words = TEXT[language]
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale=words["locale"], accept_downloads=True
    )
    page = context.new_page()
    page.set_default_timeout(60_000)

    def shot(name):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{language}.png"), full_page=True)

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "buyer")
    page.fill("#id_password", "pw-buyer-1")
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    options = assessment_results(world).recommendation.options
    option = next(o for o in options if not o.is_cloud)  # hosted at a data center
    page.goto(f"{live_server.url}/assessments/{world.pk}/results/option/{option.key}/")
    page.wait_for_selector("#questionnaire")
    unknown_before = page.locator("td .status-unknown").count()
    assert unknown_before > 10
    page.locator("#questionnaire").screenshot(
        path=str(ARTIFACTS / f"questionnaire-option-{language}.png")
    )

    with page.expect_download() as info:
        page.click("#questionnaire-xlsx")
    blank = tmp_path / info.value.suggested_filename
    info.value.save_as(blank)
    assert blank.suffix == ".xlsx"
    with page.expect_download() as letter:
        page.click("#questionnaire-pdf")
    assert letter.value.suggested_filename.endswith(".pdf")

    answers = {**VALID_ANSWERS, "generator_start_s": "fast"}  # one wrong answer, refused
    fill(blank, answers)
    page.set_input_files("#id_file", str(blank))
    page.click(f"text={words['upload']}")
    page.wait_for_selector("#answers")
    refused = page.locator("#refused-cells tbody tr")
    assert refused.count() == 1
    assert "G (answer)" in refused.first.inner_text()
    assert page.locator("#finding-changes tbody tr").count() > 5
    shot("questionnaire-preview")

    page.click(f"text={words['apply']}")
    page.wait_for_selector("#questionnaire")
    assert words["applied"] in page.content()
    assert page.locator(".tag.declared").count() > 10
    assert page.locator("td .status-unknown").count() < unknown_before
    assert words["declared"] in page.locator("table.findings").first.inner_text()
    shot("questionnaire-applied")

    context.close()

    # The brief of this option, issued as the page's button does (the same service, with the
    # assessment's document, now holding the declared facts): its "open questions" page.
    world.refresh_from_db()
    with capture_on_commit(execute=True):
        brief = brief_services.issue_brief(
            user=world.owner,
            document=assessment_document(world),
            option_key=option.key,
            language=language,
            assessment=world,
            inputs=world.answers,
        )
    brief.refresh_from_db()
    assert brief.ready, brief.failure
    pdf = tmp_path / "brief.pdf"
    pdf.write_bytes(pdf_bytes(brief))
    pages = pdf_text(pdf, layout=True).split("\f")
    number = next(i for i, text in enumerate(pages, start=1) if words["section"] in text)
    assert "doc-ups_minutes" in pages[number - 1]
    subprocess.run(
        ["pdftoppm", "-png", "-r", "60", "-f", str(number), "-l", str(number), str(pdf),
         str(ARTIFACTS / f"questionnaire-brief-{language}")],
        check=True,
    )  # fmt: skip
