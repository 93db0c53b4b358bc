"""What the webhooks page does, with its audit entries: who pointed the server at which URL,
and who sent a test event (never a secret)."""

from __future__ import annotations

from django.db import transaction

from advisor.brief import audit
from advisor.brief.models import AuditAction
from advisor.webhooks import events
from advisor.webhooks.models import WebhookEndpoint, WebhookMessage


def save_endpoint(form, user) -> WebhookEndpoint:
    """Save a valid endpoint form (:mod:`advisor.webhooks.forms`) and record it."""
    adding = form.instance.pk is None
    with transaction.atomic():
        endpoint = form.save()
        audit.record(
            AuditAction.WEBHOOK_ENDPOINT_SAVED,
            actor=user,
            endpoint=endpoint.pk,
            name=endpoint.name,
            url=endpoint.url,
            format=endpoint.format,
            events=list(endpoint.events),
            active=endpoint.active,
            added=adding,
            new_secret=bool(form.made_secret),
        )
    return endpoint


def send_test(endpoint: WebhookEndpoint, user) -> WebhookMessage:
    """Queue a signed ``webhook.test`` message to ``endpoint`` and record who asked."""
    with transaction.atomic():
        message = events.emit_test(endpoint, user)
        audit.record(
            AuditAction.WEBHOOK_TEST_SENT,
            actor=user,
            endpoint=endpoint.pk,
            name=endpoint.name,
            message=message.message_id,
        )
    return message
