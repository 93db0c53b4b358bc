"""``manage.py recommend``: the results page's ranked options, from a scenario JSON file."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand
from django.utils import translation
from django.utils.translation import gettext

from advisor.domain.plain import jsonable
from advisor.domain.questionnaire.questions import declared_for_rule
from advisor.domain.recommend import Option
from advisor.domain.recommend.procurement import subject_keys
from advisor.domain.recommend.records import capacity_record, plain_cost
from advisor.management.cli import check_scenario_or_fail, read_json_or_fail
from advisor.presentation.labels import MODE_LABELS as MODE
from advisor.presentation.labels import label as words
from advisor.presentation.text import render_text
from advisor.recommendation.run import run_recommendation


class Command(BaseCommand):
    help = (
        "Rank procurement options for a fine-tuning job exactly as the results page does. "
        "Input: a scenario v1 JSON file with optional `site` and `procurement` sections "
        "(README); without them every catalog data center and procurement mode is considered."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="scenario JSON file, or - for stdin")
        parser.add_argument("--format", choices=("json", "table"), default="table")
        parser.add_argument("--language", choices=("en", "zh-hans"), default="en")
        parser.add_argument(
            "--all", action="store_true", help="table: also list options that do not qualify"
        )

    def handle(self, *args, **options):
        document = read_json_or_fail(options["input"])
        check_scenario_or_fail(document)
        run = run_recommendation(document)
        with translation.override(options["language"]):
            if options["format"] == "json":
                payload = recommendation_json(run)
                self.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False))
            else:
                options_shown = run.recommendation.options
                if not options["all"]:
                    qualifying = {o.key for o in run.recommendation.rankings["recommended"]}
                    options_shown = [o for o in options_shown if o.key in qualifying]
                self.stdout.write(render_table(options_shown))


def recommendation_json(run) -> dict:
    """``recommend --format json``: every option in rank order, in the active language (the
    command and ``POST /api/recommend`` print the same)."""
    qualifying = {o.key for o in run.recommendation.rankings["recommended"]}
    worded = {}  # findings options share, worded once (SharedFindings)
    rows = [
        option_json(o, rank, o.key in qualifying, run.declared, worded)
        for rank, o in enumerate(run.recommendation.options, start=1)
    ]
    return {
        "today": run.today.isoformat(),
        "considered": len(rows),
        "qualifying": len(qualifying),
        "options": rows,
    }


def _round(value, digits):
    return None if value is None else round(float(value), digits)


def _declared_json(option: Option, rule_id: str, declared) -> list[dict]:
    """The vendor's declared facts the finding was computed from (empty: catalog only)."""
    if not declared:
        return []
    return [
        {
            "subject": item.subject,
            "fact": item.fact.name,
            "value": item.value,
            "evidence": item.evidence,
        }
        for item in declared_for_rule(rule_id, subject_keys(option), declared)
    ]


def option_json(
    option: Option, rank: int, qualifies: bool, declared=(), worded: dict | None = None
) -> dict:
    """One option as ``--format json`` writes it. ``worded``: findings already worded in this
    language, by identity (options share findings), kept by the caller for one output."""
    sizing = option.sizing
    worded = {} if worded is None else worded
    return {
        "rank": rank,
        "key": option.key,
        "qualifies": qualifies,
        "reasons": [render_text(r) for r in option.reasons],
        "accelerator": option.hardware.accelerator.key,
        "gpus": sizing.layout.gpus,
        "servers": sizing.servers,
        "server": option.hardware.server.key,
        "data_center": option.site.data_center.key,  # None for a cloud option
        "vendor": option.site.vendor.key,
        "place": option.place_name,
        "capacity": jsonable(capacity_record(option)),
        "fits": sizing.fits,
        "memory_per_gpu_gib": round(sizing.memory.total, 2),
        "capacity_gib": round(sizing.capacity_gib, 2),
        "time_to_train_hours": _round(option.time_to_train_hours, 2),
        "mode": option.mode,
        "cost": plain_cost(option),
        "verdict": str(option.compliance.verdict),
        "counts": option.compliance.counts,
        "findings": [
            {
                **_finding_json(f, worded),
                "declared": _declared_json(option, f.rule_id, declared),
            }
            for f in option.compliance.findings
        ],
    }


def _finding_json(finding, worded: dict) -> dict:
    kept = worded.get(id(finding))
    if kept is None or kept[0] is not finding:
        kept = worded[id(finding)] = (
            finding,
            {
                "rule": finding.rule_id,
                "status": str(finding.status),
                "severity": str(finding.severity),
                "citation": finding.citation,
                "message": render_text(finding.message),
            },
        )
    return kept[1]


def render_table(options: list[Option]) -> str:
    header = [
        gettext("Rank"),
        gettext("Hardware"),
        gettext("Data center"),
        gettext("GiB/GPU"),
        gettext("Hours"),
        gettext("Mode"),
        gettext("Cash out / net of resale (CNY)"),
        gettext("Verdict"),
    ]
    rows = [header]
    for rank, o in enumerate(options, start=1):
        rows.append(
            [
                str(rank),
                f"{o.sizing.layout.gpus} x {o.hardware.accelerator.key} ({o.hardware.server.key})",
                o.site.data_center.key or o.place_name,
                f"{o.sizing.memory.total:,.1f}/{o.sizing.capacity_gib:,.1f}",
                "-" if o.time_to_train_hours is None else f"{o.time_to_train_hours:,.2f}",
                words(MODE, o.mode),
                "-"
                if o.cost is None
                else f"{o.cost.cash_out_cny:,.0f} / {o.cost.net_of_resale_cny:,.0f}",
                str(o.compliance.verdict),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) for row in rows]
    if len(rows) == 1:
        lines.append(gettext("No option qualifies; run with --all to see why."))
    return "\n".join(lines)
