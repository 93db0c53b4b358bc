"""Issuing, generating, approving and sending back briefs: the only code that writes them.

Issuing freezes the content (snapshot) in one transaction and queues the PDF generation as a
task; generation renders, signs and stores the PDF, or records the failure so it can be
retried without losing anything. Approval re-renders the same snapshot without the draft
mark and signs it again with the approval recorded.
"""

from __future__ import annotations

import logging
from datetime import date

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, override

from advisor.brief import audit
from advisor.brief.catalog_records import records_for
from advisor.brief.config import signing_config
from advisor.brief.models import AuditAction, Brief, BriefStatus, next_brief_number
from advisor.brief.render import BriefMeta, render_pdf
from advisor.brief.signing import SignatureRequest, sign_pdf
from advisor.brief.snapshot import brief_snapshot
from advisor.brief.verify import sha256_hex
from advisor.selectors.recommend import run_recommendation

logger = logging.getLogger(__name__)


class BriefError(Exception):
    """A brief cannot be issued or changed in the way asked (message is user-facing)."""


def _snapshot(document: dict, option_key: str | None, today: date, inputs: dict) -> dict:
    run = run_recommendation(document, today=today)
    if not run.recommendation.options:
        raise BriefError(gettext("There is no option to put in a brief."))
    try:
        snapshot = brief_snapshot(
            scenario=run.scenario,
            procurement=run.procurement,
            recommendation=run.recommendation,
            chosen_key=option_key,
            today=today,
            inputs=inputs,
        )
    except KeyError as error:
        raise BriefError(gettext("That option is no longer among the results.")) from error
    snapshot["catalog"] = records_for(snapshot["options"])
    return snapshot


def issue_brief(
    *,
    user,
    document: dict,
    option_key: str | None = None,
    language: str = "zh-hans",
    assessment=None,
    inputs: dict | None = None,
) -> Brief:
    """Freeze a brief for ``option_key`` (default: the top recommendation) and queue its PDF."""
    today = timezone.localdate()
    snapshot = _snapshot(document, option_key, today, inputs or document)
    with transaction.atomic():
        brief = Brief.objects.create(
            number=next_brief_number(today.year),
            language=language,
            status=BriefStatus.GENERATING,
            assessment=assessment,
            prepared_by=user,
            snapshot=snapshot,
            ruleset_version=snapshot["ruleset_version"],
        )
        audit.record(AuditAction.BRIEF_ISSUED, actor=user, brief=brief, option=option_key)
        transaction.on_commit(lambda: queue_generation(brief))
    return brief


def queue_generation(brief: Brief) -> None:
    from advisor.brief.tasks import generate_brief

    generate_brief.enqueue(brief.pk)


def retry(brief: Brief, user) -> Brief:
    if brief.status != BriefStatus.FAILED:
        raise BriefError(gettext("Only a brief whose generation failed can be retried."))
    Brief.objects.filter(pk=brief.pk).update(status=BriefStatus.GENERATING, failure="")
    brief.refresh_from_db()
    transaction.on_commit(lambda: queue_generation(brief))
    return brief


def verify_url() -> str:
    return settings.SITE_URL.rstrip("/") + reverse("brief:verify")


def _meta(brief: Brief, *, approved: bool) -> BriefMeta:
    with override(brief.language):
        status = BriefStatus.APPROVED if approved else brief.status
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
        organisation=settings.BRIEF_SIGNING["ORGANISATION"],
    )


def _signed_pdf(brief: Brief, *, approved: bool) -> tuple[bytes, bytes]:
    unsigned = render_pdf(brief.snapshot, _meta(brief, approved=approved))
    reason = f"Procurement brief {brief.number}" + (" (approved)" if approved else "")
    contact = brief.prepared_by.email or brief.prepared_by.get_username()
    signed = sign_pdf(unsigned, signing_config(), SignatureRequest(reason, contact_info=contact))
    return unsigned, signed


def _store(brief: Brief, unsigned: bytes, signed: bytes) -> None:
    suffix = "approved" if brief.approved else "draft"
    brief.pdf.save(f"{brief.number}-{suffix}.pdf", ContentFile(signed), save=False)
    brief.sha256 = sha256_hex(signed)
    brief.unsigned_sha256 = sha256_hex(unsigned)


def generate(brief_id: int) -> Brief:
    """Render, sign and store the draft PDF; on any failure record it and keep the brief."""
    brief = Brief.objects.select_related("prepared_by").get(pk=brief_id)
    if brief.status != BriefStatus.GENERATING:
        return brief  # already generated (a retried or duplicated task)
    try:
        unsigned, signed = _signed_pdf(brief, approved=False)
    except Exception as error:  # noqa: BLE001 - any failure must be shown and retryable
        logger.exception("Generating brief %s failed", brief.number)
        Brief.objects.filter(pk=brief.pk).update(
            status=BriefStatus.FAILED, failure=f"{type(error).__name__}: {error}"
        )
        brief.refresh_from_db()
        return brief
    with transaction.atomic():
        _store(brief, unsigned, signed)
        brief.draft_sha256 = brief.sha256 if settings.BRIEF_APPROVAL_REQUIRED else ""
        brief.status = (
            BriefStatus.AWAITING_APPROVAL
            if settings.BRIEF_APPROVAL_REQUIRED
            else BriefStatus.ISSUED
        )
        brief.failure = ""
        brief.save()
    return brief


class AlreadyDecided(BriefError):
    """Another approver decided the brief first; this decision was not recorded."""


_DECIDED = (BriefStatus.APPROVED, BriefStatus.SENT_BACK, BriefStatus.ISSUED)


def _already_decided(brief: Brief) -> AlreadyDecided:
    return AlreadyDecided(
        gettext(
            "Brief %(number)s has already been decided by someone else; "
            "your decision was not recorded."
        )
        % {"number": brief.number}
    )


def _check_decidable(brief: Brief, *, approving: bool) -> None:
    if brief.status in _DECIDED:
        raise _already_decided(brief)
    if brief.status != BriefStatus.AWAITING_APPROVAL:
        if approving:
            raise BriefError(gettext("Only a brief awaiting approval can be approved."))
        raise BriefError(gettext("Only a brief awaiting approval can be sent back."))


def _claim(brief: Brief, **fields) -> None:
    """The one decision: a conditional update on the status, inside the caller's transaction.

    Whoever's update finds the brief still awaiting approval decides it; the other gets
    ``AlreadyDecided`` and its transaction (audit entry, stored file) is rolled back.
    """
    won = Brief.objects.filter(pk=brief.pk, status=BriefStatus.AWAITING_APPROVAL).update(
        updated_at=timezone.now(), **fields
    )
    if not won:
        raise _already_decided(brief)


def approve(brief: Brief, approver) -> Brief:
    """Approve and re-sign; exactly one decision per brief, even when two approvers race.

    The row is locked (``select_for_update``: a second decision waits, then finds the brief
    decided and signs nothing) and the status is updated conditionally (the guard that also
    holds where the database has no row locks, e.g. SQLite). The approved PDF is stored only
    after this decision has won.
    """
    _check_decidable(brief, approving=True)
    if brief.prepared_by_id == approver.pk:
        raise BriefError(gettext("You cannot approve a brief you prepared yourself."))
    with transaction.atomic():
        current = Brief.objects.select_for_update().select_related("prepared_by").get(pk=brief.pk)
        _check_decidable(current, approving=True)
        current.approved_by = approver
        current.approved_at = timezone.now()
        current.status = BriefStatus.APPROVED
        unsigned, signed = _signed_pdf(current, approved=True)
        _claim(
            current,
            status=BriefStatus.APPROVED,
            approved_by=approver,
            approved_at=current.approved_at,
        )
        _store(current, unsigned, signed)
        current.save(update_fields=["pdf", "sha256", "unsigned_sha256", "updated_at"])
        audit.record(AuditAction.BRIEF_APPROVED, actor=approver, brief=current)
    brief.refresh_from_db()
    return brief


def send_back(brief: Brief, approver, comment: str) -> Brief:
    _check_decidable(brief, approving=False)
    if not comment.strip():
        raise BriefError(gettext("Say what needs to change before sending the brief back."))
    with transaction.atomic():
        current = Brief.objects.select_for_update().get(pk=brief.pk)
        _check_decidable(current, approving=False)
        _claim(current, status=BriefStatus.SENT_BACK, review_comment=comment.strip())
        audit.record(AuditAction.BRIEF_SENT_BACK, actor=approver, brief=current, comment=comment)
    brief.refresh_from_db()
    return brief


def record_download(brief: Brief, user) -> None:
    audit.record(AuditAction.BRIEF_DOWNLOADED, actor=user, brief=brief)
