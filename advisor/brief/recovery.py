"""Briefs whose generation was lost, queued again (docs/decisions/0013 and 0021).

Two ways a generation is lost. The worker that held a brief's lease died (killed, out of memory,
host lost): the lease runs out and :func:`recover_stalled` queues it again, up to
MAX_GENERATION_ATTEMPTS. Or the task itself was lost before any worker took the lease:
django_tasks_db claims a task by marking it RUNNING, and nothing ever sets it back if the
worker dies; :func:`requeue_stuck` finds briefs generating for too long whose task is neither
waiting nor recently started, marks the stale task failed and queues a new one.
``generate()`` does nothing for a brief that is no longer generating, so a late duplicate is
harmless. Every brief worker runs both in a watchdog thread (:func:`watch_generation`);
``manage.py requeue_stuck_briefs`` runs the second by hand.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.db import close_old_connections, connection
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from advisor.brief.generation import MAX_GENERATION_ATTEMPTS, lease_seconds
from advisor.brief.models import Brief, BriefStatus, new_failure_reference
from advisor.brief.services import queue_generation
from advisor.brief.tasks import generate_brief

logger = logging.getLogger(__name__)


class WorkerLost(RuntimeError):
    """Recorded on a task left RUNNING by a worker that is gone."""


def _tasks_by_brief(*statuses) -> dict[int, list]:
    """The brief-generation task rows with one of ``statuses``, by the brief they are for."""
    rows = DBTaskResult.objects.filter(task_path=generate_brief.module_path, status__in=statuses)
    by_brief: dict[int, list] = {}
    for row in rows:
        args = (row.args_kwargs or {}).get("args") or [None]
        by_brief.setdefault(args[0], []).append(row)
    return by_brief


def requeue_stuck(older_than: timedelta, *, dry_run: bool = False) -> list[Brief]:
    """Requeue briefs generating for longer than ``older_than``; returns those requeued."""
    cutoff = timezone.now() - older_than
    stuck = list(Brief.objects.filter(status=BriefStatus.GENERATING, updated_at__lt=cutoff))
    if not stuck:
        return []
    tasks = _tasks_by_brief(TaskResultStatus.READY, TaskResultStatus.RUNNING)
    requeued = []
    for brief in stuck:
        rows = tasks.get(brief.pk, [])
        if any(row.status == TaskResultStatus.READY for row in rows):
            continue  # still waiting for a worker: the queue is long, not lost
        if any(row.started_at and row.started_at >= cutoff for row in rows):
            continue  # a worker started it recently
        requeued.append(brief)
        if dry_run:
            continue
        for row in rows:  # RUNNING since before the cutoff: its worker is gone
            row.set_failed(WorkerLost(f"worker {row.worker_ids} lost while running this task"))
        # Touch the brief so that another run does not requeue it again at once.
        Brief.objects.filter(pk=brief.pk, status=BriefStatus.GENERATING).update(
            updated_at=timezone.now()
        )
        queue_generation(brief)
    return requeued


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
    for row in _tasks_by_brief(TaskResultStatus.RUNNING).get(brief.pk, []):
        row.set_failed(WorkerLost("worker lost while running this task"))


def watch_generation(stop: threading.Event, interval: float | None = None) -> None:
    """Loop of a brief worker's watchdog thread: recover stalled briefs until ``stop`` is set."""
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
