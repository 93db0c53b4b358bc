"""``manage.py recommend``: the results page's ranked options, from a scenario JSON file."""

from __future__ import annotations

import json
from decimal import Decimal

from django.core.management.base import BaseCommand
from django.utils import translation
from django.utils.translation import gettext, ngettext

from advisor.domain.i18n import Message
from advisor.domain.kept import PerObjects
from advisor.domain.plain import jsonable
from advisor.domain.questionnaire.questions import declared_for_rule
from advisor.domain.recommend import Option
from advisor.domain.recommend.decision import unpriced_examples
from advisor.domain.recommend.procurement import subject_keys
from advisor.domain.recommend.records import capacity_record, plain_cost
from advisor.management.cli import (
    check_scenario_or_fail,
    display_width,
    pad,
    read_json_or_fail,
)
from advisor.presentation.labels import MODE_LABELS as MODE
from advisor.presentation.labels import VERDICT_LABELS as VERDICT
from advisor.presentation.labels import label as words
from advisor.presentation.text import local_name, render_text
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
                self.stdout.write(json_text(recommendation_json(run)))
            else:
                options_shown = run.recommendation.options
                if not options["all"]:
                    qualifying = {o.key for o in run.recommendation.rankings["recommended"]}
                    options_shown = [o for o in options_shown if o.key in qualifying]
                self.stdout.write(render_table(options_shown, run.recommendation))


def recommendation_json(run) -> dict:
    """``recommend --format json``: every option in rank order, in the active language (the
    command and ``POST /api/recommend`` print the same)."""
    qualifying = {o.key for o in run.recommendation.rankings["recommended"]}
    worded = {}  # findings options share, worded once (SharedFindings)
    rows = [
        option_json(o, rank, o.key in qualifying, run.declared, worded)
        for rank, o in enumerate(run.recommendation.options, start=1)
    ]
    unpriced = run.recommendation.unpriced
    return {
        "today": run.today.isoformat(),
        "considered": len(rows),
        "qualifying": len(qualifying),
        # Options that meet every requirement but have no price: not qualifying, not compared.
        "unpriced": len(unpriced),
        "compared": comparison_text(run.recommendation),
        "options": rows,
    }


def comparison_text(recommendation) -> str:
    """How many options the ranking compared and how many it could not ("cheapest of 4
    priced; 9 more unpriced, among them Atlas 800T A2"), in the active language."""
    qualifying = len(recommendation.rankings["recommended"])
    unpriced = recommendation.unpriced
    text = ngettext(
        "Cheapest of %(n)d priced option that qualifies.",
        "Cheapest of %(n)d priced options that qualify.",
        qualifying,
    ) % {"n": qualifying}
    if unpriced:
        examples = unpriced_examples(unpriced)
        separator = "、" if (translation.get_language() or "").startswith("zh") else ", "
        names = separator.join(local_name(o.hardware.server) for o in examples)
        text += " " + ngettext(
            "%(n)d more meets the requirements but is unpriced and could not be compared: "
            "%(names)s.",
            "%(n)d more meet the requirements but are unpriced and could not be compared, "
            "among them %(names)s.",
            len(unpriced),
        ) % {"n": len(unpriced), "names": names}
    return text


# An option's finding rows stand in the document as this string until the text is put
# together; the words and keys of a recommendation hold no NUL (checked: a text that does is
# written plainly).
_HOLE = "\x00"
_HOLE_TEXT = '"\\u0000"'  # the hole as json.dumps writes it
_FINDING_INDENT = "\n" + " " * 8  # a finding row's depth: document, options, option, findings
_FINDINGS_CLOSE = "\n" + " " * 6 + "]"  # the end of an option's findings list


def json_text(payload: dict) -> str:
    """``json.dumps(payload, indent=2, ensure_ascii=False)``, the same text, with each finding
    row that options share (``_finding_row``) encoded once and each option's list of rows put
    together from those: they are most of the text (9,251 rows, 92 distinct, ~80 % of the
    5.7 MB of the 32B every-site document)."""
    written: dict[int, str] = {}  # id of a row → its text, indented as a finding row
    lists: dict[int, str] = {}  # id of a findings list → its text
    texts = []  # each option's findings, in the order of the holes
    options = []
    for option in payload["options"]:
        findings = option["findings"]
        text = lists.get(id(findings))
        if text is None:
            text = lists[id(findings)] = _findings_text(findings, written)
        texts.append(text)
        options.append({**option, "findings": _HOLE})
    pieces = json.dumps({**payload, "options": options}, indent=2, ensure_ascii=False).split(
        _HOLE_TEXT
    )
    if len(pieces) != len(texts) + 1 or any("\\u0000" in p for p in (*pieces, *lists.values())):
        return json.dumps(payload, indent=2, ensure_ascii=False)  # a NUL of its own: plainly
    text = [pieces[0]]
    for findings, piece in zip(texts, pieces[1:], strict=True):
        text += (findings, piece)
    return "".join(text)


def _findings_text(findings: list[dict], written: dict[int, str]) -> str:
    """An option's findings list as ``json.dumps(indent=2)`` writes it at its depth, each row's
    text made once (``written``, by the row's identity: the payload keeps every row alive)."""
    if not findings:
        return "[]"
    rows = list(map(written.get, map(id, findings)))
    if None in rows:
        rows = [text or _row_text(row, written) for row, text in zip(findings, rows, strict=True)]
    return "[" + _FINDING_INDENT + ("," + _FINDING_INDENT).join(rows) + _FINDINGS_CLOSE


def _row_text(row: dict, written: dict[int, str]) -> str:
    text = written[id(row)] = json.dumps(row, indent=2, ensure_ascii=False).replace(
        "\n", _FINDING_INDENT
    )
    return text


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
        "unpriced": option.unpriced,
        "reasons": [render_text(r) for r in option.reasons],
        "accelerator": option.hardware.accelerator.key,
        "gpus": sizing.layout.gpus,
        "servers": sizing.servers,
        "server": option.hardware.server.key,
        "data_center": option.site.data_center.key,  # None for a cloud option
        "vendor": option.site.vendor.key,
        "place": option.place_name,
        "capacity": _capacity_json(option, worded),
        "fits": sizing.fits,
        "memory_per_gpu_gib": round(sizing.memory.total, 2),
        "capacity_gib": round(sizing.capacity_gib, 2),
        "time_to_train_hours": _round(option.time_to_train_hours, 2),
        "mode": option.mode,
        "cost": _cost_json(option, worded),
        "verdict": str(option.compliance.verdict),
        "counts": option.compliance.counts,
        "findings": _finding_rows(option, declared, worded),
    }


def _records(worded: dict) -> PerObjects:
    """The cost and capacity records of this output, kept by what they read (options share
    them: one record object, written as often as options list it)."""
    records = worded.get("records")
    if records is None:
        records = worded["records"] = PerObjects(limit=_RECORDS_KEPT)
    return records


_RECORDS_KEPT = 100_000  # more than the records of any one output (~600 for every site)


def _cost_json(option: Option, worded: dict) -> dict | None:
    """``plain_cost(option)``, one record for every option with the same mode cost, mode, load
    and payback (renting one server at every site). The key determines the record:
    ``cost_record`` reads the option's mode, its mode cost, its payback (buying) and its load's
    hours per run, nothing else."""
    cost, priced = option.cost, option.economics
    if cost is None:
        return None
    parts = (cost, priced.inputs.load, priced.payback)
    return _records(worded).get(parts, lambda: plain_cost(option), ("cost", option.mode))


def _capacity_json(option: Option, worded: dict) -> dict:
    """``capacity_record(option)`` in JSON types; a server's options share one record per
    sizing and mode. The key determines the record: for an option that obtains whole servers
    (no capacity of its own, not a cloud offer) the record reads its mode, its sizing's servers
    and GPUs, and its hardware's server and accelerator (the interconnect), nothing else; any
    other option's record is made for it alone."""
    if option.capacity is not None or option.cloud is not None:
        return jsonable(capacity_record(option))
    parts = (option.sizing, option.hardware)
    return _records(worded).get(
        parts, lambda: jsonable(capacity_record(option)), ("capacity", option.mode)
    )


def _finding_rows(option: Option, declared, worded: dict) -> list[dict]:
    """The option's finding rows: with nothing declared, one list for every option with the
    same findings (the buy and rent options of one server at one site)."""
    findings = option.compliance.findings
    if declared:
        return [_finding_row(option, f, declared, worded) for f in findings]
    kept = worded.get(("rows", id(findings)))
    if kept is None or kept[0] is not findings:
        rows = _shared_rows(findings, worded)
        # Options whose findings are worded alike (the same rows) share one list, which
        # ``json_text`` writes once.
        rows = worded.setdefault(("same rows", *map(id, rows)), rows)
        kept = worded[("rows", id(findings))] = (findings, rows)
    return kept[1]


def _shared_rows(findings, worded: dict) -> list[dict]:
    """Each finding's shared row: the rows already made looked up together, the others made."""
    shared = worded.setdefault("shared rows", {})  # id of a finding → its row
    rows = list(map(shared.get, map(id, findings)))
    if None in rows:
        rows = [row or _shared_row(f, worded) for f, row in zip(findings, rows, strict=True)]
    return rows


def _finding_row(option: Option, finding, declared, worded: dict) -> dict:
    """A finding as an option's row lists it: one object for every option whose finding reads
    the same and that declares nothing for its rule (``json_text`` writes that object once)."""
    facts = _declared_json(option, finding.rule_id, declared)
    if facts:
        return {**_finding_json(finding, worded), "declared": facts}
    return worded.setdefault("shared rows", {}).get(id(finding)) or _shared_row(finding, worded)


def _shared_row(finding, worded: dict) -> dict:
    """The row of a finding with nothing declared: equal findings of other sites and servers
    read the same, and share one row. Kept by the finding's identity for this output (the
    finding is kept alive with it, so that its identity is not reused), and by what it says
    (``_finding_key``: another finding that says the same is not worded again)."""
    key = _finding_key(finding)
    row = worded.get(key) if key is not None else None
    if row is None:
        words = _finding_json(finding, worded)
        row = worded.setdefault(("row", *words.values()), {**words, "declared": []})
        if key is not None:
            worded[key] = row
    worded.setdefault("shared rows", {})[id(finding)] = row
    worded.setdefault("kept findings", []).append(finding)
    return row


# Parameter types whose value says how they read (a bool is told from an int by its type);
# floats and Decimals by their repr (-0.0 and 0.0, Decimal("1.0") and Decimal("1.00") differ).
_READ_BY_VALUE = frozenset({str, int, bool, type(None)})
_READ_BY_REPR = frozenset({float, Decimal})


def _finding_key(finding) -> tuple | None:
    """What a finding's row is made of, as a key: equal keys make the same row in any language.
    None for a message that is not plain (a nested message, a code): it is worded each time."""
    message = finding.message
    if type(message) is not Message:
        return None
    key = [
        "same",
        finding.rule_id,
        finding.status,
        finding.severity,
        finding.citation,
        message.template,
    ]
    for name, value in message.params.items():
        kind = type(value)
        if kind in _READ_BY_VALUE:
            key.append((name, kind, value))
        elif kind in _READ_BY_REPR:
            key.append((name, kind, repr(value)))
        else:
            return None
    return tuple(key)


def _finding_json(finding, worded: dict) -> dict:
    kept = worded.get(("words", id(finding)))
    if kept is None or kept[0] is not finding:
        kept = worded[("words", id(finding))] = (
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
                f"{o.sizing.layout.gpus} x {o.hardware.accelerator.key} ({o.hardware.server.key})",
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
