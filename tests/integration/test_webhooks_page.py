"""The webhooks page (issue 48 item 2, decision 0143): a user in the integration role, not a
superuser, registers an endpoint (the signing secret shown once), chooses its events, changes
and deactivates it, sends a test event that a receiver verifies with the ``standardwebhooks``
package, and reads the delivery log a page at a time. Everyone else gets 403."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from standardwebhooks.webhooks import Webhook

from advisor.brief.models import AuditEvent
from advisor.recommendation.services import assessment_results
from advisor.roles import (
    APPROVER,
    CATALOG_ADMIN,
    INTEGRATION,
    MANAGE_WEBHOOKS,
    PROCUREMENT_STAFF,
    ensure_roles,
)
from advisor.webhooks import delivery, log
from advisor.webhooks.models import (
    BRIEF_EVENTS,
    DeliveryStatus,
    EventType,
    WebhookAttempt,
    WebhookEndpoint,
    WebhookMessage,
)
from tests.support import webhook_receiver
from tests.support.api import api_client
from tests.support.assessments import finished_assessment
from tests.support.users import make_user, signed_in_client

pytestmark = pytest.mark.django_db

SECRET = re.compile(r"whsec_[A-Za-z0-9+/]{32}")
ALL_EVENTS = [str(e) for e in BRIEF_EVENTS]


@pytest.fixture(autouse=True)
def local_receivers(settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]  # the receiver listens on loopback


@pytest.fixture
def integrator():
    user = make_user("integrator", INTEGRATION)
    assert not user.is_superuser and not user.is_staff
    return user


@pytest.fixture
def receiver():
    # The secret is the endpoint's, known once it is registered: set by the test.
    receiver, server = webhook_receiver.start("")
    yield receiver
    server.shutdown()
    server.server_close()


def add(client, **fields):
    data = {"name": "Purchase requests", "format": "standard", "url": "", "active": "on"}
    data |= {"events": ALL_EVENTS} | fields
    return client.post(reverse("webhooks:add"), data, HTTP_ACCEPT_LANGUAGE="en")


def test_an_integration_user_registers_an_endpoint_and_a_test_event_is_delivered_and_verified(
    integrator, receiver, django_capture_on_commit_callbacks
):
    client = signed_in_client(integrator)
    listed = client.get(reverse("webhooks:list"), HTTP_ACCEPT_LANGUAGE="en")
    assert listed.status_code == 200 and "No endpoint is registered yet." in listed.text

    answer = add(client, url=receiver.url, events=["brief.issued", "brief.approved"])
    assert answer.status_code == 200
    (secret,) = SECRET.findall(answer.text)
    endpoint = WebhookEndpoint.objects.get()
    assert (endpoint.name, endpoint.url, endpoint.active) == (
        "Purchase requests",
        receiver.url,
        True,
    )
    assert endpoint.events == ["brief.issued", "brief.approved"] and endpoint.secret == secret
    detail = client.get(reverse("webhooks:detail", args=[endpoint.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert detail.status_code == 200 and not SECRET.findall(detail.text)  # shown once only
    assert "Brief issued" in detail.text and "Brief sent back" not in detail.text

    receiver.secret = secret
    with django_capture_on_commit_callbacks(execute=True):
        sent = client.post(reverse("webhooks:test", args=[endpoint.pk]))
    assert sent.status_code == 302
    (received,) = receiver.received
    event = Webhook(secret).verify(received.body, received.headers)  # a client we did not write
    assert event["type"] == "webhook.test"
    assert event["data"] == {
        "test": True,
        "endpoint": "Purchase requests",
        "requested_by": "integrator",
        "origin": "page",
    }
    message = WebhookMessage.objects.get()
    assert (message.event_type, message.status, message.attempts) == (
        "webhook.test",
        "delivered",
        1,
    )
    shown = client.get(sent.url, HTTP_ACCEPT_LANGUAGE="en").text
    assert "Test event" in shown and "Delivered" in shown
    # The audit trail says who pointed the server at which URL and who sent a test; no secret.
    saved, tested = AuditEvent.objects.filter(action__startswith="webhook_").order_by("pk")
    assert (saved.action, saved.actor, saved.detail["url"], saved.detail["added"]) == (
        "webhook_endpoint_saved",
        integrator,
        receiver.url,
        True,
    )
    assert (tested.action, tested.detail["message"]) == ("webhook_test_sent", message.message_id)
    assert secret not in json.dumps([saved.detail, tested.detail])
    assert '204 <span translate="no">No Content</span>' in shown


def test_the_address_is_checked_at_save_and_nothing_entered_is_lost(integrator, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    client = signed_in_client(integrator)
    answer = add(client, url="http://169.254.169.254/latest/meta-data/", events=[])
    assert answer.status_code == 400
    assert "Webhooks may not be sent there" in answer.text and "link-local" in answer.text
    assert "Choose at least one event." in answer.text
    assert 'value="Purchase requests"' in answer.text  # kept
    assert "http://169.254.169.254/latest/meta-data/" in answer.text
    assert not WebhookEndpoint.objects.exists()


def test_changing_and_deactivating_an_endpoint_stops_its_messages(integrator, receiver):
    client = signed_in_client(integrator)
    add(client, url=receiver.url)
    endpoint = WebhookEndpoint.objects.get()
    waiting = WebhookMessage.objects.create(
        endpoint=endpoint, event_type=EventType.ISSUED, brief_number="FT-1", body="{}"
    )
    data = {"name": "Renamed", "url": receiver.url, "events": ["brief.superseded"]}
    answer = client.post(reverse("webhooks:change", args=[endpoint.pk]), data)  # active unticked
    assert answer.status_code == 302
    endpoint.refresh_from_db()
    waiting.refresh_from_db()
    assert (endpoint.name, endpoint.events, endpoint.active) == (
        "Renamed",
        ["brief.superseded"],
        False,
    )
    assert waiting.status == DeliveryStatus.CANCELLED
    refused = client.post(reverse("webhooks:test", args=[endpoint.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 302 and WebhookMessage.objects.count() == 1
    shown = client.get(refused.url, HTTP_ACCEPT_LANGUAGE="en").text
    assert "activate it to send a test event" in shown and "Send a test event" not in shown


def test_a_robot_endpoint_keeps_the_robots_own_secret_and_shows_none(integrator):
    client = signed_in_client(integrator)
    answer = add(
        client, format="dingtalk", url="https://oapi.dingtalk.com/robot/send?access_token=x"
    )
    # The robot's host resolves on the test machine or not: either it is saved with its own
    # secret, or refused with the address check's reason; a made-up secret is never shown.
    assert not SECRET.findall(answer.text)
    if answer.status_code == 200:
        assert WebhookEndpoint.objects.get().secret == ""


def test_the_delivery_log_is_paginated_with_a_short_reason_in_the_readers_language(integrator):
    endpoint = WebhookEndpoint.objects.create(name="down", url="http://127.0.0.1:9/hooks")
    for number in range(log.PER_PAGE + 3):
        message = WebhookMessage.objects.create(
            endpoint=endpoint,
            event_type=EventType.APPROVED,
            brief_number=f"FT-2026-{number:06d}",
            body="{}",
            status=DeliveryStatus.RETRYING,
            attempts=1,
        )
        WebhookAttempt.objects.create(
            message=message, number=1, error="ReadTimeout: no answer within the timeout"
        )
    client = signed_in_client(integrator)
    url = reverse("webhooks:detail", args=[endpoint.pk])
    first = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").text
    assert first.count("<tr>") == log.PER_PAGE + 1  # the heading row and a page of messages
    assert "FT-2026-000022" in first and "FT-2026-000000" not in first  # the latest first
    assert "超时内没有应答" in first and "第 1 页，共 2 页" in first
    second = client.get(url + "?page=2", HTTP_ACCEPT_LANGUAGE="en").text
    assert "FT-2026-000000" in second and "No answer within the timeout" in second
    assert client.get(url + "?page=x").status_code == 200  # a wrong page is the first


VISITORS = [
    ("buyer", (PROCUREMENT_STAFF,), {}),
    ("approver", (APPROVER,), {}),
    ("catalog admin", (CATALOG_ADMIN,), {"is_staff": True}),
]


@pytest.mark.parametrize(("name", "roles", "fields"), VISITORS)
def test_everyone_else_gets_403(name, roles, fields):
    endpoint = WebhookEndpoint.objects.create(name="hooks", url="http://127.0.0.1:9/hooks")
    client = signed_in_client(make_user(name.replace(" ", "-"), *roles, **fields))
    for route, args, method in [
        ("webhooks:list", [], "get"),
        ("webhooks:add", [], "get"),
        ("webhooks:add", [], "post"),
        ("webhooks:detail", [endpoint.pk], "get"),
        ("webhooks:change", [endpoint.pk], "post"),
        ("webhooks:test", [endpoint.pk], "post"),
    ]:
        answer = getattr(client, method)(reverse(route, args=args))
        assert answer.status_code == 403, (name, route, method)
    assert "webhooks/" not in client.get(reverse("brief:list")).text  # no link to it
    assert WebhookMessage.objects.count() == 0


def test_the_integration_role_holds_the_webhook_permissions_only():
    group = ensure_roles()[INTEGRATION]
    held = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}
    assert MANAGE_WEBHOOKS in held
    assert all(name.startswith("webhooks.") for name in held)
    assert "webhooks.delete_webhookendpoint" not in held


def test_an_integration_user_lands_on_the_webhooks_page(integrator):
    answer = signed_in_client(integrator).get(reverse("home"))
    assert answer.status_code == 302 and answer.url == reverse("webhooks:list")


def test_a_retry_after_a_failure_waits_as_before(integrator):
    """The page's test event is retried like any message (decision 0049)."""
    endpoint = WebhookEndpoint.objects.create(name="down", url=webhook_receiver.closed_port_url())
    message = WebhookMessage.objects.create(endpoint=endpoint, event_type=EventType.TEST, body="{}")
    assert delivery.deliver(message.pk).status == DeliveryStatus.RETRYING


def test_a_new_signing_secret_is_shown_once_and_replaces_the_old(integrator, receiver):
    client = signed_in_client(integrator)
    (first,) = SECRET.findall(add(client, url=receiver.url).text)
    endpoint = WebhookEndpoint.objects.get()
    change = reverse("webhooks:change", args=[endpoint.pk])
    data = {"name": "Purchase requests", "url": receiver.url, "events": ALL_EVENTS, "active": "on"}
    kept = client.post(change, data)
    assert kept.status_code == 302 and WebhookEndpoint.objects.get().secret == first
    renewed = client.post(change, data | {"renew_secret": "on"}, HTTP_ACCEPT_LANGUAGE="en")
    (second,) = SECRET.findall(renewed.text)
    assert second != first and WebhookEndpoint.objects.get().secret == second
    assert "the old one no longer works" in renewed.text


def test_a_robots_secret_is_kept_unless_a_new_one_is_entered(integrator):
    endpoint = WebhookEndpoint.objects.create(
        name="group", format="feishu", url="http://127.0.0.1:9/robot", secret="robot-1"
    )
    client = signed_in_client(integrator)
    change = reverse("webhooks:change", args=[endpoint.pk])
    data = {"name": "group", "url": endpoint.url, "events": ALL_EVENTS, "active": "on"}
    page = client.get(change, HTTP_ACCEPT_LANGUAGE="en").text
    assert "Leave it empty to keep the saved one." in page and "robot-1" not in page
    assert client.post(change, data).status_code == 302
    assert WebhookEndpoint.objects.get().secret == "robot-1"
    assert client.post(change, data | {"robot_secret": "robot-2"}).status_code == 302
    assert WebhookEndpoint.objects.get().secret == "robot-2"
    refused = client.post(
        change, data | {"robot_secret": "bad\x01secret"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert refused.status_code == 400 and "no control characters" in refused.text


@pytest.mark.parametrize("field", ["name", "url", "robot_secret", "events", "format"])
def test_control_characters_in_any_field_are_refused_without_a_server_error(integrator, field):
    client = signed_in_client(integrator)
    client.raise_request_exception = False
    data = {"name": "n", "format": "standard", "url": "https://example.com/hooks"}
    data |= {"events": ALL_EVENTS, "active": "on", field: "a\x00b\x1fc"}
    answer = client.post(reverse("webhooks:add"), data)
    assert answer.status_code in (200, 400)
    if field != "name":  # a name's NUL and controls are removed, as everywhere (advisor.text)
        assert answer.status_code == 400 and not WebhookEndpoint.objects.exists()


def test_an_empty_post_shows_what_is_missing(integrator):
    answer = signed_in_client(integrator).post(reverse("webhooks:add"), HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 400 and "This field is required." in answer.text


@pytest.mark.usefixtures("brief_ready", "one_page_briefs")
def test_an_endpoint_registered_on_the_page_is_told_of_a_brief_issued_through_the_api(
    integrator, receiver, django_capture_on_commit_callbacks
):
    """Issue 48's "done when": a non-superuser integration user registers the endpoint; a
    brief issued through the API reaches it, verified with ``standardwebhooks``."""
    (secret,) = SECRET.findall(add(signed_in_client(integrator), url=receiver.url).text)
    receiver.secret = secret
    buyer = make_user("buyer", PROCUREMENT_STAFF)
    assessment = finished_assessment(buyer)
    option = assessment_results(assessment).recommendation.rankings["recommended"][0].key
    with django_capture_on_commit_callbacks(execute=True):
        issued = api_client(buyer).post(
            f"/api/v1/assessments/{assessment.pk}/briefs",
            {"option": option, "language": "en"},
            content_type="application/json",
        )
    assert issued.status_code == 202, issued.content
    (received,) = receiver.received
    event = Webhook(secret).verify(received.body, received.headers)
    assert event["type"] == "brief.issued"
    assert (event["data"]["origin"], event["data"]["option"]) == ("api", option)
