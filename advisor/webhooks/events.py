"""Brief events become one message per subscribed endpoint, queued for the task worker."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation

from advisor.brief.lifecycle import glance
from advisor.brief.models import Brief
from advisor.presentation import labels
from advisor.presentation.numbers import num
from advisor.presentation.text import local_name, render_text
from advisor.webhooks.models import EventType, WebhookEndpoint, WebhookMessage
from advisor.webhooks.tasks import deliver_webhook

CURRENCY = "CNY"  # every figure in the catalog and the briefs is in yuan


def brief_data(brief: Brief) -> dict:
    """What a receiver is told about the brief, enough for a purchase request: what is bought
    and for how much, whether it may be, who prepared and approved it, and where to fetch the
    signed PDF and check it (docs/api.md lists every field). Words are in the brief's language."""
    seen = glance(brief)
    chosen = seen.chosen
    with translation.override(brief.language):
        return {
            "id": brief.pk,
            "number": brief.number,
            "title": _title(brief),
            "status": brief.status,
            "language": brief.language,
            # Where the brief was issued: "page", "api" or "command_line" (Brief.origin).
            "origin": brief.origin,
            "assessment": brief.assessment_id,
            "option": chosen.get("key"),
            "option_label": option_label(chosen),
            "mode": chosen.get("mode"),
            "cash_out": (seen.cost or {}).get("cash_out_cny"),
            "net_of_resale": (seen.cost or {}).get("net_of_resale_cny"),
            "currency": CURRENCY,
            "verdict": (chosen.get("compliance") or {}).get("verdict"),
            "now_verdict": seen.now_verdict,
            "superseded": seen.superseded,
            "open_vetoes": len(seen.open_vetoes),
            "open_veto_checks": [
                {"rule": f.get("rule_id"), "title": render_text(f.get("title"))}
                for f in seen.open_vetoes
            ],
            "sha256": brief.sha256 or None,
            "links": links(brief),
            "prepared_by": _username(brief.prepared_by),
            "prepared_by_name": _full_name(brief.prepared_by),
            "approved_by": _username(brief.approved_by),
            "approved_by_name": _full_name(brief.approved_by),
            "approved_at": brief.approved_at.isoformat() if brief.approved_at else None,
            "approver_signed": brief.approver_signed,
            "review_comment": brief.review_comment,
        }


def _title(brief: Brief) -> str:
    """The assessment's title, or for a brief from the command line its model's name."""
    if brief.assessment_id is not None:
        return brief.assessment.display_title
    return ((brief.snapshot or {}).get("scenario") or {}).get("model", {}).get("name", "")


def _username(user) -> str | None:
    return user.get_username() if user is not None else None


def _full_name(user) -> str | None:
    return (user.get_full_name() or None) if user is not None else None


def option_label(chosen: dict) -> str:
    """The option as the brief's page names it: "8 × H20 · HGX H20 · 简米贵阳节点 · Buy"."""
    if not chosen:
        return ""
    gpus = (chosen.get("capacity") or {}).get("gpus") or (chosen.get("sizing") or {}).get("gpus")
    parts = [
        f"{num(gpus)} × {local_name(chosen.get('accelerator'))}",
        local_name(chosen.get("server")),
        local_name(chosen.get("place")),
    ]
    if chosen.get("mode"):
        parts.append(str(labels.label(labels.MODE_LABELS, chosen["mode"])))
    return " · ".join(part for part in parts if part)


def links(brief: Brief) -> dict:
    """Absolute addresses (ADVISOR_SITE_URL): the brief's page, its signed PDF and status in
    the API (a token is needed), and the public page that verifies a PDF."""
    site = settings.SITE_URL.rstrip("/")
    return {
        "page": site + reverse("brief:detail", args=[brief.pk]),
        "pdf": site + reverse("api:brief_pdf", args=[brief.pk]) if brief.ready else None,
        "api": site + reverse("api:brief_status", args=[brief.pk]),
        "verify": site + reverse("brief:verify"),
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


def data_for_a_test(endpoint_name: str, username: str) -> dict:
    """The ``data`` of a ``webhook.test`` event: no brief, who asked for it and where."""
    return {"test": True, "endpoint": endpoint_name, "requested_by": username, "origin": "page"}


def emit_test(endpoint: WebhookEndpoint, user) -> WebhookMessage:
    """A ``webhook.test`` message for ``endpoint`` (whatever it subscribes to), signed and
    delivered like any event once the transaction commits: its delivery is in the log."""
    body = json.dumps(
        {
            "type": EventType.TEST,
            "timestamp": timezone.now().isoformat(),
            "data": data_for_a_test(endpoint.name, user.get_username()),
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
    message = WebhookMessage.objects.create(endpoint=endpoint, event_type=EventType.TEST, body=body)
    transaction.on_commit(lambda: deliver_webhook.enqueue(message.pk))
    return message


def already_superseded(brief: Brief) -> bool:
    return WebhookMessage.objects.filter(
        event_type=EventType.SUPERSEDED, brief_number=brief.number
    ).exists()
