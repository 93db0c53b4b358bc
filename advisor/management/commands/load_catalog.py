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
        files_word = "fixture file" if len(files) == 1 else "fixture files"
        self.stdout.write(f"Catalog loaded from {len(files)} {files_word}.")
        self.report_freshness()

    def report_freshness(self):
        records = stale_records(timezone.localdate())
        stale = [r for r in records if r.state == STALE]
        undated = [r for r in records if r.state != STALE]
        past = "record past its" if len(stale) == 1 else "records past their"
        self.stdout.write(
            f"{len(stale)} {past} freshness limit, {len(undated)} without a date "
            "to judge (refresh them: docs/catalog.md, 'Keeping the catalog current'):"
        )
        for record in records:
            self.stdout.write(f"  {record.describe()}")
