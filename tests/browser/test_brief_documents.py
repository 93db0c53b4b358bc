"""In Chromium: the brief page lists the documents made from its snapshot (price comparison
sheet, technical specification), downloads them, and shows each in its audit trail; both
languages, 1280 and 320 px wide (screenshots under test-artifacts/screenshots/)."""

import hashlib

import pytest
from openpyxl import load_workbook

from advisor.assessments.answers import assessment_document
from advisor.brief import generation, services
from advisor.brief.models import BriefStatus
from advisor.recommendation.services import assessment_results
from tests.browser.conftest import ARTIFACTS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]


@pytest.fixture
def brief(world):
    option = assessment_results(world).recommendation.rankings["recommended"][0]
    issued = services.issue_brief(
        user=world.owner, document=assessment_document(world), option_key=option.key,
        language="en", assessment=world,
    )  # fmt: skip
    issued = generation.generate(issued.pk)
    assert issued.status == BriefStatus.AWAITING_APPROVAL
    return issued


@pytest.mark.parametrize(("locale", "words"), [("en-US", "en"), ("zh-CN", "zh")])
@pytest.mark.parametrize("width", [1280, 320])
def test_brief_page_lists_downloads_and_records_documents(
    browser, live_server, brief, tmp_path, locale, words, width
):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=locale)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", "buyer")
        page.fill("#id_password", "pw-buyer-1")
        with page.expect_navigation():
            page.click(
                "button[type=submit]:has-text('Sign in'), button[type=submit]:has-text('登录')"
            )
        page.goto(f"{live_server.url}/brief/{brief.pk}/")
        links = page.locator("ul.brief-documents a")
        assert links.count() == 3
        with page.expect_download() as download_info:
            links.first.click()
        path = tmp_path / "sheet.xlsx"
        download_info.value.save_as(path)
        assert load_workbook(path).sheetnames
        page.reload()
        table = page.locator("table.documents-made")
        assert hashlib.sha256(path.read_bytes()).hexdigest() in table.inner_text()
        # Nothing sticks out of the page at 320 px but the scrollable table region.
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(ARTIFACTS / f"brief-documents-{words}-{width}.png"), full_page=True
        )
    finally:
        context.close()
