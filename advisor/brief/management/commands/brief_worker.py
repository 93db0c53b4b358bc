"""``manage.py brief_worker``: the database task worker plus a watchdog for stalled briefs.

Same options as django_tasks_db's ``db_worker``. Beside the worker loop runs a thread that,
every half generation lease, queues again the briefs whose worker died in the middle
(``advisor.brief.recovery.recover_stalled``) and those whose task was lost before any worker
started it (``requeue_stuck_briefs``' rule). So briefs recover by themselves as long as one
brief worker runs anywhere; nobody has to run ``requeue_stuck_briefs`` by hand.
"""

from __future__ import annotations

import os
import threading

from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from advisor.brief.priority import yield_to_the_web
from advisor.brief.recovery import recover_stalled, watch_generation


class Command(DbWorkerCommand):
    help = (
        "Run the brief (database task) worker, with a watchdog that queues again briefs "
        "whose worker died while generating them."
    )

    def handle(self, *args, **options):
        done = yield_to_the_web()  # its niceness across autogroups too (decision 0079)
        self.stdout.write(f"brief worker priority: niceness {os.nice(0)}, {done}")
        recover_stalled()  # what a dead predecessor left, before taking new work
        stop = threading.Event()
        watchdog = threading.Thread(
            target=watch_generation, args=(stop,), name="brief-watchdog", daemon=True
        )
        watchdog.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
