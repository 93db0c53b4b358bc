from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

CATALOG_DIR = Path(settings.BASE_DIR) / "fixtures" / "catalog"


class Command(BaseCommand):
    help = (
        "Load the catalog fixtures (fixtures/catalog/*.json, in name order). Natural keys make "
        "this idempotent: reloading updates the seeded rows instead of duplicating them."
    )

    def handle(self, *args, **options):
        files = sorted(CATALOG_DIR.glob("*.json"))
        for path in files:
            call_command("loaddata", str(path), verbosity=0)
        self.stdout.write(f"Catalog loaded from {len(files)} fixture file(s).")
