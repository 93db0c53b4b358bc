"""Queue again the briefs whose generation was lost (docs/decisions/0013-load-faults.md).

django_tasks_db claims a task by marking it RUNNING; if the worker process dies in the middle
(killed, out of memory, host lost), nothing ever sets it back, and the brief stays "being
generated" for good. Generating a brief takes seconds, so a brief still generating after
``--older-than`` minutes whose task is not waiting in the queue, nor started recently, has lost
its worker: its stale task is marked failed and a new one is queued. ``generate()`` does
nothing for a brief that is no longer generating, so a late duplicate is harmless.

Run it when a worker starts and every few minutes (cron, systemd timer, or a loop next to the
workers); it is idempotent.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.tasks import TaskResultStatus
from django.utils import timezone

from advisor.brief.models import Brief, BriefStatus
from advisor.brief.services import queue_generation
from advisor.brief.tasks import generate_brief


class WorkerLost(RuntimeError):
    """Recorded on a task left RUNNING by a worker that is gone."""


def _tasks_by_brief(task_path: str) -> dict[int, list]:
    from django_tasks_db.models import DBTaskResult

    pending = DBTaskResult.objects.filter(
        task_path=task_path, status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]
    )
    by_brief: dict[int, list] = {}
    for row in pending:
        args = (row.args_kwargs or {}).get("args") or [None]
        by_brief.setdefault(args[0], []).append(row)
    return by_brief


def requeue_stuck(older_than: timedelta, *, dry_run: bool = False) -> list[Brief]:
    """Requeue briefs generating for longer than ``older_than``; returns those requeued."""
    cutoff = timezone.now() - older_than
    stuck = list(Brief.objects.filter(status=BriefStatus.GENERATING, updated_at__lt=cutoff))
    if not stuck:
        return []
    tasks = _tasks_by_brief(generate_brief.module_path)
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


class Command(BaseCommand):
    help = (
        "Queue again the briefs stuck in 'being generated' for longer than --older-than "
        "minutes (their task worker died while generating them)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=float,
            default=10.0,
            help="Minutes a brief may stay generating before it counts as stuck (default 10).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="List the stuck briefs; change nothing."
        )

    def handle(self, *args, older_than: float, dry_run: bool, **options):
        briefs = requeue_stuck(timedelta(minutes=older_than), dry_run=dry_run)
        verb = "stuck (dry run)" if dry_run else "queued again"
        for brief in briefs:
            self.stdout.write(f"{brief.number} (id {brief.pk}): {verb}")
        self.stdout.write(f"{len(briefs)} brief(s) {verb}.")
