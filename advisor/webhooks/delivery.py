"""One delivery attempt of a message, logged, and when to try again.

Retries follow the Standard Webhooks advice: exponential back-off, the same ``webhook-id`` on
every attempt, a fresh timestamp and signature. A 2xx answer delivers; anything else (another
status, a refused connection, a timeout) is logged and retried until ``RETRY_DELAYS_S`` runs
out, then the message is marked failed (an administrator sees the log in admin).
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

import requests
from django.conf import settings
from django.utils import timezone

from advisor.webhooks import bots, signing
from advisor.webhooks.models import DeliveryStatus, WebhookAttempt, WebhookMessage

# Seconds to wait before the 2nd, 3rd, ... attempt (6 attempts over about 2.6 hours).
RETRY_DELAYS_S = (10, 60, 300, 1800, 7200)


def _request(message: WebhookMessage, now: float) -> tuple[str, bytes, dict]:
    endpoint = message.endpoint
    if endpoint.format == bots.STANDARD:
        headers = signing.headers(endpoint.secret, message.message_id, int(now), message.body)
        return endpoint.url, message.body.encode(), headers
    url, body = bots.request(
        endpoint.format, endpoint.url, endpoint.secret, json.loads(message.body), now
    )
    return url, body, {"content-type": "application/json; charset=utf-8"}


def attempt(message: WebhookMessage) -> WebhookAttempt:
    """POST the message once and log what happened."""
    url, body, headers = _request(message, time.time())
    started = time.monotonic()
    status_code, error, response_text = None, "", ""
    try:
        response = requests.post(
            url,
            data=body,
            headers=headers,
            timeout=settings.WEBHOOK_TIMEOUT_S,
            allow_redirects=False,
        )
        status_code, response_text = response.status_code, response.text[:500]
        if message.endpoint.format != bots.STANDARD and response.ok:
            error = bots.refusal(response.text)
    except requests.RequestException as failure:
        error = f"{failure.__class__.__name__}: {failure}"[:300]
    message.attempts += 1
    return WebhookAttempt.objects.create(
        message=message,
        number=message.attempts,
        status_code=status_code,
        error=error,
        response=response_text,
        duration_ms=int((time.monotonic() - started) * 1000),
    )


def deliver(message_id: int) -> WebhookMessage | None:
    """One attempt for a message still to be delivered; its status and next attempt after."""
    message = (
        WebhookMessage.objects.select_related("endpoint")
        .filter(pk=message_id, status__in=(DeliveryStatus.PENDING, DeliveryStatus.RETRYING))
        .first()
    )
    if message is None:
        return None
    logged = attempt(message)
    if logged.succeeded:
        message.status, message.delivered_at, message.next_attempt_at = (
            DeliveryStatus.DELIVERED,
            timezone.now(),
            None,
        )
    elif message.attempts <= len(RETRY_DELAYS_S):
        delay = RETRY_DELAYS_S[message.attempts - 1]
        message.status = DeliveryStatus.RETRYING
        message.next_attempt_at = timezone.now() + timedelta(seconds=delay)
    else:
        message.status, message.next_attempt_at = DeliveryStatus.FAILED, None
    message.save(update_fields=["status", "attempts", "delivered_at", "next_attempt_at"])
    return message
