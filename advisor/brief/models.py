"""Issued briefs (immutable snapshots with their signed PDF) and the audit trail."""

import re
import secrets

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

NUMBER_PREFIX = "FT"
SHA256_HEX_LENGTH = 64
# A failure's reference: the buyer sees it, the operator's log line carries it with the detail.
FAILURE_REFERENCE = re.compile(r"E-[0-9A-F]{8}\b")


def new_failure_reference() -> str:
    return "E-" + secrets.token_hex(4).upper()


class BriefStatus(models.TextChoices):
    GENERATING = "generating", _("Being generated")
    FAILED = "failed", _("Generation failed")
    AWAITING_APPROVAL = "awaiting_approval", _("Awaiting approval")
    SENT_BACK = "sent_back", _("Sent back")
    APPROVED = "approved", _("Approved")
    ISSUED = "issued", _("Issued (no approval required)")


class Origin(models.TextChoices):
    """Where a brief was issued: the brief page, the HTTP API or ``manage.py issue_brief``."""

    PAGE = "page", _("The advisor's pages")
    API = "api", _("The HTTP API")
    COMMAND_LINE = "command_line", _("The command line")


class BriefCounter(models.Model):
    """The last brief number used in a year; locked while the next number is taken."""

    year = models.PositiveIntegerField(verbose_name=_("year"), primary_key=True)
    last = models.PositiveIntegerField(verbose_name=_("last number"), default=0)

    class Meta:
        verbose_name = _("brief number counter")
        verbose_name_plural = _("brief number counters")

    def __str__(self):
        return f"{self.year}: {self.last}"


def next_brief_number(year: int) -> str:
    """``FT-2026-000123``: sequential within the year, safe under concurrent issuing."""
    with transaction.atomic():
        BriefCounter.objects.get_or_create(year=year)
        counter = BriefCounter.objects.select_for_update().get(year=year)
        counter.last += 1
        counter.save(update_fields=["last"])
    return f"{NUMBER_PREFIX}-{year:04d}-{counter.last:06d}"


class Brief(models.Model):
    number = models.CharField(
        verbose_name=_("brief number"),
        max_length=20,
        unique=True,
    )
    language = models.CharField(
        verbose_name=_("language"),
        max_length=10,
        choices=settings.LANGUAGES,
    )
    status = models.CharField(
        verbose_name=_("status"),
        max_length=20,
        choices=BriefStatus.choices,
        default=BriefStatus.GENERATING,
    )
    assessment = models.ForeignKey(
        "assessments.Assessment",
        verbose_name=_("assessment"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="briefs",
    )
    origin = models.CharField(
        verbose_name=_("issued from"),
        max_length=16,
        choices=Origin.choices,
        default=Origin.PAGE,
    )
    prepared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("prepared by"),
        on_delete=models.PROTECT,
        related_name="prepared_briefs",
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("approved by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="approved_briefs",
    )
    approved_at = models.DateTimeField(verbose_name=_("approved at"), null=True, blank=True)
    review_comment = models.TextField(verbose_name=_("review comment"), blank=True)
    # The approver's confirmation that they read the open veto checks listed in the brief
    # (approving with any open needs it; it is printed in the approved PDF).
    vetoes_acknowledged = models.BooleanField(
        verbose_name=_("open veto checks acknowledged"), default=False
    )
    # The approval carries the approver's own signature (their registered certificate), not
    # only the system's record of it (advisor/brief/credentials.py).
    approver_signed = models.BooleanField(verbose_name=_("signed by the approver"), default=False)
    # The frozen content: everything the PDF shows, so it reads the same after catalog edits.
    snapshot = models.JSONField(verbose_name=_("snapshot"), default=dict)
    ruleset_version = models.CharField(verbose_name=_("compliance rule-set version"), max_length=40)
    pdf = models.FileField(verbose_name=_("signed PDF"), upload_to="briefs/%Y/", blank=True)
    sha256 = models.CharField(
        verbose_name=_("SHA-256 of the signed PDF"), max_length=SHA256_HEX_LENGTH, blank=True
    )
    unsigned_sha256 = models.CharField(
        verbose_name=_("SHA-256 of the PDF before signing"),
        max_length=SHA256_HEX_LENGTH,
        blank=True,
    )
    draft_sha256 = models.CharField(
        verbose_name=_("SHA-256 of the signed draft (before approval)"),
        max_length=SHA256_HEX_LENGTH,
        blank=True,
    )
    # "<reference> <detail>": the page shows the buyer only the reference (FAILURE_REFERENCE);
    # the detail, which may name files or libraries, is for the operator (log, admin, CLI).
    failure = models.TextField(verbose_name=_("failure"), blank=True)
    # Generation lease (docs/decisions/0021): the worker rendering the PDF holds it and renews
    # it while it works; a lease that ran out means the worker died, and any worker requeues.
    generation_attempts = models.PositiveSmallIntegerField(
        verbose_name=_("generation attempts"), default=0
    )
    lease_until = models.DateTimeField(
        verbose_name=_("generation lease expires"), null=True, blank=True
    )
    created_at = models.DateTimeField(verbose_name=_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(verbose_name=_("last changed"), auto_now=True)

    class Meta:
        verbose_name = _("brief")
        verbose_name_plural = _("briefs")
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["sha256"], name="brief_sha256"),
            models.Index(fields=["unsigned_sha256"], name="brief_unsigned_sha256"),
            models.Index(fields=["draft_sha256"], name="brief_draft_sha256"),
        ]
        # The approver role's permission (advisor/roles.py).
        permissions = [("approve_brief", _("Can approve or send back briefs"))]

    def __str__(self):
        return self.number

    def queue_position(self) -> int | None:
        """While it waits for a brief worker: 1 when it is next, 2 with one brief ahead, ...;
        ``None`` when it is not waiting (a worker holds it, or it is not being generated).

        Briefs are taken in the order they were issued (the task queue's order); a brief that a
        worker holds has a lease (``lease_until``), a waiting one none."""
        if self.status != BriefStatus.GENERATING or self.lease_until is not None:
            return None
        waiting = Brief.objects.filter(status=BriefStatus.GENERATING, lease_until__isnull=True)
        ahead = waiting.filter(
            models.Q(created_at__lt=self.created_at)
            | models.Q(created_at=self.created_at, pk__lt=self.pk)
        ).count()
        return ahead + 1

    @property
    def failure_reference(self) -> str:
        """The reference of the failure that the operator's log names, or ""."""
        match = FAILURE_REFERENCE.match(self.failure or "")
        return match.group(0) if match else ""

    @property
    def ready(self) -> bool:
        return bool(self.pdf) and self.status not in (BriefStatus.GENERATING, BriefStatus.FAILED)

    @property
    def retrying(self) -> bool:
        """Being generated again after a worker stopped in the middle (the buyer is told).

        After the first attempt: its lease ran out (the worker died), was released for a new
        attempt, or a later attempt runs.
        """
        if self.status != BriefStatus.GENERATING or not self.generation_attempts:
            return False
        if self.generation_attempts > 1:
            return True
        return self.lease_until is None or self.lease_until < timezone.now()

    @property
    def approved(self) -> bool:
        return self.status == BriefStatus.APPROVED


class AuditAction(models.TextChoices):
    SIGN_IN = "sign_in", _("Signed in")
    SIGN_IN_FAILED = "sign_in_failed", _("Failed sign-in")
    BRIEF_ISSUED = "brief_issued", _("Brief issued")
    BRIEF_APPROVED = "brief_approved", _("Brief approved")
    BRIEF_SENT_BACK = "brief_sent_back", _("Brief sent back")
    BRIEF_DOWNLOADED = "brief_downloaded", _("Brief downloaded")
    BRIEF_VERIFIED = "brief_verified", _("PDF verified")
    DOCUMENT_GENERATED = "document_generated", _("Document made from a brief")
    CERTIFICATE_REGISTERED = "certificate_registered", _("Signing certificate registered")
    CERTIFICATE_REMOVED = "certificate_removed", _("Signing certificate removed")
    CATALOG_EDITED = "catalog_edited", _("Catalog edited")
    API_TOKEN_CREATED = "api_token_created", _("API token created")
    API_TOKEN_REVOKED = "api_token_revoked", _("API token revoked")
    API_WRITE = "api_write", _("Written through the API")
    WEBHOOK_ENDPOINT_SAVED = "webhook_endpoint_saved", _("Webhook endpoint added or changed")
    WEBHOOK_TEST_SENT = "webhook_test_sent", _("Webhook test event sent")


class AuditEvent(models.Model):
    """Who did what, when. Kept when a user is deactivated or deleted (the name is copied)."""

    at = models.DateTimeField(verbose_name=_("time"), auto_now_add=True, db_index=True)
    action = models.CharField(verbose_name=_("action"), max_length=32, choices=AuditAction.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    actor_username = models.CharField(verbose_name=_("user name"), max_length=150, blank=True)
    brief = models.ForeignKey(
        Brief,
        verbose_name=_("brief"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_events",
    )
    brief_number = models.CharField(verbose_name=_("brief number"), max_length=20, blank=True)
    detail = models.JSONField(verbose_name=_("detail"), default=dict, blank=True)

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-at", "-pk"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_username or '-'} {self.action}"


def open_vetoes(snapshot: dict) -> list[dict]:
    """The chosen option's veto checks that await the vendor, as frozen in the brief."""
    return list(((snapshot or {}).get("memo") or {}).get("unknown_vetoes") or [])


class KeySource(models.TextChoices):
    """Where an approver's signing key is (docs/decisions/0149)."""

    PKCS12 = "pkcs12", _("Uploaded certificate file (PKCS#12)")
    PKCS11 = "pkcs11", _("Signing token (PKCS#11)")
    CSC = "csc", _("Remote signing service (CSC API)")


class SigningCertificate(models.Model):
    """An approver's own signing certificate: an uploaded PKCS#12, stored only encrypted under
    a key derived from their passphrase (advisor/brief/credentials.py; the passphrase is never
    stored), a key on their PKCS#11 token, named by the token's and the key's labels/id, or a
    credential at a remote signing service, named by its ID (the PIN is never stored). Only the certificate's public facts are kept in clear, to show
    which is registered."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("approver"),
        on_delete=models.CASCADE,
        related_name="signing_certificate",
    )
    source = models.CharField(
        verbose_name=_("key source"),
        max_length=10,
        choices=KeySource.choices,
        default=KeySource.PKCS12,
    )
    ciphertext = models.BinaryField(verbose_name=_("encrypted PKCS#12"), blank=True, default=b"")
    salt = models.BinaryField(verbose_name=_("key derivation salt"), blank=True, default=b"")
    nonce = models.BinaryField(verbose_name=_("encryption nonce"), blank=True, default=b"")
    token_label = models.CharField(verbose_name=_("token label"), max_length=32, blank=True)
    key_label = models.CharField(verbose_name=_("key label"), max_length=100, blank=True)
    key_id = models.CharField(verbose_name=_("key ID (hex)"), max_length=128, blank=True)
    credential_id = models.CharField(
        verbose_name=_("credential ID at the signing service"), max_length=200, blank=True
    )
    subject = models.CharField(verbose_name=_("certificate subject"), max_length=500)
    issuer = models.CharField(verbose_name=_("certificate issuer"), max_length=500)
    fingerprint = models.CharField(verbose_name=_("SHA-256 fingerprint"), max_length=64)
    not_after = models.DateTimeField(verbose_name=_("valid until"))
    created_at = models.DateTimeField(verbose_name=_("registered"), auto_now_add=True)

    class Meta:
        verbose_name = _("approver's signing certificate")
        verbose_name_plural = _("approvers' signing certificates")

    def __str__(self):
        return f"{self.user} ({self.subject})"
