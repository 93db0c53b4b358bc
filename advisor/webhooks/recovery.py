"""Deliveries whose worker died, tried again (docs/decisions/0144-webhook-claims-run-out.md).

django_tasks_db marks a task RUNNING when a worker takes it and never hands it on, so a webhook
worker killed mid-send would leave its message waiting for ever. A worker holds the message it
sends by a claim that runs out (``WebhookMessage.claimed_until``, ``WEBHOOK_CLAIM_S``): when it
has, :func:`recover_lost` logs the lost attempt ("WorkerLost") and queues the message again at
once; the lost attempt counts, so a message that kills its worker every time fails after the
last attempt like any other. The receiver may have had it: it carries the same ``webhook-id``,
and a receiver drops one it has processed. :func:`requeue_unclaimed` queues
again a message whose task was lost before any worker claimed it. Every webhook worker runs
both in a watchdog thread (``manage.py webhook_worker``), so one live worker is enough.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.db import close_old_connections, connection, transaction
from django.db.models import Q
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from advisor.webhooks.delivery import OPEN, after_failure, claim_seconds
from advisor.webhooks.models import DeliveryStatus, WebhookAttempt, WebhookMessage
from advisor.webhooks.tasks import deliver_webhook, queue

logger = logging.getLogger(__name__)

LOST = "WorkerLost: the worker stopped while sending this attempt"
# A message waiting this long past its time, unclaimed and without a live task, was lost.
UNCLAIMED_AFTER = timedelta(minutes=10)


class WorkerLost(RuntimeError):
    """Recorded on a delivery task left RUNNING by a worker that is gone."""


def _tasks_by_message(*statuses) -> dict[int, list]:
    rows = DBTaskResult.objects.filter(task_path=deliver_webhook.module_path, status__in=statuses)
    by_message: dict[int, list] = {}
    for row in rows:
        args = (row.args_kwargs or {}).get("args") or [None]
        by_message.setdefault(args[0], []).append(row)
    return by_message


def recover_lost(now=None) -> list[WebhookMessage]:
    """Every message whose claim ran out: the lost attempt logged and the message queued again
    at once (failed when it was the last attempt). One worker wins each (a conditional
    update). Returns the messages handled."""
    now = now or timezone.now()
    handled = []
    for message in WebhookMessage.objects.filter(status__in=OPEN, claimed_until__lt=now):
        attempts = message.attempts + 1
        status, next_at = after_failure(attempts, now)
        if status == DeliveryStatus.RETRYING:
            next_at = now  # the receiver did not fail: no reason to wait
        with transaction.atomic():
            won = WebhookMessage.objects.filter(
                pk=message.pk, status__in=OPEN, claimed_until=message.claimed_until
            ).update(status=status, attempts=attempts, next_attempt_at=next_at, claimed_until=None)
            if not won:
                continue
            WebhookAttempt.objects.create(message=message, number=attempts, error=LOST)
            for row in _tasks_by_message(TaskResultStatus.RUNNING).get(message.pk, []):
                row.set_failed(WorkerLost("worker lost while running this task"))
            if status == DeliveryStatus.RETRYING:
                transaction.on_commit(lambda pk=message.pk: queue(pk))
        logger.warning("Webhook %s: its worker stopped during attempt %s", message, attempts)
        handled.append(message)
    return handled


def requeue_unclaimed(now=None, older_than: timedelta = UNCLAIMED_AFTER) -> list[WebhookMessage]:
    """Messages due for longer than ``older_than``, unclaimed, whose task is neither waiting nor
    recently started (lost before a worker claimed the message): queued again."""
    now = now or timezone.now()
    cutoff = now - older_than
    due = WebhookMessage.objects.filter(status__in=OPEN, claimed_until__isnull=True).filter(
        Q(next_attempt_at__lt=cutoff) | Q(next_attempt_at__isnull=True, created_at__lt=cutoff)
    )
    if not due.exists():
        return []
    tasks = _tasks_by_message(TaskResultStatus.READY, TaskResultStatus.RUNNING)
    requeued = []
    for message in due:
        rows = tasks.get(message.pk, [])
        if any(row.status == TaskResultStatus.READY for row in rows):
            continue  # still waiting for a worker: the queue is long, not lost
        if any(row.started_at and row.started_at >= cutoff for row in rows):
            continue  # a worker took it recently
        for row in rows:
            row.set_failed(WorkerLost(f"worker {row.worker_ids} lost before sending"))
        queue(message.pk)
        requeued.append(message)
    return requeued


def watch_deliveries(stop: threading.Event, interval: float | None = None) -> None:
    """Loop of a webhook worker's watchdog thread, until ``stop`` is set."""
    interval = interval or claim_seconds() / 2
    while not stop.wait(interval):
        try:
            close_old_connections()
            recover_lost()
            requeue_unclaimed()
        except Exception:  # noqa: BLE001 - the watchdog must outlive a database hiccup
            logger.exception("Recovering lost webhook deliveries failed")
        finally:
            connection.close()
