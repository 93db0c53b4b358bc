"""The wizard in real Chromium: a full walk, back and Change, errors, live estimate, no JS."""

import re

import pytest
from django.core.management import call_command
from django.test import override_settings
from playwright.sync_api import expect

from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "browser-pw"


@pytest.fixture
def buyer(live_server, login, page):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    login("buyer", PASSWORD)
    page.wait_for_url(f"{live_server.url}/")
    return page


def start_assessment(page):
    page.click("text=Start a new assessment")
    page.wait_for_selector("h1")
    page.click("a:has-text('Model and method')")
    page.wait_for_selector("h1:has-text('Model and method')")


def answer_model(page, *, method="LoRA"):
    page.check("label:has-text('Choose a model from the list')")
    page.fill("#preset-search", "Qwen2.5 7B")
    # htmx narrowed the list (a locator, not wait_for_function: the CSP forbids eval)
    expect(page.locator("#id_preset option").nth(5)).to_have_count(0)
    page.select_option("#id_preset", "qwen2-5-7b")
    page.check(f"input[name=method] + label:text-is('{method}')")


def answer_training(page):
    page.fill("#id_seq_len", "4096")
    page.check("input[name=dataset_mode][value=samples]")
    page.fill("#id_samples", "20000")
    page.fill("#id_avg_tokens", "1500")
    page.fill("#id_epochs", "3")


def test_full_walk_back_and_change(buyer, live_server, screenshot):
    page = buyer
    start_assessment(page)
    assert page.locator(".back-link").count() == 1
    answer_model(page)
    page.locator("#estimate-panel").get_by_text("H100 SXM5 80GB").first.wait_for()
    screenshot("wizard-model-en")
    page.click("button[name=continue]")

    page.wait_for_selector("h1:has-text('Training')")
    answer_training(page)
    assert page.locator("#id_framework_0").is_checked()  # "Not sure" until the buyer says
    page.check("input[name=framework] + label:text-is('torchtune')")
    screenshot("wizard-training-en")
    # Back goes to the model step with its answers kept.
    page.click(".back-link")
    page.wait_for_selector("h1:has-text('Model and method')")
    assert page.locator("#id_preset").input_value() == "qwen2-5-7b"
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Training')")
    answer_training(page)
    page.check("input[name=framework] + label:text-is('torchtune')")
    assert page.locator("#id_packed_0").is_checked()  # "Not sure" until the buyer says
    page.check("input[name=packed] + label:has-text('Packed:')")
    page.click("button[name=continue]")

    page.wait_for_selector("h1:has-text('Site')")
    page.check("label:has-text('A data center from the catalog')")
    page.select_option("#id_data_center", "example-guian")
    screenshot("wizard-site-en")
    page.click("button[name=continue]")

    page.wait_for_selector("h1:has-text('Procurement')")
    page.uncheck("input[name=modes][value=rent]")  # buy only
    page.uncheck("input[name=modes][value=cloud]")
    page.fill("#id_budget_cny", "3000000")
    page.check("label:has-text('ISO/IEC 27001')")
    screenshot("wizard-procurement-en")
    page.click("button[name=continue]")

    page.wait_for_selector("h1:has-text('Check your answers')")
    body = page.locator("main").inner_text()
    assert "Qwen2.5 7B" in body
    assert "20,000" in body
    assert "¥3,000,000" in body
    framework = page.locator(".summary-row", has=page.locator("dt:text-is('Training framework')"))
    expect(framework.locator("dd").first).to_have_text("torchtune")
    lengths = page.locator(".summary-row", has=page.locator("dt:text-is('Sample lengths')"))
    expect(lengths.locator("dd").first).to_have_text(
        "Packed: every sequence is filled to the full length"
    )
    screenshot("wizard-check-en")

    # Change the sequence length from the check page and come straight back to it.
    page.click("a[href*='/training/?next=check#id_seq_len']")
    page.wait_for_selector("h1:has-text('Training')")
    page.fill("#id_seq_len", "2048")
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Check your answers')")
    assert "2,048" in page.locator("main").inner_text()
    # The framework's Change link lands on its first option.
    page.click("a[href*='/training/?next=check#id_framework_0']")
    page.wait_for_selector("h1:has-text('Training')")
    assert page.locator("input[name=framework][value=torchtune]").is_checked()
    page.check("input[name=framework] + label:has-text('Megatron-LM')")
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Check your answers')")
    assert "Megatron-LM (NeMo, MindSpeed, Megatron-SWIFT)" in page.locator("main").inner_text()

    page.click("text=Confirm answers")
    page.wait_for_selector("h1:has-text('Options')")
    assert "options considered" in page.locator("main").inner_text()
    screenshot("wizard-results-en")
    page.click("text=Back to your answers")
    page.goto(page.url.split("/assessments/")[0] + "/")
    assert "Answers confirmed" in page.locator("table.assessments").inner_text()
    screenshot("wizard-home-en")


def test_validation_errors_focus_the_summary_and_link_to_fields(buyer, screenshot):
    page = buyer
    start_assessment(page)
    answer_model(page, method="QLoRA")
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Training')")
    page.fill("#id_seq_len", "-1")
    page.check("label:has-text('Total tokens')")
    page.fill("#id_total_tokens", "lots")
    page.check("input[name=precision][value=fp32]")
    page.click("button[name=continue]")

    summary = page.locator(".error-summary")
    summary.wait_for()
    assert page.evaluate("document.activeElement.classList.contains('error-summary')")
    text = summary.inner_text()
    assert "QLoRA stores the frozen model in 4 or 8 bits" in text
    assert page.locator("#id_total_tokens").input_value() == "lots"
    screenshot("wizard-errors-en")
    page.click(".error-summary a[href='#id_seq_len']")
    assert page.evaluate("document.activeElement.id") == "id_seq_len"


def test_live_estimate_updates_while_editing(buyer, screenshot):
    page = buyer
    start_assessment(page)
    answer_model(page)
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Training')")
    answer_training(page)
    lead = page.locator(".estimate-lead")
    lead.wait_for()
    expect_text(lead, r"^At least 1 GPU:")
    page.click(".back-link")
    page.wait_for_selector("h1:has-text('Model and method')")
    page.check("input[name=method] + label:text-is('Full fine-tuning')")
    expect_text(page.locator(".estimate-lead"), r"^At least [2-9] GPUs")
    focused = page.evaluate("document.activeElement.name")
    assert focused == "method"  # the swap leaves focus where the user is
    screenshot("wizard-estimate-full-en")


def expect_text(locator, pattern):
    from playwright.sync_api import expect

    # An upper bound for a busy machine (the estimate is computed on the server), not a wait.
    expect(locator).to_have_text(re.compile(pattern), timeout=30_000)


def test_without_javascript(browser, live_server, screenshot):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", "buyer")
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        page.click("text=Start a new assessment")
        page.click("a:has-text('Model and method')")
        assert not page.locator("#preset-search").is_visible()  # search needs JavaScript
        page.check("label:has-text('Choose a model from the list')")
        page.select_option("#id_preset", "qwen2-5-7b")
        page.check("input[name=method][value=lora]")
        page.click("button[name=continue]")
        page.wait_for_selector("h1:has-text('Training')")
        answer_training(page)
        page.click("button[name=preview]")  # the estimate without JavaScript
        page.wait_for_selector(".estimate-lead")
        assert page.locator("#id_samples").input_value() == "20000"
        screenshot_of(page, "wizard-training-nojs-en")
        page.click("button[name=save_and_exit]")
        page.wait_for_selector("h1:has-text('Your assessments')")
        assert "Your answers are saved" in page.locator(".messages").inner_text()
    finally:
        context.close()


def screenshot_of(page, name):
    from tests.browser.conftest import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_pages_in_chinese(buyer, live_server, screenshot):
    page = buyer
    page.select_option("#language-select", "zh-hans")
    page.click("button:has-text('Change language')")
    page.wait_for_selector("h1:has-text('我的评估')")
    page.click("button.start-button")
    page.wait_for_selector(".task-list")
    screenshot("wizard-tasks-zh")
    page.click(".task-list a >> nth=0")
    page.wait_for_selector("#id_source_0")
    page.check("#id_source_0")
    page.select_option("#id_preset", "qwen2-5-7b")
    page.check("input[name=method][value=lora]")
    page.locator(".estimate-lead").wait_for()
    screenshot("wizard-model-zh")
    page.click("button[name=continue]")
    page.wait_for_selector("#id_seq_len")
    page.click("button[name=continue]")  # empty: errors in Chinese
    page.locator(".error-summary").wait_for()
    screenshot("wizard-errors-zh")
    answer_training(page)
    page.check("input[name=framework] + label:text-is('不确定')")
    screenshot("wizard-training-zh")
    page.click("button[name=continue]")
    page.wait_for_selector("#id_mode_0")
    page.check("input[name=mode][value=own]")
    page.fill("#id_room_name", "自建机房")
    page.select_option("#id_province", "guizhou")
    page.fill("#id_max_kw_per_rack", "12")
    page.fill("#id_pue", "1.25")
    page.fill("#id_power_feeds", "2")
    screenshot("wizard-site-zh")
    page.click("button[name=continue]")
    page.wait_for_selector("#id_years")
    page.click("button[name=continue]")
    page.wait_for_selector(".summary-list")
    screenshot("wizard-check-zh")


def test_two_tabs_never_silently_overwrite_each_other(buyer, screenshot):
    page = buyer
    start_assessment(page)
    answer_model(page)
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Training')")
    training_url = page.url
    other = page.context.new_page()  # a second tab on the same step
    other.goto(training_url)
    answer_training(page)
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Site')")

    answer_training(other)
    other.fill("#id_seq_len", "8192")
    other.click("button[name=continue]")
    summary = other.locator(".error-summary")
    summary.wait_for()
    assert "changed in another tab or window" in summary.inner_text()
    assert other.locator("#id_seq_len").input_value() == "8192"  # kept, not saved
    screenshot_of(other, "wizard-stale-en")
    other.click("button[name=continue]")  # saving again, knowingly, goes through
    other.wait_for_selector("h1:has-text('Site')")
    other.close()


def test_upload_a_config_json_and_a_broken_one(buyer, tmp_path, screenshot):
    page = buyer
    start_assessment(page)
    page.check("input[name=source][value=upload]")
    broken = tmp_path / "config.json"
    broken.write_text('{"hidden_size": 4096,')
    page.set_input_files("#id_config_file", str(broken))
    page.check("input[name=method][value=qlora]")
    page.click("button[name=continue]")
    summary = page.locator(".error-summary")
    summary.wait_for()
    assert "not valid JSON" in summary.inner_text()
    assert page.locator("#id_config_file").is_visible()  # the upload part stays revealed
    screenshot("wizard-upload-error-en")

    good = tmp_path / "good" / "config.json"
    good.parent.mkdir()
    good.write_text(
        '{"_name_or_path": "Qwen/Qwen2.5-14B", "hidden_size": 5120, "intermediate_size": 13824,'
        ' "num_attention_heads": 40, "num_hidden_layers": 48, "num_key_value_heads": 8,'
        ' "vocab_size": 152064, "max_position_embeddings": 32768, "tie_word_embeddings": false}'
    )
    page.set_input_files("#id_config_file", str(good))
    page.locator(".estimate-lead").wait_for()  # htmx sent the file with the estimate request
    page.click("button[name=continue]")
    page.wait_for_selector("h1:has-text('Training')")
    page.click(".back-link")
    page.wait_for_selector("h1:has-text('Model and method')")
    assert "Read Qwen/Qwen2.5-14B from config.json" in page.locator("main").inner_text()
    screenshot("wizard-upload-read-en")
