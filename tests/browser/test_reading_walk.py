"""In Chromium, both languages: home → task list → results (the decision first) → a cloud option →
a whole-server option → comparison, with screenshots; no request answers 404 (the favicon
included), and the Chinese pages carry no English table words or raw codes."""

import re

import pytest
from django.conf import settings

from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

# A brief issued here is one real page (tests/conftest.py one_page_briefs): its PDF is not read.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

# English words of the pages' own tables that must not appear on a Chinese page.
ENGLISH_TABLE_WORDS = re.compile(
    r"\b(total|Parallelism|tokens/s|Time to train|Memory per GPU|not priced|Buy and host)\b"
)
RAW_CODES = re.compile(r"amp-bf16|\bfsdp\b|\bTP \d|r=—|\(—\)")


@pytest.fixture
def world():
    load_catalog()
    buyer = make_user("reader", PROCUREMENT_STAFF, password="pw-reader-1")
    return finished_assessment(buyer)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_reading_walk_in_both_languages(page, live_server, login, screenshot, world, language):
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}]
    )
    login("reader", "pw-reader-1")
    page.wait_for_selector("main h1")
    assert page.locator("link[rel=icon]").count() == 1
    screenshot(f"reading-home-{language}")

    base = f"{live_server.url}/assessments/{world.pk}/results/"
    page.goto(f"{base}?ranking=all")
    page.wait_for_selector("table.options-table")
    # The decision comes first; then one row per choice, each saying how it is obtained.
    assert page.locator("#decision").count() == 1
    assert page.locator("tr[data-mode=cloud]").count() >= 1
    assert page.locator("tr[data-mode=buy]").count() >= 1
    screenshot(f"reading-results-{language}")
    texts = [page.locator("main").inner_text()]

    page.locator("tr[data-mode=cloud] a").first.click()
    page.wait_for_selector("form.issue-form")
    cloud_text = page.locator("main").inner_text()
    # The site rules do not run on a cloud option; findings are named in words, not rule ids.
    assert "SITE-" not in cloud_text and "CLOUD-RESIDENCY" not in cloud_text
    assert (
        "数据境内存储" if language == "zh-hans" else "Data residency in mainland China"
    ) in cloud_text
    screenshot(f"reading-cloud-option-{language}")
    texts.append(cloud_text)

    page.goto(f"{base}?ranking=all")
    page.locator("tr[data-mode=buy] a, tr[data-mode=rent] a").first.click()
    page.wait_for_selector("form.issue-form")
    screenshot(f"reading-server-option-{language}")
    texts.append(page.locator("main").inner_text())

    page.goto(f"{base}?ranking=all")
    boxes = page.locator("input[name=option]")
    for index in range(3):
        boxes.nth(index).check()
    page.locator("main form button[type=submit]").last.click()
    page.wait_for_selector("table.compare-table")
    screenshot(f"reading-compare-{language}")
    texts.append(page.locator("main").inner_text())

    for text in texts:
        assert not RAW_CODES.findall(text), RAW_CODES.findall(text)
        if language == "zh-hans":
            assert not ENGLISH_TABLE_WORDS.findall(text), ENGLISH_TABLE_WORDS.findall(text)
    assert not missing, missing
