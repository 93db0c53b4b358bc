"""The webhooks page in Chromium, both languages and at 320 px (decision 0143): a user in the
integration role, not a superuser, adds an endpoint (the secret shown once), sends a test event
that a receiver verifies with ``standardwebhooks`` and sees it delivered in the log, then
deactivates the endpoint; axe finds nothing on any state of the page."""

import re

import pytest
from standardwebhooks.webhooks import Webhook

from advisor.roles import INTEGRATION
from advisor.webhooks.models import WebhookEndpoint, WebhookMessage
from tests.browser.test_accessibility import review
from tests.support import webhook_receiver
from tests.support.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "en": {
        "add": "Add an endpoint",
        "submit": "Add endpoint",
        "go": "Go to the endpoint",
        "test": "Send a test event",
        "delivered": "Delivered",
        "change": "Change or deactivate",
        "save": "Save",
        "inactive": "Inactive",
        "error": "There is a problem",
        "all": "All endpoints",
    },
    "zh-hans": {
        "add": "添加端点",
        "submit": "添加端点",
        "go": "前往该端点",
        "test": "发送测试事件",
        "delivered": "已送达",
        "change": "修改或停用",
        "save": "保存",
        "inactive": "已停用",
        "error": "出现问题",
        "all": "全部端点",
    },
}


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]  # the receiver listens on loopback
    receiver, server = webhook_receiver.start("")
    yield receiver
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_integration_user_adds_tests_and_deactivates_an_endpoint(
    page, live_server, login, screenshot, receiver, language
):
    user = make_user("integrator", INTEGRATION, password="pw-integration-1")
    assert not user.is_superuser and not user.is_staff
    words = WORDS[language]
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("integrator", "pw-integration-1")
    page.wait_for_selector("main h1")
    assert page.url.endswith("/integration/webhooks/")  # where an integration user lands
    found = {}
    review(page, "webhooks, none", found, None)
    screenshot(f"webhooks-list-empty-{language}")

    page.locator(f"main a:has-text('{words['add']}')").click()
    page.wait_for_selector("main h1")
    page.locator(f"main button:has-text('{words['submit']}')").click()
    page.locator(".error-summary").wait_for()
    assert words["error"] in page.locator(".error-summary").inner_text()
    review(page, "webhooks, an error", found, None)
    screenshot(f"webhooks-add-error-{language}")

    page.fill("#id_name", "Purchase requests")
    page.fill("#id_url", receiver.url)
    page.locator("input[name=events][value='brief.issued']").check()
    page.locator("input[name=events][value='brief.approved']").check()
    page.locator(f"main button:has-text('{words['submit']}')").click()
    shown = page.locator("code.token-text").inner_text()
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{32}", shown)
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.secret == shown and endpoint.events == ["brief.issued", "brief.approved"]
    review(page, "webhooks, added", found, None)
    screenshot(f"webhooks-added-{language}")
    page.set_viewport_size({"width": 320, "height": 800})
    screenshot(f"webhooks-added-{language}-320")
    page.set_viewport_size({"width": 1280, "height": 900})

    receiver.secret = shown
    page.locator(f"main a:has-text('{words['go']}')").click()
    page.wait_for_selector("main h1")
    assert page.locator("code.token-text").count() == 0  # shown once only
    page.locator(f"main button:has-text('{words['test']}')").click()
    page.wait_for_selector(f"main td:has-text('{words['delivered']}')")
    (received,) = receiver.received
    event = Webhook(shown).verify(received.body, received.headers)
    assert event["type"] == "webhook.test" and event["data"]["requested_by"] == "integrator"
    assert WebhookMessage.objects.get().status == "delivered"
    review(page, "webhooks, the log", found, None)
    screenshot(f"webhooks-log-{language}")
    page.set_viewport_size({"width": 320, "height": 800})
    screenshot(f"webhooks-log-{language}-320")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.locator(f"main a:has-text('{words['change']}')").click()
    page.wait_for_selector("main h1")
    review(page, "webhooks, change", found, None)
    page.locator("#id_active").uncheck()
    page.locator(f"main button:has-text('{words['save']}')").click()
    page.wait_for_selector(f"main dd:has-text('{words['inactive']}')")
    assert page.locator(f"main button:has-text('{words['test']}')").count() == 0
    endpoint.refresh_from_db()
    assert endpoint.active is False
    review(page, "webhooks, deactivated", found, None)
    screenshot(f"webhooks-deactivated-{language}")

    page.locator(f"main a:has-text('{words['all']}')").click()
    page.wait_for_selector(f"main td:has-text('{words['inactive']}')")
    review(page, "webhooks, listed", found, None)
    screenshot(f"webhooks-list-{language}")
    assert not found, found
