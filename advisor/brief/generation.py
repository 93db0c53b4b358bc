"""Generating a brief's PDF: render the frozen snapshot, sign it, store it (decision 0021).

A worker takes the brief's lease before rendering and renews it while it works; a lease that
runs out means the worker died (:mod:`advisor.brief.recovery` queues it again).
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import connection, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, override

from advisor.brief.config import signing_config
from advisor.brief.models import Brief, BriefStatus, new_failure_reference
from advisor.brief.render import BriefMeta, render_pdf
from advisor.brief.signals import brief_generated
from advisor.brief.signing import (
    LevelUnavailable,
    SignatureRequest,
    levels_from,
    planned_level,
    sign_pdf,
)
from advisor.brief.verify import sha256_hex

logger = logging.getLogger(__name__)


def verify_url() -> str:
    return settings.SITE_URL.rstrip("/") + reverse("brief:verify")


def cover_status(*, approved: bool) -> str:
    """The status printed on the cover: what the PDF *is*, never the moment it was rendered.

    A draft is rendered while the brief is still "being generated"; its cover says what it
    will be once stored: awaiting approval (or issued when no approval is required).
    """
    if approved:
        return BriefStatus.APPROVED
    if settings.BRIEF_APPROVAL_REQUIRED:
        return BriefStatus.AWAITING_APPROVAL
    return BriefStatus.ISSUED


def meta(brief: Brief, *, approved: bool, signature_level: str = "") -> BriefMeta:
    with override(brief.language):
        status = cover_status(approved=approved)
        status_label = str(BriefStatus(status).label)
    return BriefMeta(
        number=brief.number,
        language=brief.language,
        status=status,
        status_label=status_label,
        approved=approved,
        prepared_by=brief.prepared_by.get_full_name() or brief.prepared_by.get_username(),
        prepared_at=timezone.localtime(brief.created_at),
        approved_by=(brief.approved_by.get_full_name() or brief.approved_by.get_username())
        if brief.approved_by
        else None,
        approved_at=timezone.localtime(brief.approved_at) if brief.approved_at else None,
        verify_url=verify_url(),
        organisation=organisation_name(brief.language),
        approval_comment=brief.review_comment if approved else "",
        vetoes_acknowledged=brief.vetoes_acknowledged and approved,
        approver_signed=brief.approver_signed and approved,
        signature_level=signature_level,
    )


def organisation_name(language: str) -> str:
    """The organisation as a brief in ``language`` names it (both are settings)."""
    signing = settings.BRIEF_SIGNING
    if language.lower().startswith("zh") and signing.get("ORGANISATION_ZH"):
        return signing["ORGANISATION_ZH"]
    return signing["ORGANISATION"]


def signing_reason(brief: Brief, approved: bool) -> str:
    """The system signature's reason, in the brief's language (the verify page and a PDF
    reader show it beside the signature): "采购简报 FT-2026-000001（已批准）"."""
    with override(brief.language):
        if approved:
            return gettext("Procurement brief %(number)s (approved)") % {"number": brief.number}
        return gettext("Procurement brief %(number)s") % {"number": brief.number}


def signed_pdf(brief: Brief, *, approved: bool, countersign=None) -> tuple[bytes, bytes]:
    """The brief rendered and signed at the highest level the configuration reaches now
    (docs/decisions/0117): a level whose timestamp or validation data cannot be had falls back
    one level, and the PDF is rendered again to state the level it is signed at.
    ``countersign(signed, level)`` adds a further signature (the approver's) at that level."""
    config = signing_config()
    reason = signing_reason(brief, approved)
    contact = brief.prepared_by.email or brief.prepared_by.get_username()
    request = SignatureRequest(reason, contact_info=contact)
    for level in levels_from(planned_level(config)):
        unsigned = render_pdf(brief.snapshot, meta(brief, approved=approved, signature_level=level))
        try:
            signed = sign_pdf(unsigned, config, request, level)
            if countersign is not None:
                signed = countersign(signed, level)
        except LevelUnavailable as error:
            logger.warning("Brief %s: %s; signing one level lower", brief.number, error)
            continue
        return unsigned, signed
    raise AssertionError("B-B never raises LevelUnavailable")


def store(brief: Brief, unsigned: bytes, signed: bytes) -> None:
    suffix = "approved" if brief.approved else "draft"
    brief.pdf.save(f"{brief.number}-{suffix}.pdf", ContentFile(signed), save=False)
    brief.sha256 = sha256_hex(signed)
    brief.unsigned_sha256 = sha256_hex(unsigned)


# --- Generation lease (docs/decisions/0021) ---------------------------------------------------
# A worker takes a brief's lease before rendering and renews it every third of its length while
# it works; a lease that runs out means the worker died (killed, out of memory, host lost).
# Every brief worker looks for such briefs (``recover_stalled``) and queues them again, up to
# MAX_GENERATION_ATTEMPTS attempts; then the brief is marked failed and its preparer may retry.
MAX_GENERATION_ATTEMPTS = 3


def lease_seconds() -> float:
    return float(settings.BRIEF_GENERATION_LEASE_S)


def _claim_generation(brief_id: int) -> bool:
    """Take the brief's lease: True unless another worker holds a live one or it is done."""
    now = timezone.now()
    taken = (
        Brief.objects.filter(pk=brief_id, status=BriefStatus.GENERATING)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .update(
            lease_until=now + timedelta(seconds=lease_seconds()),
            generation_attempts=F("generation_attempts") + 1,
        )
    )
    return taken == 1


class _Heartbeat(threading.Thread):
    """Renews the lease while the render runs (its own database connection)."""

    def __init__(self, brief_id: int):
        super().__init__(name=f"brief-{brief_id}-lease", daemon=True)
        self.brief_id = brief_id
        self.done = threading.Event()

    def run(self):
        interval = lease_seconds() / 3
        try:
            while not self.done.wait(interval):
                try:
                    Brief.objects.filter(pk=self.brief_id, status=BriefStatus.GENERATING).update(
                        lease_until=timezone.now() + timedelta(seconds=lease_seconds())
                    )
                except Exception:  # noqa: BLE001 - a missed renewal only risks a duplicate
                    logger.warning("Renewing the lease of brief %s failed", self.brief_id)
        finally:
            connection.close()

    def stop(self):
        self.done.set()


def generate(brief_id: int) -> Brief:
    """Render, sign and store the draft PDF; on any failure record it and keep the brief."""
    if not _claim_generation(brief_id):
        # Already generated (a retried or duplicated task), or another worker holds the lease.
        return Brief.objects.select_related("prepared_by").get(pk=brief_id)
    brief = Brief.objects.select_related("prepared_by").get(pk=brief_id)
    heartbeat = _Heartbeat(brief_id)
    heartbeat.start()
    try:
        unsigned, signed = signed_pdf(brief, approved=False)
    except Exception as error:  # noqa: BLE001 - any failure must be shown and retryable
        # The buyer sees a plain message and the reference; the detail (it may name files or
        # library errors) goes to the operator's log, and stays on the record for admin.
        reference = new_failure_reference()
        logger.exception("Generating brief %s failed (reference %s)", brief.number, reference)
        Brief.objects.filter(pk=brief.pk).update(
            status=BriefStatus.FAILED,
            failure=f"{reference} {type(error).__name__}: {error}",
            lease_until=None,
        )
        brief.refresh_from_db()
        return brief
    finally:
        heartbeat.stop()
    with transaction.atomic():
        store(brief, unsigned, signed)
        brief.draft_sha256 = brief.sha256 if settings.BRIEF_APPROVAL_REQUIRED else ""
        brief.status = (
            BriefStatus.AWAITING_APPROVAL
            if settings.BRIEF_APPROVAL_REQUIRED
            else BriefStatus.ISSUED
        )
        brief.failure = ""
        brief.lease_until = None
        brief.save()
        brief_generated.send(sender=Brief, brief=brief)
    return brief
