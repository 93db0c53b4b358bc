"""The longest-sample question in real Chromium at 320 px, in English and Chinese: revealed only
for varying sample lengths, a bad figure explained with every entry kept, the answer on the
check-answers page, and no serious axe-core violation in either state."""

import pytest
from django.core.management import call_command
from django.test import override_settings
from playwright.sync_api import expect

from tests.browser.test_wizard_accessibility import violations
from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "browser-pw"
WORDS = {
    "en": {
        "label": "Longest sample (tokens)",
        "too_long": "The longest sample (5,000 tokens) is longer than seq_len (4,096)",
        "empty": "Not stated: estimated from the average, else the sequence length",
    },
    "zh-hans": {
        "label": "最长样本（token）",
        "too_long": "最长样本（5,000 个词元）超过了样本被截断处的 seq_len（4,096）",
        "empty": "未说明：按平均长度估算，否则按序列长度",
    },
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_longest_sample_question_at_320px(page, live_server, login, screenshot, language):
    words = WORDS[language]
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    page.set_viewport_size({"width": 320, "height": 800})
    login("buyer", PASSWORD)
    page.wait_for_url(f"{live_server.url}/")
    page.click("button.start-button")
    page.wait_for_selector(".task-list")
    base = page.url
    page.goto(f"{base}model/")
    page.check("input[name=source][value=preset]")
    page.select_option("#id_preset", "qwen2-5-7b")
    page.check("input[name=method][value=lora]")
    page.click("button[name=continue]")
    page.wait_for_url(f"{base}training/")

    page.fill("#id_seq_len", "4096")
    page.check("input[name=dataset_mode][value=samples]")
    page.fill("#id_samples", "20000")
    page.fill("#id_avg_tokens", "1500")
    page.fill("#id_epochs", "3")
    longest = page.locator("#id_longest_sample")
    expect(longest).to_be_hidden()  # "Not sure": sized at the sequence length
    page.check("input[name=packed][value=yes]")
    expect(longest).to_be_hidden()
    page.check("input[name=packed][value=no]")
    expect(longest).to_be_visible()
    expect(page.locator("label[for=id_longest_sample]")).to_contain_text(words["label"])
    assert violations(page) == []
    longest.scroll_into_view_if_needed()
    screenshot(f"wizard-longest-sample-320-{language}")

    longest.fill("5000")
    page.click("button[name=continue]")
    summary = page.locator(".error-summary")
    expect(summary).to_contain_text(words["label"])
    expect(summary).to_contain_text(words["too_long"])
    expect(longest).to_be_visible()
    expect(longest).to_have_value("5000")
    expect(page.locator("#id_samples")).to_have_value("20000")
    expect(page.locator("input[name=packed][value=no]")).to_be_checked()
    assert violations(page) == []
    screenshot(f"wizard-longest-sample-error-320-{language}")

    longest.fill("")
    page.click("button[name=continue]")
    page.wait_for_url(f"{base}site/")
    page.goto(f"{base}check/")
    expect(page.locator("main")).to_contain_text(words["empty"])
    page.goto(f"{base}training/")
    page.fill("#id_longest_sample", "2048")
    page.click("button[name=continue]")
    page.wait_for_url(f"{base}site/")
    page.goto(f"{base}check/")
    main = page.locator("main")
    expect(main).to_contain_text(words["label"])
    expect(main).to_contain_text("2,048")
    assert violations(page) == []
    screenshot(f"wizard-longest-sample-check-320-{language}")
