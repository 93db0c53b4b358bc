"""The price comparison sheet (比价表): the shortlisted options side by side, as XLSX.

Two steps, so that a brief's sheet is reproducible from its snapshot: :func:`shortlist` freezes
the options compared (per procurement mode, the best qualifying priced options) as JSON records,
kept in the brief's snapshot under ``shortlist``; :func:`comparison_workbook` writes a workbook
from those records in the active language, one sheet per mode.

Every amount a finance reviewer reads is a formula over the cells beside it: a line's amount is
``ROUND(unit price × quantity, 2)`` (half up to the fen, as the cost lines are computed,
docs/decisions/0044-cost-lines.md), cash out is the ``SUM`` of the amounts, net of resale is
cash out plus the (negative) resale line, per run is net ÷ runs. Text from the catalog or the
buyer is always a text cell, never a formula (advisor/spreadsheets.py).
"""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from advisor.brief.office import document_moment, stable_zip
from advisor.domain import sources as domain_sources
from advisor.domain.plain import jsonable, message
from advisor.domain.recommend import Option, RecommendRun
from advisor.domain.recommend.options import cost_figures
from advisor.domain.recommend.records import plain_cost
from advisor.presentation.labels import (
    COST_COMPONENT_LABELS,
    LOW_QUALITY_SOURCE,
    MODE_LABELS,
    SOURCE_KIND_LABELS,
    UNIT_LABELS,
    label,
    word,
)
from advisor.presentation.text import local_name, render_text
from advisor.recommendation.questions import open_items
from advisor.spreadsheets import text_cells

# At most this many options of one mode are compared (the chosen one among them).
PER_MODE = 3
MODE_ORDER = ("buy", "own", "rent", "cloud")
MONEY = "#,##0.00"
QUANTITY = "#,##0.##"
HOURS = "#,##0.0"
HEADER_ROWS = 4  # title, caption, option names, column names: frozen above the first fact
LABEL_WIDTH = 34
COLUMN_WIDTH = 16


# --- What is compared, frozen ------------------------------------------------------------------


def _names(record) -> dict:
    plain = jsonable(record) or {}
    return {"name": plain.get("name") or plain.get("key") or "", "name_zh": plain.get("name_zh")}


def _sources(option: Option) -> list[dict]:
    return [
        {
            "key": a.key,
            "message": message(a.message),
            "basis_label": a.basis_label,
            "kind": a.kind,
            "source": jsonable(a.source),
            "as_of": jsonable(a.as_of),
        }
        for a in cost_figures(option)
        if a.source  # figures from the sizing itself have no source to weigh
    ]


def option_record(run: RecommendRun, option: Option, rank: int | None) -> dict:
    """One compared option as JSON: what, where, how fast, how sure, its cost lines, what is
    still open and the sources of its figures."""
    sizing = option.sizing
    items = open_items(run, option)
    return {
        "key": option.key,
        "rank": rank,
        "mode": option.mode,
        "server": _names(option.hardware.server),
        "accelerator": _names(option.hardware.accelerator),
        "gpus": option.obtained.gpus,
        "place": _names(option.place),
        "time_to_train_hours": jsonable(option.time_to_train_hours),
        "memory_per_gpu_gib": round(sizing.memory.total, 2),
        "capacity_gib": round(sizing.capacity_gib, 2),
        "verdict": str(option.compliance.verdict),
        "open": {"questions": items.questions, "subjects": items.subjects, "veto": items.veto},
        "cost": plain_cost(option),
        "sources": _sources(option),
    }


def shortlist(run: RecommendRun, chosen_key: str | None = None) -> list[dict]:
    """Per mode, the first :data:`PER_MODE` priced options in the recommended order (all
    options when none qualifies); ``chosen_key``'s option first in its mode."""
    qualifying = list(run.recommendation.rankings["recommended"])
    ranks = {o.key: rank for rank, o in enumerate(qualifying, start=1)}
    pool = [o for o in (qualifying or run.recommendation.options) if o.cost is not None]
    pool.sort(key=lambda o: o.key != chosen_key)  # stable: the chosen one first, then by rank
    picked: dict[str, list[Option]] = {}
    for option in pool:
        chosen_here = picked.setdefault(option.mode, [])
        if len(chosen_here) < PER_MODE:
            chosen_here.append(option)
    return [
        option_record(run, option, ranks.get(option.key))
        for mode in sorted(picked, key=_mode_order)
        for option in picked[mode]
    ]


def _mode_order(mode: str) -> int:
    return MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER)


# --- The workbook --------------------------------------------------------------------------------


def comparison_workbook(records: list[dict], title: str, day: date | None = None) -> bytes:
    """The comparison sheet in the active language: one sheet per mode (``records`` from
    :func:`shortlist`), or one sheet saying that no option is priced. The same records, title
    and ``day`` (the day of the figures) give the same bytes."""
    book = Workbook()
    book.remove(book.active)
    book.properties.creator = "advisor"
    book.properties.created = book.properties.modified = document_moment(day)
    by_mode: dict[str, list[dict]] = {}
    for record in records:
        by_mode.setdefault(record["mode"], []).append(record)
    for mode, options in by_mode.items():
        ModeSheet(book, mode, options, title).write()
    if not by_mode:
        sheet = book.create_sheet(_("No priced option"))
        _text(sheet.cell(1, 1), title)
        _text(sheet.cell(2, 1), _("No shortlisted option has a price to compare."))
    buffer = io.BytesIO()
    book.save(buffer)
    return stable_zip(buffer.getvalue(), day)


def sheet_title(mode: str) -> str:
    """A sheet's name: the mode's words, within Excel's 31 characters and allowed characters."""
    words = label(MODE_LABELS, mode) or _("Not priced")
    return "".join(c for c in words if c not in "[]:*?/\\")[:31]


def _text(cell, value) -> None:
    cell.value = value
    text_cells([cell])


def _number(cell, value, number_format: str) -> None:
    cell.value = None if value in (None, "") else float(Decimal(str(value)))
    cell.number_format = number_format


BOLD = Font(bold=True)
SECTION_FILL = PatternFill("solid", fgColor="E8EEF4")
WRAP = Alignment(wrap_text=True, vertical="top")


class ModeSheet:
    """One mode's options side by side: three columns each (unit price, quantity, amount)."""

    def __init__(self, book: Workbook, mode: str, options: list[dict], title: str):
        self.sheet = book.create_sheet(sheet_title(mode))
        self.mode = mode
        self.options = options
        self.title = title
        self.row = HEADER_ROWS

    def column(self, index: int, part: int) -> int:
        """Option ``index``'s column ``part`` (0 unit price, 1 quantity, 2 amount)."""
        return 2 + 3 * index + part

    def letter(self, index: int, part: int) -> str:
        return get_column_letter(self.column(index, part))

    def write(self) -> None:
        self.header()
        self.facts()
        self.costs()
        self.sources()
        self.sheet.freeze_panes = self.sheet.cell(HEADER_ROWS + 1, 2).coordinate
        self.sheet.column_dimensions["A"].width = LABEL_WIDTH
        for index in range(len(self.options)):
            for part in range(3):
                self.sheet.column_dimensions[self.letter(index, part)].width = COLUMN_WIDTH

    # Rows ---------------------------------------------------------------------------------

    def header(self) -> None:
        sheet = self.sheet
        _text(sheet.cell(1, 1), _("Price comparison: %(mode)s") % {"mode": sheet_title(self.mode)})
        sheet.cell(1, 1).font = Font(bold=True, size=13)
        _text(sheet.cell(2, 1), self.title)
        _text(sheet.cell(3, 1), _("Option"))
        _text(sheet.cell(4, 1), _("Item"))
        for index, option in enumerate(self.options):
            first, last = self.column(index, 0), self.column(index, 2)
            name = f"{local_name(option['server'])} · {local_name(option['place'])}"
            _text(sheet.cell(3, first), name)
            sheet.merge_cells(start_row=3, start_column=first, end_row=3, end_column=last)
            sheet.cell(3, first).alignment = WRAP
            for part, words in enumerate((_("Unit price (CNY)"), _("Quantity"), _("Amount (CNY)"))):
                _text(sheet.cell(4, first + part), words)
        for cell in (*sheet[3], *sheet[4]):
            cell.font = BOLD
        sheet.row_dimensions[3].height = 32

    def section(self, words: str) -> None:
        self.row += 1
        cell = self.sheet.cell(self.row, 1)
        _text(cell, words)
        cell.font = BOLD
        for column in range(1, self.column(len(self.options) - 1, 2) + 1):
            self.sheet.cell(self.row, column).fill = SECTION_FILL

    def fact(self, words: str, values: list, number_format: str | None = None) -> int:
        """A row of one value per option, each across its three columns."""
        self.row += 1
        _text(self.sheet.cell(self.row, 1), words)
        for index, value in enumerate(values):
            first = self.column(index, 0)
            cell = self.sheet.cell(self.row, first)
            if number_format is not None:
                _number(cell, value, number_format)
            else:
                _text(cell, value)
                cell.alignment = WRAP
            self.sheet.merge_cells(
                start_row=self.row, start_column=first, end_row=self.row, end_column=first + 2
            )
        return self.row

    def facts(self) -> None:
        options = self.options
        self.section(_("The options"))
        self.fact(_("Rank among qualifying options"), [o["rank"] for o in options], "0")
        self.fact(
            _("Accelerators"),
            [f"{o['gpus']} × {local_name(o['accelerator'])}" for o in options],
        )
        self.fact(_("Time to train (h)"), [o["time_to_train_hours"] for o in options], HOURS)
        self.fact(
            _("Memory needed per GPU (GiB)"), [o["memory_per_gpu_gib"] for o in options], "0.0"
        )
        self.fact(_("Usable memory per GPU (GiB)"), [o["capacity_gib"] for o in options], "0.0")
        self.fact(_("Verdict"), [word("verdict", o["verdict"]) for o in options])
        self.fact(_("Open questions"), [open_questions_text(o["open"]) for o in options])
        self.fact(_("Weakest source of a cost figure"), [weakest_text(o) for o in options])

    def costs(self) -> None:
        self.section(_("Cost lines: unit price × quantity = amount"))
        items = list(
            dict.fromkeys(
                (line["item"], line["unit"]) for o in self.options for line in o["cost"]["lines"]
            )
        )
        first = self.row + 1
        for item, unit in items:
            self.cost_line(
                f"{label(COST_COMPONENT_LABELS, item)} ({label(UNIT_LABELS, unit)})",
                [_line_of(o, item, unit) for o in self.options],
            )
        last = self.row
        cash = self.total(
            _("Cash out (the sum of the lines above)"),
            lambda i: f"=SUM({self.letter(i, 2)}{first}:{self.letter(i, 2)}{last})",
        )
        resale = None
        if any(o["cost"]["resale"] for o in self.options):
            resale = self.cost_line(
                label(COST_COMPONENT_LABELS, "resale"),
                [o["cost"]["resale"] for o in self.options],
            )
        self.total(
            _("Net of resale"),
            lambda i: (
                f"={self.letter(i, 2)}{cash}"
                + (f"+{self.letter(i, 2)}{resale}" if resale and self._has_resale(i) else "")
            ),
        )
        net = self.row
        runs = self.fact(_("Runs"), [o["cost"]["runs"] for o in self.options], QUANTITY)
        self.total(
            _("Per run (net ÷ runs)"),
            lambda i: f"=ROUND({self.letter(i, 2)}{net}/{self.letter(i, 0)}{runs},2)",
        )

    def _has_resale(self, index: int) -> bool:
        return bool(self.options[index]["cost"]["resale"])

    def cost_line(self, words: str, lines: list[dict | None]) -> int:
        """Unit price, quantity and the amount as their product rounded to the fen (resale:
        negative)."""
        self.row += 1
        _text(self.sheet.cell(self.row, 1), words)
        for index, line in enumerate(lines):
            if not line:
                continue
            price, quantity = self.letter(index, 0), self.letter(index, 1)
            _number(self.sheet.cell(self.row, self.column(index, 0)), line["unit_price_cny"], MONEY)
            _number(self.sheet.cell(self.row, self.column(index, 1)), line["quantity"], QUANTITY)
            sign = "-" if Decimal(str(line["amount_cny"])) < 0 else ""
            amount = self.sheet.cell(self.row, self.column(index, 2))
            amount.value = f"={sign}ROUND({price}{self.row}*{quantity}{self.row},2)"
            amount.number_format = MONEY
        return self.row

    def total(self, words: str, formula) -> int:
        self.row += 1
        _text(self.sheet.cell(self.row, 1), words)
        self.sheet.cell(self.row, 1).font = BOLD
        for index in range(len(self.options)):
            cell = self.sheet.cell(self.row, self.column(index, 2))
            cell.value = formula(index)
            cell.number_format = MONEY
            cell.font = BOLD
        return self.row

    def sources(self) -> None:
        """Every figure the costs rest on, per option: its basis, the kind of its strongest
        source and the source itself (low-quality sources marked)."""
        self.row += 1
        self.section(_("Sources of the figures"))
        self.row += 1
        headers = (_("Figure"), _("Option"), _("Basis"), _("Quality of the source"), _("Source"))
        for column, words in enumerate(headers, start=1):
            _text(self.sheet.cell(self.row, column), words)
            self.sheet.cell(self.row, column).font = BOLD
        for index, option in enumerate(self.options, start=1):
            for figure in option["sources"]:
                self.row += 1
                values = (
                    render_text(figure["message"]),
                    str(index),
                    render_text(figure["basis_label"]),
                    quality_text(figure["kind"]),
                    render_text(figure["source"]),
                )
                for column, value in enumerate(values, start=1):
                    _text(self.sheet.cell(self.row, column), value)
                    self.sheet.cell(self.row, column).alignment = WRAP


def _line_of(option: dict, item: str, unit: str) -> dict | None:
    return next(
        (x for x in option["cost"]["lines"] if x["item"] == item and x["unit"] == unit), None
    )


def quality_text(kind: str) -> str:
    words = label(SOURCE_KIND_LABELS, kind) if kind else _("no source named")
    if domain_sources.is_low_quality(kind or ""):
        return f"{words} ({LOW_QUALITY_SOURCE})"
    return words


def weakest_text(option: dict) -> str:
    kinds = [figure["kind"] for figure in option["sources"] if figure["kind"]]
    weakest = domain_sources.weakest(kinds)
    return quality_text(weakest) if weakest else _("no source named")


def open_questions_text(items: dict) -> str:
    """What is still to ask before ordering, as counts; "none" when nothing is."""
    if not items["questions"]:
        return _("none")
    return _(
        "facts to confirm: %(n)d; vendors asked: %(vendors)d; of them settling a veto check: "
        "%(veto)d"
    ) % {"n": items["questions"], "vendors": items["subjects"], "veto": items["veto"]}


def workbook_title(model_name: str, day: date, number: str = "") -> str:
    """The line under each sheet's heading: the model, the day of the figures, the brief."""
    text = _("Fine-tuning %(model)s, figures of %(day)s") % {
        "model": model_name,
        "day": day.isoformat(),
    }
    return f"{number} · {text}" if number else text
