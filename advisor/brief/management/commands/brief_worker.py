"""``manage.py brief_worker``: the database task worker plus a watchdog for stalled briefs.

Same options as django_tasks_db's ``db_worker``. Beside the worker loop runs a thread that,
every half generation lease, queues again the briefs whose worker died in the middle
(``advisor.brief.recovery.recover_stalled``) and those whose task was lost before any worker
started it (``requeue_stuck_briefs``' rule). So briefs recover by themselves as long as one
brief worker runs anywhere; nobody has to run ``requeue_stuck_briefs`` by hand.

Each task runs in a thread of its own, niced while its brief is on time and at a page view's
priority once it is late (``advisor.brief.priority``, decision 0145).
"""

from __future__ import annotations

import os
import threading

from django.conf import settings
from django.core.management import CommandError
from django.utils import timezone
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand
from django_tasks_db.management.commands.db_worker import Worker

from advisor.brief.priority import render_niceness, run_at_niceness, yield_to_the_web
from advisor.brief.recovery import recover_stalled, watch_generation
from advisor.warmup import warm_up


class BriefWorker(Worker):
    """db_worker's worker, each task in a thread niced by how long the task has waited."""

    def run_task(self, db_task_result) -> None:
        waited = (timezone.now() - db_task_result.enqueued_at).total_seconds()
        niceness = render_niceness(
            waited, nice=settings.BRIEF_WORKER_NICE, late_after_s=settings.BRIEF_LATE_AFTER_S
        )
        run = super().run_task
        run_at_niceness(niceness, lambda: run(db_task_result), name="brief-render")


class Command(DbWorkerCommand):
    help = (
        "Run the brief (database task) worker, with a watchdog that queues again briefs "
        "whose worker died while generating them."
    )

    def handle(self, *args, **options):
        # Its autogroup niced too when it leads its own session (decision 0079).
        done = yield_to_the_web(settings.BRIEF_WORKER_NICE)
        self.stdout.write(
            f"brief worker priority: briefs on time at niceness {settings.BRIEF_WORKER_NICE}, "
            f"late after {settings.BRIEF_LATE_AFTER_S:g} s at {os.nice(0)}; {done}"
        )
        # Imports, templates and catalogs loaded before the first brief, as the web's start
        # does (decision 0034): the first brief is not the one that pays them, under load.
        warmed = warm_up()
        self.stdout.write(
            "brief worker warmed: " + ", ".join(f"{v} {k}" for k, v in warmed.items())
        )
        recover_stalled()  # what a dead predecessor left, before taking new work
        stop = threading.Event()
        watchdog = threading.Thread(
            target=watch_generation, args=(stop,), name="brief-watchdog", daemon=True
        )
        watchdog.start()
        try:
            self.run_worker(**options)
        finally:
            stop.set()

    def run_worker(
        self,
        *,
        verbosity: int,
        queue_name: str,
        interval: float,
        batch: bool,
        backend_name: str,
        startup_delay: bool,
        max_tasks: int | None,
        worker_id: str,
        exclude_queues: str,
        reload: bool,
        **_options,
    ) -> None:
        """db_worker's ``handle``, with BriefWorker."""
        self.configure_logging(verbosity)
        if exclude_queues and "*" not in queue_name.split(","):
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = BriefWorker(
            queue_names=queue_name.split(","),
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=exclude_queues.split(",") if exclude_queues else [],
        )
        if reload and not batch:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # only the reloader's child
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
