"""Issuing, generating, approving and sending back briefs: the only code that writes them.

Issuing freezes the content (snapshot) in one transaction and queues the PDF generation as a
task; generation renders, signs and stores the PDF, or records the failure so it can be
retried without losing anything. Approval re-renders the same snapshot without the draft
mark and signs it again with the approval recorded.
"""

from __future__ import annotations

import logging
import threading
from datetime import date, timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import close_old_connections, connection, transaction
from django.db.models import F, Q
from django.tasks import TaskResultStatus
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, override

from advisor.brief import audit
from advisor.brief.catalog_records import frozen_for, records_for
from advisor.brief.config import signing_config
from advisor.brief.models import (
    AuditAction,
    Brief,
    BriefStatus,
    new_failure_reference,
    next_brief_number,
)
from advisor.brief.render import BriefMeta, render_pdf
from advisor.brief.signing import SignatureRequest, sign_pdf
from advisor.brief.snapshot import brief_snapshot, choose
from advisor.brief.verify import sha256_hex
from advisor.questionnaire.services import questionnaire_snapshot
from advisor.selectors.recommend import run_recommendation

logger = logging.getLogger(__name__)


class BriefError(Exception):
    """A brief cannot be issued or changed in the way asked (message is user-facing)."""


def _snapshot(
    document: dict, option_key: str | None, today: date, inputs: dict, run=None, records=None
) -> dict:
    """The brief's frozen content; from ``run`` (the stored recommendation the buyer saw, with
    the day it was computed for, and ``records``: the catalog records as they were then) when
    given, else computed now (the CLI)."""
    if run is None:
        run = run_recommendation(document, today=today)
    today = run.today
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
    if records is not None:
        snapshot["catalog"] = frozen_for(records, [o["key"] for o in snapshot["options"]])
    else:
        snapshot["catalog"] = records_for(snapshot["options"])
    chosen = choose(run.recommendation, option_key)[0]
    snapshot["vendor_questionnaire"] = questionnaire_snapshot(run, chosen)
    return snapshot


def issue_brief(
    *,
    user,
    document: dict,
    option_key: str | None = None,
    language: str = "zh-hans",
    assessment=None,
    inputs: dict | None = None,
    run=None,
    records: dict | None = None,
) -> Brief:
    """Freeze a brief for ``option_key`` (default: the top recommendation) and queue its PDF.

    ``run`` and ``records``: the stored recommendation the buyer saw and the catalog records
    behind it (advisor.results.services.Computed); the brief then holds exactly its options,
    figures, checks and sources. Without them the recommendation is computed.
    """
    today = timezone.localdate()
    snapshot = _snapshot(document, option_key, today, inputs or document, run, records)
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
    Brief.objects.filter(pk=brief.pk).update(
        status=BriefStatus.GENERATING, failure="", generation_attempts=0, lease_until=None
    )
    brief.refresh_from_db()
    transaction.on_commit(lambda: queue_generation(brief))
    return brief


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


def _meta(brief: Brief, *, approved: bool) -> BriefMeta:
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
        unsigned, signed = _signed_pdf(brief, approved=False)
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
        _store(brief, unsigned, signed)
        brief.draft_sha256 = brief.sha256 if settings.BRIEF_APPROVAL_REQUIRED else ""
        brief.status = (
            BriefStatus.AWAITING_APPROVAL
            if settings.BRIEF_APPROVAL_REQUIRED
            else BriefStatus.ISSUED
        )
        brief.failure = ""
        brief.lease_until = None
        brief.save()
    return brief


def recover_stalled(now=None) -> list[Brief]:
    """Queue again every brief whose generation lease ran out (its worker died).

    Run by every brief worker in the background (``manage.py brief_worker``). A brief that
    already had MAX_GENERATION_ATTEMPTS attempts is marked failed instead, saying why; its
    preparer can retry it. Returns the briefs requeued or failed.
    """
    now = now or timezone.now()
    handled = []
    for brief in Brief.objects.filter(status=BriefStatus.GENERATING, lease_until__lt=now):
        still = Brief.objects.filter(
            pk=brief.pk, status=BriefStatus.GENERATING, lease_until=brief.lease_until
        )
        if brief.generation_attempts >= MAX_GENERATION_ATTEMPTS:
            reference = new_failure_reference()
            failure = (
                f"{reference} WorkerLost: the worker stopped {brief.generation_attempts} times "
                "while generating this brief"
            )
            if still.update(status=BriefStatus.FAILED, failure=failure, lease_until=None):
                logger.error("Brief %s failed: %s", brief.number, failure)
                handled.append(brief)
            continue
        if still.update(lease_until=None):  # only one worker requeues it
            _fail_lost_tasks(brief)
            logger.warning(
                "Brief %s: its worker stopped during attempt %s; queued again",
                brief.number,
                brief.generation_attempts,
            )
            queue_generation(brief)
            handled.append(brief)
    return handled


def _fail_lost_tasks(brief: Brief) -> None:
    """Mark the dead worker's task row failed, so that the queue shows what happened."""
    from django_tasks_db.models import DBTaskResult

    from advisor.brief.tasks import generate_brief

    running = DBTaskResult.objects.filter(
        task_path=generate_brief.module_path, status=TaskResultStatus.RUNNING
    )
    for row in running:
        if ((row.args_kwargs or {}).get("args") or [None])[0] == brief.pk:
            row.set_failed(RuntimeError("worker lost while running this task"))


def watch_generation(stop: threading.Event, interval: float | None = None) -> None:
    """Loop of a brief worker's watchdog thread: recover stalled briefs until ``stop`` is set."""
    from advisor.brief.management.commands.requeue_stuck_briefs import requeue_stuck

    interval = interval or lease_seconds() / 2
    while not stop.wait(interval):
        try:
            close_old_connections()
            recover_stalled()
            # Briefs whose task was lost before any worker took the lease.
            requeue_stuck(timedelta(minutes=10))
        except Exception:  # noqa: BLE001 - the watchdog must outlive a database hiccup
            logger.exception("Recovering stalled briefs failed")
        finally:
            connection.close()


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
        try:
            unsigned, signed = _signed_pdf(current, approved=True)
        except Exception:
            reference = new_failure_reference()
            logger.exception(
                "Signing approved brief %s failed (reference %s)", current.number, reference
            )
            raise BriefError(
                gettext(
                    "The approved PDF could not be made and signed, so brief %(number)s was not "
                    "approved. Try again later; if it keeps failing, give the administrator the "
                    "reference %(reference)s."
                )
                % {"number": current.number, "reference": reference}
            ) from None
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
