"""In Chromium, both languages, 320 px wide: the results page lists stand-in figures as the
reader's language writes a list (、 in Chinese), the option page marks a catalog source titled in
English as the English original on a Chinese page, and the approver's comment states its limit
and keeps a comment of that length (issue 51 item 9 residue; decision 0148)."""

import pytest

from advisor.assessments.answers import assessment_document
from advisor.brief import generation, services
from advisor.presentation.catalog_text import mostly_latin
from advisor.recommendation.services import assessment_results
from tests.browser.test_wizard_accessibility import violations

# A brief issued here is one real page (tests/conftest.py one_page_briefs): its PDF is not read.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

WORDS = {
    "en": {"limit": "At most 2,000 characters", "approve": "Approve"},
    "zh-hans": {"limit": "最多 2,000 个字符", "approve": "批准"},
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_lists_sources_and_the_comment_limit_read_right(
    page, live_server, login, screenshot, world, language
):
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    page.set_viewport_size({"width": 320, "height": 800})
    login("buyer", "pw-buyer-1")
    page.wait_for_url(f"{live_server.url}/")
    results = f"{live_server.url}/assessments/{world.pk}/results/"

    page.goto(results)
    warning = page.locator("#placeholder-warning").inner_text()
    if language == "zh-hans":
        assert "、" in warning and ", " not in warning
    else:
        assert ", " in warning
    assert violations(page) == []
    screenshot(f"polish-results-stand-ins-320-{language}")

    first = assessment_results(world).recommendation.rankings["recommended"][0]
    page.goto(f"{results}option/{first.key}/")
    # Every cited source or note reads in Chinese, or is marked as the English original.
    cited = page.locator("main cite")
    assert cited.count() > 0
    for index in range(cited.count()):
        quoted = cited.nth(index)
        words = quoted.inner_text()
        around = quoted.locator("xpath=..").inner_text()
        if language == "zh-hans" and mostly_latin(words):
            assert "英文原文" in around, words
    assert "English original" not in page.locator("main").inner_text()
    assert violations(page) == []
    screenshot(f"polish-option-sources-320-{language}")

    brief = services.issue_brief(
        user=world.owner, document=assessment_document(world), language=language, assessment=world
    )
    generation.generate(brief.pk)
    page.context.clear_cookies()
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("boss", "pw-boss-1")
    page.wait_for_url(f"{live_server.url}/**")
    page.goto(f"{live_server.url}/brief/{brief.pk}/")
    comment = page.locator("textarea[name=comment]")
    assert comment.get_attribute("maxlength") == "2000"
    form = page.locator("form:has(textarea[name=comment])").inner_text()
    assert WORDS[language]["limit"] in form
    long_comment = ("同意，按政策执行。" if language == "zh-hans" else "Approved as policy. ") * 250
    comment.fill(long_comment)
    assert len(comment.input_value()) == 2000  # the page takes the whole length it states
    assert violations(page) == []
    comment.scroll_into_view_if_needed()
    screenshot(f"polish-review-comment-320-{language}")
