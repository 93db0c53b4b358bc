"""Issue 29's head size and sliding window in real Chromium at 320 px: a config.json upload
fills them, the custom form asks them with their defaults said, and the check-answers page
lists them in English and Chinese."""

import json
import re

import pytest

from tests.browser.test_wizard import buyer, start_assessment  # noqa: F401 (fixture)
from tests.integration.test_wizard_attention_fields import GEMMA2_NF4

pytestmark = pytest.mark.django_db(transaction=True)


def check_page_url(page) -> str:
    """The check-answers page of the assessment the page is on (…/<pk>/check/)."""
    match = re.match(r"^(.*?/\d+/)", page.url)
    assert match, page.url
    return match.group(1) + "check/"


def test_upload_fills_the_head_size_and_window_at_320px(buyer, tmp_path, screenshot):  # noqa: F811
    page = buyer
    page.set_viewport_size({"width": 320, "height": 800})
    start_assessment(page)
    page.check("input[name=source][value=custom]")
    screenshot("wizard-model-custom-320-en")
    page.check("input[name=source][value=upload]")
    config = tmp_path / "config.json"
    config.write_text(json.dumps(GEMMA2_NF4))
    page.set_input_files("#id_config_file", str(config))
    page.check("input[name=method][value=qlora]")
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Training')")
    page.fill("#id_seq_len", "2048")
    page.check("input[name=dataset_mode][value=samples]")
    page.fill("#id_samples", "20000")
    page.fill("#id_avg_tokens", "1500")
    page.fill("#id_epochs", "1")
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Site')")
    page.goto(check_page_url(page))
    page.wait_for_selector("h1:has-text('Check your answers')")
    body = page.locator("main").inner_text()
    assert "Attention head size" in body and "256" in body
    assert "Sliding attention window" in body and "Layers that use the window" in body
    screenshot("wizard-check-window-320-en")
    page.select_option("#language-select", "zh-hans")
    page.click("button:has-text('Change language')")
    page.wait_for_selector("h1")
    page.goto(check_page_url(page))
    body = page.locator("main").inner_text()
    assert "注意力头维度" in body and "滑动注意力窗口" in body
    screenshot("wizard-check-window-320-zh")
