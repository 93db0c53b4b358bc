from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.utils import timezone

from vendors.freshness import STALE, stale_records

CATALOG_DIR = Path(settings.BASE_DIR) / "fixtures" / "catalog"


class Command(BaseCommand):
    help = (
        "Load the catalog fixtures (fixtures/catalog/*.json, in name order). Natural keys make "
        "this idempotent: reloading updates the seeded rows instead of duplicating them. "
        "Then list the records past their kind's freshness limit (tariffs and rack fees 12 "
        "months, prices 6 months, certificates at their expiry; docs/catalog.md)."
    )

    def handle(self, *args, **options):
        files = sorted(CATALOG_DIR.glob("*.json"))
        for path in files:
            call_command("loaddata", str(path), verbosity=0)
        self.stdout.write(f"Catalog loaded from {len(files)} fixture file(s).")
        self.report_freshness()

    def report_freshness(self):
        records = stale_records(timezone.localdate())
        stale = [r for r in records if r.state == STALE]
        undated = [r for r in records if r.state != STALE]
        self.stdout.write(
            f"{len(stale)} record(s) past their freshness limit, {len(undated)} without a date "
            "to judge (refresh them: docs/catalog.md, 'Keeping the catalog current'):"
        )
        for record in records:
            self.stdout.write(f"  {record.describe()}")
