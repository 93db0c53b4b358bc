"""``manage.py requeue_stuck_briefs``: queue again the briefs whose task was lost.

See :mod:`advisor.brief.recovery` (docs/decisions/0013-load-faults.md). Run it when a worker
starts and every few minutes (cron, systemd timer, or a loop next to the workers); it is
idempotent. Every brief worker also runs it in its watchdog thread.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand

from advisor.brief.recovery import requeue_stuck


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
        counted = "brief" if len(briefs) == 1 else "briefs"
        self.stdout.write(f"{len(briefs)} {counted} {verb}.")
