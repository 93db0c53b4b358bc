"""Brief events become one message per subscribed endpoint, queued for the task worker."""

from __future__ import annotations

import json

from django.db import transaction
from django.utils import timezone

from advisor.brief.lifecycle import glance
from advisor.brief.models import Brief
from advisor.webhooks.models import EventType, WebhookEndpoint, WebhookMessage
from advisor.webhooks.tasks import deliver_webhook


def brief_data(brief: Brief) -> dict:
    """What a receiver is told about the brief (no PDF, no snapshot: it asks the API)."""
    seen = glance(brief)
    return {
        "id": brief.pk,
        "number": brief.number,
        "status": brief.status,
        "language": brief.language,
        "assessment": brief.assessment_id,
        "option": seen.chosen.get("key"),
        "verdict": (seen.chosen.get("compliance") or {}).get("verdict"),
        "now_verdict": seen.now_verdict,
        "superseded": seen.superseded,
        "open_vetoes": len(seen.open_vetoes),
        "prepared_by": brief.prepared_by.get_username() if brief.prepared_by_id else None,
        "approved_by": brief.approved_by.get_username() if brief.approved_by_id else None,
        "review_comment": brief.review_comment,
    }


def emit(event_type: str, brief: Brief) -> list[WebhookMessage]:
    """A message for every active endpoint that subscribes to ``event_type``, each queued for
    delivery once the surrounding transaction commits."""
    endpoints = [
        e for e in WebhookEndpoint.objects.filter(active=True) if event_type in (e.events or [])
    ]
    if not endpoints:
        return []
    # As it is now, in this transaction (a decision is a conditional update of the row).
    brief = Brief.objects.select_related("prepared_by", "approved_by").get(pk=brief.pk)
    body = json.dumps(
        {
            "type": event_type,
            "timestamp": timezone.now().isoformat(),
            "data": brief_data(brief),
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
    messages = [
        WebhookMessage.objects.create(
            endpoint=endpoint, event_type=event_type, brief_number=brief.number, body=body
        )
        for endpoint in endpoints
    ]
    for message in messages:
        transaction.on_commit(lambda pk=message.pk: deliver_webhook.enqueue(pk))
    return messages


def already_superseded(brief: Brief) -> bool:
    return WebhookMessage.objects.filter(
        event_type=EventType.SUPERSEDED, brief_number=brief.number
    ).exists()
