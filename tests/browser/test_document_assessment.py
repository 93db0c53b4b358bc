"""An assessment made through the HTTP API, opened from the buyer's list in Chromium: the page
says where it came from and shows the job its document states, in both languages and at 320 px,
meeting WCAG AA (axe); its options open from there."""

import pytest

from advisor.assessments.services import create_document_assessment
from advisor.roles import PROCUREMENT_STAFF
from tests.browser.test_accessibility import review
from tests.support.scenarios import QWEN_7B_LORA_COMPARED
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "en": ("made from a scenario document sent through the API", "See the options"),
    "zh-hans": ("本评估由通过 API 提交的场景文档创建", "查看方案"),
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_document_assessment_shows_its_job(page, live_server, login, screenshot, language):
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    create_document_assessment(owner=buyer, document=QWEN_7B_LORA_COMPARED, title="From CI")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", "pw-buyer-1")
    page.get_by_role("link", name="From CI", exact=True).click()
    notice, options = WORDS[language]
    page.wait_for_selector(f"main .inset:has-text('{notice}')")
    assert page.locator("main .summary-row").count() == 8
    found = {}
    review(page, "document assessment", found, None)
    assert not found, found
    screenshot(f"document-assessment-{language}")
    page.set_viewport_size({"width": 320, "height": 800})
    screenshot(f"document-assessment-{language}-320")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator(f"main a.button:has-text('{options}')").click()
    page.wait_for_selector("main h1")
    assert page.url.endswith("/results/")
