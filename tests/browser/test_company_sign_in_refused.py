"""A company sign-in whose ID token carries another sign-in's nonce, in a real browser: the
page says why it did not complete, in both languages, meets WCAG AA and does not scroll
sideways at 320 px; nobody is signed in."""

from urllib.parse import parse_qs, urlsplit

import pytest

from config.settings.security import oidc_providers
from tests.browser.test_accessibility import review
from tests.support import oidc_provider

pytestmark = pytest.mark.django_db(transaction=True)

REASON = {
    "en": "did not carry the one-time code (nonce) this sign-in sent",
    "zh-hans": "没有带回本次登录发出的一次性随机码（nonce）",
}


@pytest.fixture
def provider(settings):
    provider, server = oidc_provider.start()
    settings.SOCIALACCOUNT_PROVIDERS = oidc_providers(
        provider.issuer, oidc_provider.CLIENT_ID, oidc_provider.CLIENT_SECRET, "Example SSO"
    )
    yield provider
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_wrong_nonce_is_refused_with_the_reason(
    page, live_server, screenshot, provider, language
):
    page.goto(f"{live_server.url}/accounts/login/")
    if language != "en":
        page.select_option("#language-select", language)
        page.click("text=Change language")
        page.wait_for_selector("html[lang=zh-hans]")
    # The button takes the browser to the provider (the stub answers its page with a 404).
    with page.expect_navigation(url=f"{provider.issuer}/authorize**"):
        page.click("form.company-sign-in button")
    query = {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}
    code = provider.code_for(nonce="another-sign-in-s-nonce", sub="emp-5", preferred_username="li")
    callback = urlsplit(query["redirect_uri"]).path
    page.goto(f"{live_server.url}{callback}?code={code}&state={query['state']}")
    assert REASON[language] in page.inner_text("main")
    found = {}
    review(page, "sign-in-refused", found, None)
    assert not found, found
    screenshot(f"sign-in-nonce-refused-{language}")
    page.set_viewport_size({"width": 320, "height": 800})
    screenshot(f"sign-in-nonce-refused-{language}-320")
