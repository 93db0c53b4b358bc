"""``manage.py recommend``: the results page's ranked options, from a scenario JSON file."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils import translation
from django.utils.translation import gettext

from advisor.domain.recommend import Option
from advisor.management.cli import (
    check_scenario_or_fail,
    display_width,
    pad,
    read_json_or_fail,
)
from advisor.presentation.compared import comparison_text
from advisor.presentation.labels import MODE_LABELS as MODE
from advisor.presentation.labels import VERDICT_LABELS as VERDICT
from advisor.presentation.labels import label as words
from advisor.presentation.text import local_name, render_text
from advisor.recommendation.output import recommendation_text
from advisor.recommendation.run import run_recommendation

# --format json prints the current output format; json-1 the previous one, kept for one
# release (docs/decisions/0090-recommendation-output-format-2.md).
JSON_FORMATS = {"json": 2, "json-1": 1}


class Command(BaseCommand):
    help = (
        "Rank procurement options for a fine-tuning job exactly as the results page does. "
        "Input: a scenario v1 JSON file with optional `site` and `procurement` sections "
        "(README); without them every catalog data center and procurement mode is considered."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="scenario JSON file, or - for stdin")
        parser.add_argument(
            "--format",
            choices=(*JSON_FORMATS, "table"),
            default="table",
            help="json: output format 2 (each distinct finding listed once, options refer to "
            "it by id); json-1: the previous format, for one release; table: for reading",
        )
        parser.add_argument("--language", choices=("en", "zh-hans"), default="en")
        parser.add_argument(
            "--all", action="store_true", help="table: also list options that do not qualify"
        )

    def handle(self, *args, **options):
        document = read_json_or_fail(options["input"])
        check_scenario_or_fail(document)
        run = run_recommendation(document)
        with translation.override(options["language"]):
            if options["format"] in JSON_FORMATS:
                version = JSON_FORMATS[options["format"]]
                self.stdout.write(
                    recommendation_text(run, render_text, version, compared=comparison_text)
                )
            else:
                options_shown = run.recommendation.options
                if not options["all"]:
                    qualifying = {o.key for o in run.recommendation.rankings["recommended"]}
                    options_shown = [o for o in options_shown if o.key in qualifying]
                self.stdout.write(render_table(options_shown, run.recommendation))


def render_table(options: list[Option], recommendation=None) -> str:
    """The options as a table: each qualifying option's rank, "unpriced" for an option that
    meets the requirements without a price, "-" for one that does not qualify."""
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
    ranks = {}
    if recommendation is not None:
        ranks = {o.key: i for i, o in enumerate(recommendation.rankings["recommended"], start=1)}
    for index, o in enumerate(options, start=1):
        rank = str(ranks[o.key]) if o.key in ranks else str(index)
        if recommendation is not None and o.key not in ranks:
            rank = gettext("unpriced") if o.unpriced else "-"
        rows.append(
            [
                rank,
                hardware_text(o),
                local_name(o.place),
                f"{o.sizing.memory.total:,.1f}/{o.sizing.capacity_gib:,.1f}",
                "-" if o.time_to_train_hours is None else f"{o.time_to_train_hours:,.2f}",
                words(MODE, o.mode),
                "-"
                if o.cost is None
                else f"{o.cost.cash_out_cny:,.0f} / {o.cost.net_of_resale_cny:,.0f}",
                words(VERDICT, o.compliance.verdict),
            ]
        )
    widths = [max(display_width(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(pad(cell, widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    if len(rows) == 1:
        lines.append(gettext("No option qualifies; run with --all to see why."))
    if recommendation is not None:
        lines.append(comparison_text(recommendation))
    return "\n".join(lines)


def hardware_text(option: Option) -> str:
    """ "8 × H20 96GB (HGX H20 8-GPU)": the cards and the server by their catalog names in the
    reader's language (昇腾 910B on a Chinese table), never by record keys."""
    hardware = option.hardware
    return gettext("%(gpus)s × %(accelerator)s (%(server)s)") % {
        "gpus": option.sizing.layout.gpus,
        "accelerator": local_name(hardware.accelerator),
        "server": local_name(hardware.server),
    }
