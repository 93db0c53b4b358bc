"""The API tokens page in Chromium, both languages and at 320 px: a token is created and shown
once, listed by its prefix, revoked; axe finds nothing on it (tests/browser/test_accessibility.py)."""

import re

import pytest

from advisor.api.models import ApiToken
from advisor.roles import PROCUREMENT_STAFF
from tests.browser.test_accessibility import review
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "en": {"create": "Create token", "revoke": "Revoke", "revoked": "Revoked"},
    "zh-hans": {"create": "创建令牌", "revoke": "撤销", "revoked": "已撤销"},
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_buyer_creates_sees_once_and_revokes_a_token(
    page, live_server, login, screenshot, language
):
    make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    words = WORDS[language]
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", "pw-buyer-1")
    page.wait_for_selector("main h1")
    page.locator("header a[href='/account/api-tokens/']").click()
    page.wait_for_selector("main h1")
    found = {}
    review(page, "tokens, none", found, None)

    page.locator(f"main button:has-text('{words['create']}')").click()
    page.locator(".error-summary").wait_for()
    review(page, "tokens, an error", found, None)
    screenshot(f"api-tokens-error-{language}")

    page.fill("#id_name", "CI sizing")
    page.locator("#id_scope_1").check()
    page.fill("#id_days", "30")
    page.locator(f"main button:has-text('{words['create']}')").click()
    shown = page.locator("code.token-text").inner_text()
    assert re.fullmatch(r"fta_[0-9a-f]{8}_[A-Za-z0-9_-]{43}", shown)
    token = ApiToken.objects.get()
    assert token.scope == "write" and token.prefix in shown
    review(page, "tokens, created", found, None)
    screenshot(f"api-tokens-created-{language}")
    page.set_viewport_size({"width": 320, "height": 800})
    screenshot(f"api-tokens-created-{language}-320")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.goto(page.url)
    assert page.locator("code.token-text").count() == 0  # shown once only
    page.locator(f"main td button:has-text('{words['revoke']}')").click()
    page.wait_for_selector(f"main td:has-text('{words['revoked']}')")
    token.refresh_from_db()
    assert token.revoked_at is not None
    review(page, "tokens, revoked", found, None)
    screenshot(f"api-tokens-revoked-{language}")
    assert not found, found


def test_the_api_reference_opens_for_a_signed_in_user(page, live_server, login, screenshot):
    make_user("buyer", PROCUREMENT_STAFF, password="pw-buyer-1")
    refused = []
    page.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    login("buyer", "pw-buyer-1")
    page.wait_for_selector("main h1")
    page.goto(f"{live_server.url}/api/v1/docs")
    page.wait_for_selector(".opblock-summary-path")
    paths = set(page.locator(".opblock-summary-path").all_inner_texts())
    assert {"/api/v1/size", "/api/v1/recommend", "/api/v1/briefs/{brief_id}/pdf"} <= paths
    assert refused == []  # no error: the schema parses, scripts and styles are its own (CSP)
    screenshot("api-docs-en")
