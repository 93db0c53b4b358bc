"""In Chromium, both languages: the catalog changes after the options were computed; the pages
keep them, say so, and compute them again on request (docs/decisions/0033)."""

import pytest
from django.conf import settings
from django.utils.timezone import localtime

from advisor.recommendation import services
from advisor.recommendation.models import StoredRecommendation
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from vendors.models import DataCenter

# A brief issued here is one real page (tests/conftest.py one_page_briefs): its PDF is not read.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

TEXT = {
    "en": {
        "notice": "The catalog has changed since these options were computed",
        "button": "Compute the options again with the current catalog",
        "done": "The options were computed again with the current catalog.",
        "current": "with the current catalog",
    },
    "zh-hans": {
        "notice": "计算这些方案之后，目录已有变更",
        "button": "按当前目录重新计算方案",
        "done": "已按当前目录重新计算方案。",
        "current": "按当前目录计算",
    },
}


@pytest.fixture
def world():
    load_catalog()
    services._LOCAL_RUNS.clear()
    buyer = make_user("stored-buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    return finished_assessment(buyer)


@pytest.mark.parametrize("language", list(TEXT))
def test_a_changed_catalog_is_said_and_the_options_computed_again_on_request(
    page, live_server, login, screenshot, world, language
):
    text = TEXT[language]
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}]
    )
    login("stored-buyer", "pw-buyer-1")
    page.wait_for_url(f"{live_server.url}/")
    results = f"{live_server.url}/assessments/{world.pk}/results/"
    page.goto(results)
    page.wait_for_selector("table.options-table")
    assert text["current"] in page.locator("#computed-at").inner_text()
    assert page.locator("#catalog-changed").count() == 0
    first = StoredRecommendation.objects.get(assessment=world)

    DataCenter.objects.order_by("key").first().save()  # an admin edits the catalog

    page.goto(results)
    notice = page.locator("#catalog-changed")
    assert text["notice"] in notice.inner_text()
    assert localtime(first.computed_at).strftime("%Y-%m-%d %H:%M") in notice.inner_text()
    screenshot(f"stored-catalog-changed-{language}")
    page.locator("table.options-table tbody a").first.click()
    page.wait_for_selector("form.issue-form")
    assert text["notice"] in page.locator("#catalog-changed").inner_text()
    assert StoredRecommendation.objects.get(assessment=world).token == first.token

    page.click(f"#recompute:has-text('{text['button']}')")
    page.wait_for_url(results)
    assert page.locator("#catalog-changed").count() == 0
    assert text["done"] in page.locator(".messages").inner_text()
    assert text["current"] in page.locator("#computed-at").inner_text()
    screenshot(f"stored-recomputed-{language}")
    assert StoredRecommendation.objects.get(assessment=world).token != first.token
