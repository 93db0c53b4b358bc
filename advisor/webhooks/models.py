"""Webhook endpoints (configured in admin), the messages sent to them and every attempt.

Signed as the Standard Webhooks specification describes (docs/decisions/0049-webhooks.md):
``webhook-id`` (the message's id, the same on every retry), ``webhook-timestamp`` (seconds,
per attempt) and ``webhook-signature`` (``v1,<base64 HMAC-SHA256 of id.timestamp.body>``,
keyed with the base64 secret after ``whsec_``).
"""

import base64
import secrets
import uuid

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

from advisor.webhooks import addresses


class EventType(models.TextChoices):
    ISSUED = "brief.issued", _("Brief issued")
    APPROVED = "brief.approved", _("Brief approved")
    SENT_BACK = "brief.sent_back", _("Brief sent back")
    SUPERSEDED = "brief.superseded", _("Brief superseded")
    # Sent on request from the webhooks page to one endpoint, whatever it subscribes to.
    TEST = "webhook.test", _("Test event")


# The events an endpoint subscribes to: every event the product sends about briefs.
BRIEF_EVENTS = (EventType.ISSUED, EventType.APPROVED, EventType.SENT_BACK, EventType.SUPERSEDED)


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def all_events() -> list[str]:
    return [str(event) for event in BRIEF_EVENTS]


class Format(models.TextChoices):
    STANDARD = "standard", _("Standard Webhooks (signed JSON event)")
    DINGTALK = "dingtalk", _("DingTalk group robot")
    FEISHU = "feishu", _("Feishu group robot")
    WECOM = "wecom", _("WeCom group robot")


class WebhookEndpoint(models.Model):
    name = models.CharField(verbose_name=_("name"), max_length=80)
    format = models.CharField(
        verbose_name=_("format"),
        max_length=16,
        choices=Format.choices,
        default=Format.STANDARD,
        help_text=_(
            "A chat robot gets a message people read; its secret is the robot's own signing "
            "secret (DingTalk, Feishu; none for WeCom, whose key is in the URL)."
        ),
    )
    url = models.URLField(verbose_name=_("URL"), max_length=500)
    secret = models.CharField(
        verbose_name=_("signing secret"),
        max_length=100,
        blank=True,
        default=new_secret,
        help_text=_("whsec_ followed by base64; give it to the receiver to check signatures."),
    )
    events = models.JSONField(
        verbose_name=_("events"),
        default=all_events,
        help_text=_(
            "The event types sent: brief.issued, brief.approved, brief.sent_back, brief.superseded."
        ),
    )
    active = models.BooleanField(verbose_name=_("active"), default=True)
    created_at = models.DateTimeField(verbose_name=_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")
        ordering = ["name", "pk"]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        """A deactivated endpoint's messages still to be sent stop (decision 0123)."""
        with transaction.atomic():
            super().save(*args, **kwargs)
            if not self.active:
                self.messages.filter(
                    status__in=(DeliveryStatus.PENDING, DeliveryStatus.RETRYING)
                ).update(status=DeliveryStatus.CANCELLED, next_attempt_at=None)

    def clean(self):
        """The URL must resolve to addresses a webhook may reach (checked again at send)."""
        super().clean()
        if self.url:
            try:
                addresses.check(self.url)
            except addresses.Refused as refused:
                raise ValidationError(
                    {
                        "url": _(
                            "Webhooks may not be sent there: %(reason)s. An operator may "
                            "allow a network with ADVISOR_WEBHOOK_ALLOWED_NETWORKS."
                        )
                        % {"reason": refused}
                    }
                ) from None


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("Waiting to be sent")
    RETRYING = "retrying", _("Retrying")
    DELIVERED = "delivered", _("Delivered")
    FAILED = "failed", _("Failed (no retries left)")
    CANCELLED = "cancelled", _("Stopped (endpoint deactivated)")


def new_message_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


class WebhookMessage(models.Model):
    """One event for one endpoint: its body is fixed when it is made, and signed per attempt."""

    message_id = models.CharField(
        verbose_name=_("webhook id"), max_length=40, unique=True, default=new_message_id
    )
    endpoint = models.ForeignKey(
        WebhookEndpoint,
        verbose_name=_("endpoint"),
        on_delete=models.CASCADE,
        related_name="messages",
    )
    event_type = models.CharField(verbose_name=_("event"), max_length=32, choices=EventType.choices)
    brief_number = models.CharField(verbose_name=_("brief number"), max_length=20, blank=True)
    body = models.TextField(verbose_name=_("body"))
    status = models.CharField(
        verbose_name=_("status"),
        max_length=16,
        choices=DeliveryStatus.choices,
        default=DeliveryStatus.PENDING,
    )
    attempts = models.PositiveSmallIntegerField(verbose_name=_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(verbose_name=_("next attempt"), null=True, blank=True)
    delivered_at = models.DateTimeField(verbose_name=_("delivered"), null=True, blank=True)
    # Held by a worker sending it until then; a worker that dies mid-send lets the claim run
    # out and the watchdog of any webhook worker tries again (decision 0144).
    claimed_until = models.DateTimeField(verbose_name=_("claimed until"), null=True, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook message")
        verbose_name_plural = _("webhook messages")
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.event_type} {self.brief_number} → {self.endpoint}"


class WebhookAttempt(models.Model):
    """The delivery log: one row per try, with what the receiver answered."""

    message = models.ForeignKey(
        WebhookMessage,
        verbose_name=_("message"),
        on_delete=models.CASCADE,
        related_name="attempt_log",
    )
    number = models.PositiveSmallIntegerField(verbose_name=_("attempt"))
    at = models.DateTimeField(verbose_name=_("time"), auto_now_add=True)
    status_code = models.PositiveSmallIntegerField(
        verbose_name=_("HTTP status"), null=True, blank=True
    )
    error = models.CharField(verbose_name=_("error"), max_length=300, blank=True)
    # The answer's reason phrase ("OK", "Service Unavailable"), never its body (decision 0123).
    response = models.CharField(verbose_name=_("reason"), max_length=500, blank=True)
    duration_ms = models.PositiveIntegerField(verbose_name=_("duration (ms)"), default=0)

    class Meta:
        verbose_name = _("delivery attempt")
        verbose_name_plural = _("delivery attempts")
        ordering = ["message", "number"]

    def __str__(self):
        return f"#{self.number} {self.status_code or self.error}"

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300 and not self.error
