"""In Chromium, both languages, 320 px wide: the results say how many options were compared and
how many could not be (unpriced, with a link to enter their prices); issuing a brief for an
option other than rank 1 asks why, keeps what was written when refused, and the memo prints it.
"""

import pytest

from advisor.brief.models import Brief
from advisor.recommendation.services import assessment_results
from tests.browser.test_wizard_accessibility import violations
from tests.support.pdf import pdf_text

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "en": {
        "compared": "priced options that qualify",
        "unpriced": "unpriced, so they could not be compared",
        "question": "Why this option rather than rank 1?",
        "error": "This option is not rank 1: say why you chose it",
        "issue": "Issue brief",
        "reason": "Our policy buys servers; rentals are excluded",
        "memo": "The buyer's reason for this choice",
        "unpriced_page": "Unpriced: cannot be compared",
    },
    "zh-hans": {
        "compared": "个已计价的符合条件方案中",
        "unpriced": "满足您的要求但未计价，无法比较",
        "question": "为什么选择此方案而不是排名第一的方案？",
        "error": "该方案不是排名第一的方案：请说明选择理由",
        "issue": "出具简报",
        "reason": "公司政策要求购买服务器，不采用租用",
        "memo": "采购人员选择此方案的理由",
        "unpriced_page": "未计价，无法比较",
    },
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_reason_for_another_option_is_asked_kept_and_printed(
    page, live_server, login, screenshot, world, tmp_path, language
):
    words = WORDS[language]
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    page.set_viewport_size({"width": 320, "height": 800})
    login("buyer", "pw-buyer-1")
    page.wait_for_url(f"{live_server.url}/")
    recommendation = assessment_results(world).recommendation
    results = f"{live_server.url}/assessments/{world.pk}/results/"

    page.goto(results)
    decision = page.locator("#decision").inner_text()
    assert words["compared"] in decision and words["unpriced"] in decision
    assert page.locator("#enter-prices-link").count() == 1
    assert violations(page) == []
    screenshot(f"decision-unpriced-320-{language}")

    page.goto(f"{results}option/{recommendation.unpriced[0].key}/")
    assert words["unpriced_page"] in page.locator("#unpriced").inner_text()
    page.click("#enter-price-link")
    page.wait_for_url(f"{results}figures/**")

    chosen = recommendation.rankings["recommended"][1]
    page.goto(f"{results}option/{chosen.key}/")
    assert words["question"] in page.locator("#issue-reason").inner_text()
    assert violations(page) == []
    page.fill("#brief-reason", "   ")  # blank to the server: refused, with the form kept
    page.click(f"form.issue-form button:has-text('{words['issue']}')")
    page.wait_for_selector("#brief-reason-error")
    assert words["error"] in page.locator("#brief-reason-error").inner_text()
    assert page.locator("#brief-reason").get_attribute("aria-invalid") == "true"
    assert not Brief.objects.exists()
    assert violations(page) == []
    page.locator("#issue-reason").scroll_into_view_if_needed()
    screenshot(f"option-reason-error-320-{language}")

    page.fill("#brief-reason", words["reason"])
    page.click(f"form.issue-form button:has-text('{words['issue']}')")
    download = page.locator("a[href$='/download/']").first
    download.wait_for(timeout=60_000)
    with page.expect_download() as download_info:
        download.click()
    path = tmp_path / "brief.pdf"
    download_info.value.save_as(path)
    memo = " ".join(pdf_text(path, first=1, last=2).split())
    assert words["memo"] in memo and words["reason"] in memo
    assert Brief.objects.get().snapshot["memo"]["reason"] == words["reason"]
    screenshot(f"brief-after-reason-320-{language}")
