"""The sign-in page with every company sign-in on (OpenID Connect, SAML, DingTalk, Feishu): one button
each, in both languages, meeting WCAG AA and not scrolling sideways at 320 px."""

import pytest

from config.settings.security import app_providers, oidc_providers, saml_providers
from tests.browser.test_accessibility import review

pytestmark = pytest.mark.django_db(transaction=True)

BUTTONS = {
    "en": [
        "Sign in with Example SSO",
        "Sign in with Example SAML",
        "Sign in with DingTalk",
        "Sign in with Feishu",
    ],
    "zh-hans": ["使用 Example SSO 登录", "使用 Example SAML 登录", "使用钉钉登录", "使用飞书登录"],
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_company_button_on_the_sign_in_page(
    page, live_server, screenshot, settings, language
):
    settings.SOCIALACCOUNT_PROVIDERS = {
        **oidc_providers("http://127.0.0.1:9", "c", "s", "Example SSO"),
        **saml_providers("urn:idp", "https://idp.example.cn/sso", "CERT", "Example SAML"),
        **app_providers("dingtalk", "ding-client", "s"),
        **app_providers("feishu", "cli_feishu", "s"),
    }
    page.goto(f"{live_server.url}/accounts/login/")
    if language != "en":
        page.select_option("#language-select", language)
        page.click("text=Change language")
        page.wait_for_selector("html[lang=zh-hans]")
    buttons = page.locator("form.company-sign-in button").all_inner_texts()
    assert sorted(b.strip() for b in buttons) == sorted(BUTTONS[language])
    found = {}
    review(page, "sign-in", found, None)
    assert not found, found
    screenshot(f"sign-in-company-{language}")
    page.set_viewport_size({"width": 320, "height": 800})
    screenshot(f"sign-in-company-{language}-320")
