"""``manage.py specification``: the technical specification (技术规格书) of a scenario's option."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import translation

from advisor.brief.snapshot import brief_snapshot
from advisor.brief.specification import docx_bytes, pdf_bytes, specification
from advisor.management.cli import (
    bad_input,
    check_output,
    check_scenario_or_fail,
    read_json_or_fail,
    write_output_or_fail,
)
from advisor.recommendation.run import run_recommendation

WRITERS = {"docx": docx_bytes, "pdf": pdf_bytes}


class Command(BaseCommand):
    help = (
        "Write the technical specification of one option of a scenario JSON file (default: "
        "the top recommendation): performance-based requirements marked ★ mandatory or "
        "▲ important, no brand or model names, acceptance tests (DOCX or PDF)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="scenario JSON file, or - for stdin")
        parser.add_argument(
            "--option", type=int, default=1, help="rank among qualifying options (default 1)"
        )
        parser.add_argument("--language", choices=("zh-hans", "en"), default="zh-hans")
        parser.add_argument("--format", choices=tuple(WRITERS), default="docx")
        parser.add_argument("--output", required=True, type=Path, help="the file to write")

    def handle(self, *args, **options):
        document = read_json_or_fail(options["input"])
        check_scenario_or_fail(document)
        check_output(options["output"])
        run = run_recommendation(document)
        qualifying = run.recommendation.rankings["recommended"]
        if not qualifying:
            raise bad_input("option: no option qualifies; `manage.py recommend --all` shows why")
        if not 1 <= options["option"] <= len(qualifying):
            raise bad_input(f"option: choose 1..{len(qualifying)} (qualifying options)")
        snapshot = brief_snapshot(
            scenario=run.scenario,
            procurement=run.procurement,
            recommendation=run.recommendation,
            chosen_key=qualifying[options["option"] - 1].key,
            today=run.today,
        )
        with translation.override(options["language"]):
            data = WRITERS[options["format"]](specification(snapshot))
        write_output_or_fail(options["output"], data)
        self.stdout.write(f"{options['format']} {len(data)} bytes -> {options['output']}")
