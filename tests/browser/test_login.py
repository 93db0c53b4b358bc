import pytest
from django.core.management import call_command
from django.test import override_settings

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(PRODUCTION=False, DEMO_PASSWORD="browser-pw")
def test_buyer_signs_in_and_switches_language(page, live_server, login, screenshot):
    call_command("setup_demo")
    login("buyer", "browser-pw")
    page.wait_for_url(f"{live_server.url}/")
    assert page.locator("h1").inner_text() == "Your assessments"
    screenshot("home-en")

    page.select_option("#language-select", "zh-hans")
    page.click("text=Change language")
    page.wait_for_selector("h1:has-text('我的评估')")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    screenshot("home-zh-hans")


def test_wrong_password_shows_error_summary(page, live_server, login, screenshot):
    login("nobody", "wrong")
    summary = page.locator(".error-summary")
    summary.wait_for()
    assert "did not match" in summary.inner_text()
    assert page.locator("#id_username").input_value() == "nobody"
    screenshot("login-error-en")
