"""``manage.py questionnaire export|read``: the vendor questionnaire out, its answers in."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import timezone, translation

from advisor.domain.questionnaire.declared import SECTION, as_section
from advisor.management.cli import (
    bad_input,
    check_scenario_or_fail,
    plain_or_fail,
    read_json_or_fail,
)
from advisor.questionnaire import export
from advisor.questionnaire.xlsx import UnreadableFile, read_workbook
from advisor.recommendation.run import run_recommendation


class Command(BaseCommand):
    help = (
        "export: the vendor questionnaire for one option of a scenario (XLSX, or --format pdf "
        "for the letter). read: a filled questionnaire's answers as a `declared` section (JSON)."
    )

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        out = sub.add_parser("export", help="write the questionnaire for one option")
        out.add_argument("--input", required=True, help="scenario JSON file, or - for stdin")
        out.add_argument("--option", required=True, help="option key (server@data-center) or rank")
        out.add_argument("--language", choices=("zh-hans", "en"), default="zh-hans")
        out.add_argument("--format", choices=("xlsx", "pdf"), default="xlsx")
        out.add_argument("--output", required=True, help="file to write")
        read = sub.add_parser("read", help="print a filled questionnaire's answers as JSON")
        read.add_argument("file", help="the filled XLSX")

    def handle(self, *args, **options):
        if options["action"] == "export":
            return self._export(options)
        return self._read(options["file"])

    def _export(self, options):
        plain_or_fail(options["option"], "--option")
        document = read_json_or_fail(options["input"])
        check_scenario_or_fail(document)
        run = run_recommendation(document)
        option = export.find_option(run, options["option"])
        if option is None:
            raise bad_input(f"--option: no option {options['option']} in this scenario")
        with translation.override(options["language"]):
            data = export.render(run, option, options["format"])
        Path(options["output"]).write_bytes(data)

    def _read(self, path):
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise bad_input(f"{path}: cannot read ({error.__class__.__name__})") from error
        with translation.override("en"):
            try:
                result = read_workbook(data, timezone.localdate())
            except UnreadableFile as error:
                raise bad_input(f"{path}: {error}") from error
        if result.refusals:
            raise bad_input(f"{path}: {result.refusals[0].line()}")
        payload = {SECTION: as_section(result.declared)}
        self.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False))
