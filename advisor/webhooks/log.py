"""The delivery log of an endpoint as the webhooks page shows it: each message with its event,
status, attempts and the last attempt's short reason, the latest first, a page at a time."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch
from django.utils.translation import gettext_lazy as _

from advisor.webhooks.models import WebhookAttempt, WebhookEndpoint, WebhookMessage

PER_PAGE = 20

# What a failed attempt's error (as logged, "Kind: detail") says, in the reader's language.
ERROR_KINDS = {
    "ConnectionError": _("The connection was refused or failed"),
    "ConnectTimeout": _("No connection within the connect timeout"),
    "ReadTimeout": _("No answer within the timeout"),
    "SSLError": _("The TLS handshake or certificate check failed"),
    "Refused": _("The address may not be called"),
    "WorkerLost": _("The worker stopped while sending; tried again"),
    "refused by the robot": _("The chat robot refused the message"),
}


@dataclass(frozen=True)
class Reason:
    """The last attempt's outcome: an HTTP status with the receiver's reason phrase, or an
    error's kind in words with its detail (technical, as logged)."""

    status_code: int | None
    words: str
    detail: str


@dataclass(frozen=True)
class LogRow:
    message: WebhookMessage
    reason: Reason | None


def reason_of(attempt: WebhookAttempt | None) -> Reason | None:
    if attempt is None:
        return None
    if attempt.error:
        kind, _sep, detail = attempt.error.partition(":")
        words = ERROR_KINDS.get(kind.strip())
        return Reason(
            attempt.status_code, str(words) if words else "", detail.strip() or attempt.error
        )
    return Reason(attempt.status_code, attempt.response, "")


def delivery_log(endpoint: WebhookEndpoint, page_number) -> tuple[Page, list[LogRow]]:
    """One page of ``endpoint``'s messages (``page_number`` as given: a wrong one gives the
    first or last page) and their rows."""
    messages = endpoint.messages.prefetch_related(
        Prefetch("attempt_log", queryset=WebhookAttempt.objects.order_by("number"))
    )
    page = Paginator(messages, PER_PAGE).get_page(page_number)
    rows = []
    for message in page.object_list:
        attempts = list(message.attempt_log.all())
        rows.append(LogRow(message, reason_of(attempts[-1] if attempts else None)))
    return page, rows
