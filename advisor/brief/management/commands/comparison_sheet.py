"""``manage.py comparison_sheet``: the price comparison sheet (比价表) of a scenario, as XLSX."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import translation

from advisor.brief.comparison import comparison_workbook, shortlist, workbook_title
from advisor.management.cli import (
    check_output,
    check_scenario_or_fail,
    read_json_or_fail,
    write_output_or_fail,
)
from advisor.recommendation.run import run_recommendation


class Command(BaseCommand):
    help = (
        "Write the price comparison sheet of a scenario JSON file: per procurement mode, the "
        "best qualifying priced options side by side, totals as formulas (XLSX)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="scenario JSON file, or - for stdin")
        parser.add_argument("--language", choices=("zh-hans", "en"), default="zh-hans")
        parser.add_argument("--output", required=True, type=Path, help="the XLSX file to write")

    def handle(self, *args, **options):
        document = read_json_or_fail(options["input"])
        check_scenario_or_fail(document)
        check_output(options["output"])
        run = run_recommendation(document)
        records = shortlist(run)
        with translation.override(options["language"]):
            title = workbook_title(run.scenario.model.name, run.today)
            data = comparison_workbook(records, title, run.today)
        write_output_or_fail(options["output"], data)
        sheets = len({r["mode"] for r in records})
        self.stdout.write(f"{len(records)} options on {sheets} sheets -> {options['output']}")
