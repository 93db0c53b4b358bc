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

import certifi
import urllib3
from django.conf import settings
from django.utils import timezone
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    NewConnectionError,
    ReadTimeoutError,
    SSLError,
)

from advisor.webhooks import addresses, bots, signing
from advisor.webhooks.models import DeliveryStatus, WebhookAttempt, WebhookMessage

# Seconds to wait before the 2nd, 3rd, ... attempt (6 attempts over about 2.6 hours).
RETRY_DELAYS_S = (10, 60, 300, 1800, 7200)
# What is kept of an answer: its status and a short reason (decision 0123), never its body.
# A chat robot's answer is read (at most ROBOT_ANSWER_BYTES) for its error code.
REASON_CHARS = 100
ROBOT_ANSWER_BYTES = 4096


def _request(message: WebhookMessage, now: float) -> tuple[str, bytes, dict]:
    endpoint = message.endpoint
    if endpoint.format == bots.STANDARD:
        headers = signing.headers(endpoint.secret, message.message_id, int(now), message.body)
        return endpoint.url, message.body.encode(), headers
    url, body = bots.request(
        endpoint.format, endpoint.url, endpoint.secret, json.loads(message.body), now
    )
    return url, body, {"content-type": "application/json; charset=utf-8"}


def _pool(target: addresses.Target):
    """A connection to the checked address; HTTPS checks the certificate for the URL's host."""
    timeout = urllib3.Timeout(
        connect=settings.WEBHOOK_CONNECT_TIMEOUT_S, read=settings.WEBHOOK_TIMEOUT_S
    )
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            target.address,
            target.port,
            timeout=timeout,
            retries=False,
            cert_reqs="CERT_REQUIRED",
            ca_certs=certifi.where(),
            server_hostname=target.host,
            assert_hostname=target.host,
        )
    return urllib3.HTTPConnectionPool(target.address, target.port, timeout=timeout, retries=False)


def _read_answer(response, deadline: float) -> str:
    """At most ROBOT_ANSWER_BYTES of the answer, read until ``deadline``."""
    chunks, size = [], 0
    while size < ROBOT_ANSWER_BYTES and time.monotonic() < deadline:
        chunk = response.read1(ROBOT_ANSWER_BYTES - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def _failure(error: Exception) -> str:
    if isinstance(error, NewConnectionError):  # a subclass of ConnectTimeoutError
        return "ConnectionError: the connection was refused or failed"
    if isinstance(error, ConnectTimeoutError):
        return "ConnectTimeout: no connection within the connect timeout"
    if isinstance(error, ReadTimeoutError):
        return "ReadTimeout: no answer within the timeout"
    if isinstance(error, SSLError):
        return f"SSLError: {error}"[:300]
    return f"ConnectionError: {error.__class__.__name__}"


def post(url: str, body: bytes, headers: dict, *, robot: bool) -> tuple[int | None, str, str]:
    """POST once to the checked address of ``url``: (status, reason, error)."""
    try:
        target = addresses.check(url)
    except addresses.Refused as refused:
        return None, "", f"Refused: {refused}"[:300]
    pool = _pool(target)
    host = (
        target.host
        if target.port == addresses.DEFAULT_PORTS[target.scheme]
        else (f"{target.host}:{target.port}")
    )
    started = time.monotonic()
    try:
        response = pool.urlopen(
            "POST",
            target.path,
            body=body,
            headers={**headers, "Host": host},
            redirect=False,
            assert_same_host=False,
            preload_content=False,
        )
        try:
            reason = (response.reason or "")[:REASON_CHARS]
            error = ""
            if robot and 200 <= response.status < 300:
                deadline = started + settings.WEBHOOK_CONNECT_TIMEOUT_S + settings.WEBHOOK_TIMEOUT_S
                error = bots.refusal(_read_answer(response, deadline))
            return response.status, reason, error
        finally:
            response.release_conn()
    except HTTPError as error:
        return None, "", _failure(error)
    finally:
        pool.close()


def attempt(message: WebhookMessage) -> WebhookAttempt:
    """POST the message once and log what happened: the status and a short reason."""
    url, body, headers = _request(message, time.time())
    started = time.monotonic()
    status_code, reason, error = post(
        url, body, headers, robot=message.endpoint.format != bots.STANDARD
    )
    message.attempts += 1
    return WebhookAttempt.objects.create(
        message=message,
        number=message.attempts,
        status_code=status_code,
        error=error,
        response=reason,
        duration_ms=int((time.monotonic() - started) * 1000),
    )


OPEN = (DeliveryStatus.PENDING, DeliveryStatus.RETRYING)


def after_failure(attempts: int, now) -> tuple[str, object]:
    """The status and next attempt after ``attempts`` tries, the last one failed."""
    if attempts <= len(RETRY_DELAYS_S):
        return DeliveryStatus.RETRYING, now + timedelta(seconds=RETRY_DELAYS_S[attempts - 1])
    return DeliveryStatus.FAILED, None


def claim_seconds() -> float:
    """How long a worker holds a message: ``WEBHOOK_CLAIM_S``, and never less than twice the
    longest an attempt may take (the connect and read timeouts), so a live send keeps it."""
    longest = settings.WEBHOOK_CONNECT_TIMEOUT_S + settings.WEBHOOK_TIMEOUT_S
    return max(settings.WEBHOOK_CLAIM_S, 2 * longest)


def claim(message_id: int, now) -> WebhookMessage | None:
    """The message, held by this worker for :func:`claim_seconds` (a conditional update: one
    worker wins); None when it is done, stopped or held by another worker (decision 0144)."""
    until = now + timedelta(seconds=claim_seconds())
    taken = WebhookMessage.objects.filter(
        pk=message_id, status__in=OPEN, claimed_until__isnull=True
    ).update(claimed_until=until)
    if not taken:
        return None
    return WebhookMessage.objects.select_related("endpoint").get(pk=message_id)


def deliver(message_id: int, now=None) -> WebhookMessage | None:
    """One attempt for a message still to be delivered; its status and next attempt after.

    The message is claimed first and released with the outcome; a worker killed in between
    leaves the claim to run out (:mod:`advisor.webhooks.recovery` then logs the lost attempt
    and tries again)."""
    message = claim(message_id, now or timezone.now())
    if message is None:
        return None
    held = WebhookMessage.objects.filter(
        pk=message.pk, status__in=OPEN, claimed_until=message.claimed_until
    )
    if not message.endpoint.active:  # deactivated since: its messages stop
        held.update(status=DeliveryStatus.CANCELLED, next_attempt_at=None, claimed_until=None)
        message.refresh_from_db()
        return message
    logged = attempt(message)
    finished = timezone.now()
    if logged.succeeded:
        status, next_at, delivered_at = DeliveryStatus.DELIVERED, None, finished
    else:
        (status, next_at), delivered_at = after_failure(message.attempts, finished), None
    # Only while still held: a claim taken back (this worker overran it) or an endpoint
    # deactivated meanwhile keeps what the watchdog or the deactivation wrote.
    held.update(
        status=status,
        attempts=message.attempts,
        delivered_at=delivered_at,
        next_attempt_at=next_at,
        claimed_until=None,
    )
    message.refresh_from_db()
    return message
