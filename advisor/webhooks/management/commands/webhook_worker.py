"""``manage.py webhook_worker``: the database task worker plus a watchdog for lost deliveries.

Same options as django_tasks_db's ``db_worker`` (``scripts/serve-production webhooks`` runs it
with ``--queue-name webhooks``). Beside the worker loop runs a thread that, every half claim,
tries again the messages whose worker died mid-send and those whose task was lost before any
worker claimed them (``advisor.webhooks.recovery``), so deliveries recover by themselves as long
as one webhook worker runs anywhere (docs/decisions/0144-webhook-claims-run-out.md).
"""

from __future__ import annotations

import threading

from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from advisor.webhooks.recovery import recover_lost, watch_deliveries


class Command(DbWorkerCommand):
    help = (
        "Run the webhook (database task) worker, with a watchdog that tries again deliveries "
        "whose worker died while sending them."
    )

    def handle(self, *args, **options):
        recover_lost()  # what a dead predecessor left, before taking new work
        stop = threading.Event()
        watchdog = threading.Thread(
            target=watch_deliveries, args=(stop,), name="webhook-watchdog", daemon=True
        )
        watchdog.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
