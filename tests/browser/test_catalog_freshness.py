"""The admin's freshness filter in real Chromium, in both languages: the offers list narrows to
the prices past their 6-month limit (decision 0110)."""

import pytest
from django.core.management import call_command
from django.test import override_settings

from tests.support.catalog import load_catalog

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "browser-pw"


@pytest.mark.parametrize(
    ("locale", "filter_name", "stale_label"),
    [("en-US", "freshness", "stale: past its freshness limit"), ("zh-CN", "时效", "已过时")],
)
def test_offer_list_filters_stale_prices(browser, live_server, locale, filter_name, stale_label):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD=PASSWORD):
        call_command("setup_demo")
    load_catalog()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", "admin")
        page.fill("#id_password", PASSWORD)
        with page.expect_navigation():
            page.click(
                "button[type=submit]:has-text('Sign in'), button[type=submit]:has-text('登录')"
            )
        page.goto(f"{live_server.url}/admin/vendors/offer/")
        panel = page.locator("#changelist-filter")
        assert filter_name in panel.inner_text()
        page.click(f"#changelist-filter a:has-text('{stale_label}')")
        page.wait_for_url("**freshness=stale**")
        rows = page.locator("#result_list tbody tr")
        text = page.inner_text("#result_list")
        # The seeded 2023 purchase prices are years past the limit.
        assert "market-hgx-a100-buy-2023-05" in text
        assert rows.count() >= 2
        page.screenshot(
            path=f"test-artifacts/screenshots/catalog-admin-freshness-{locale}.png", full_page=True
        )
    finally:
        context.close()
