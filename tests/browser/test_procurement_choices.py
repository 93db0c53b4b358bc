"""The procurement step as a buyer thinks (issue 51 item 6), in Chromium and both languages:
the ways of getting servers as checkboxes, domestic accelerators preferred rather than
required; the check page and the results' decision say so; axe finds nothing at moderate or
above and nothing scrolls sideways at 320 px."""

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings

from advisor.assessments.services import create_answered_assessment
from advisor.demo_scenarios import answers
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_accessibility import review
from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "browser-pw"
WORDS = {
    "en": {
        "rent": "Rent servers by the month",
        "preferred": "Preferred: among equal options",
        "check": "Buy servers and host them in a data center; Rent cloud GPUs by the hour",
        "decision": "Domestic accelerators preferred",
        "continue": "Continue",
        "confirm": "Confirm answers",
    },
    "zh-hans": {
        "rent": "按月租用服务器",
        "preferred": "优先国产（不强制）",
        "check": "购买服务器并托管在数据中心; 按小时租用云 GPU",
        "decision": "优先国产加速卡",
        "continue": "继续",
        "confirm": "确认答案",
    },
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_modes_as_checkboxes_and_prefer_domestic(page, live_server, login, screenshot, language):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    buyer = User.objects.get(username="buyer")
    stored = answers()
    stored.pop("procurement")
    draft = create_answered_assessment(owner=buyer, answers=stored, title="Modes")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", PASSWORD)
    page.wait_for_url(f"{live_server.url}/")
    words = WORDS[language]
    base = f"{live_server.url}/assessments/{draft.pk}/"
    page.goto(f"{base}procurement/")
    modes = page.locator("input[name=modes]")
    assert modes.count() == 3 and all(modes.nth(i).is_checked() for i in range(3))
    page.uncheck("input[name=modes][value=rent]")
    page.check("input[name=domestic][value=preferred]")
    assert words["preferred"] in page.locator("label[for=id_domestic_1]").inner_text()
    page.check("input[name=usage][value=once]")
    found: dict = {}
    review(page, "procurement", found, None)
    screenshot(f"procurement-modes-{language}")
    page.set_viewport_size({"width": 320, "height": 800})
    screenshot(f"procurement-modes-320-{language}")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Nothing ticked: a clear message on the field, and the other answers kept.
    for value in ("buy", "cloud"):
        page.uncheck(f"input[name=modes][value={value}]")
    page.click("button[name=continue]")
    page.locator(".error-summary").wait_for()
    assert page.locator("#id_modes_error, .field-error .error-message").count() >= 1
    assert page.locator("input[name=domestic][value=preferred]").is_checked()
    review(page, "procurement with errors", found, None)
    screenshot(f"procurement-modes-error-{language}")
    for value in ("buy", "cloud"):
        page.check(f"input[name=modes][value={value}]")
    page.click("button[name=continue]")

    page.wait_for_url(f"{base}check/")
    body = page.locator("main").inner_text()
    assert words["check"] in body and words["preferred"] in body
    review(page, "check", found, None)
    screenshot(f"procurement-modes-check-{language}")
    page.click(f"button:has-text('{words['confirm']}')")
    page.wait_for_url(f"{base}results/")
    decision = page.locator("#domestic-preference")
    assert words["decision"] in decision.inner_text()
    rows = page.locator("main").inner_text()
    assert words["rent"] not in rows  # no rental among the options
    review(page, "results", found, None)
    screenshot(f"procurement-modes-results-{language}")
    assert found == {}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_nothing_qualifies_gives_the_combined_answer_and_asks_cloud_providers(
    page, live_server, login, screenshot, language
):
    """ISO/IEC 27001 and MLPS level 3 required: nothing qualifies, no requirement alone lets
    an option through; the page says first which requirements together bring back how many,
    and the questionnaires page lists the cloud providers beside the hosting vendors."""
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    buyer = User.objects.get(username="buyer")
    stored = answers()
    stored["procurement"] = {
        **stored["procurement"],
        "qualifications": ["iso-27001", "mlps-3"],
        "usage": "once",
    }
    draft = create_answered_assessment(owner=buyer, answers=stored, title="Dead end")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", PASSWORD)
    page.wait_for_url(f"{live_server.url}/")
    base = f"{live_server.url}/assessments/{draft.pk}/"
    page.goto(f"{base}check/")
    page.click(f"button:has-text('{WORDS[language]['confirm']}')")
    page.wait_for_url(f"{base}results/")
    combined = page.locator("#combined-requirements")
    words = {"en": "these requirements let", "zh-hans": "同时取消这些要求"}[language]
    assert words in combined.inner_text()
    box = combined.bounding_box()
    assert box["y"] < page.locator("#blocking-requirements").bounding_box()["y"]
    found: dict = {}
    review(page, "results with nothing qualifying", found, None)
    page.locator("#decision").screenshot(path=str(ARTIFACTS / f"combined-{language}.png"))
    page.click("#ask-vendors")
    page.locator("#questionnaire-tracker").wait_for()
    tracker = page.locator("#questionnaire-tracker").inner_text()
    cloud = {"en": "(cloud)", "zh-hans": "（云）"}[language]
    assert cloud in tracker
    review(page, "questionnaires", found, None)
    screenshot(f"questionnaire-tracker-{language}")
    assert found == {}
