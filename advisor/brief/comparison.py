"""The price comparison sheet (比价表): the shortlisted options side by side, as XLSX.

Two steps, so that a brief's sheet is reproducible from its snapshot: :func:`shortlist` freezes
the options compared (per procurement mode, the best qualifying priced options, never at a
demonstration site of the catalog) as JSON records,
kept in the brief's snapshot under ``shortlist``; :func:`comparison_workbook` writes a workbook
from those records in the active language, one sheet per mode.

Every amount a finance reviewer reads is a formula over the cells beside it, written with its
computed value (XlsxWriter; openpyxl writes formulas without values): a line's amount is
``ROUND(unit price × quantity, 2)`` (half up to the fen, as the cost lines are computed,
docs/decisions/0044-cost-lines.md), cash out is the ``SUM`` of the amounts, net of resale is
cash out plus the (negative) resale line, per run is net ÷ runs. Text from the catalog or the
buyer is always a text cell, never a formula (XlsxWriter's ``write_string``). Unit prices
and quantities are shown at the precision they are stated to (0.562, not 0.56; 1, not "1.").
Each sheet prints on A4 landscape, fit to the page width, its header rows on every page, and
ends with notes and a sign-off block (prepared, checked by finance, approved).
"""

from __future__ import annotations

import io
import math
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from django.utils.translation import gettext as _
from openpyxl.utils import get_column_letter

from advisor.brief.office import document_moment, stable_zip
from advisor.domain import sources as domain_sources
from advisor.domain.economics.inputs import BASIS_EXAMPLE
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

# At most this many options of one mode are compared (the chosen one among them).
PER_MODE = 3
MODE_ORDER = ("buy", "own", "rent", "cloud")
HEADER_ROWS = 4  # title, caption, option names, column names: frozen above the first fact
LABEL_WIDTH = 34
COLUMN_WIDTH = 16
LINE_HEIGHT = 15  # points per wrapped line
SOURCE_COLUMN = 5  # the sources table's source text, merged to the last option column


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
    options when none qualifies), each offer once (:func:`same_offer`) and none at a
    demonstration site; ``chosen_key``'s option first in its mode."""
    qualifying = list(run.recommendation.rankings["recommended"])
    ranks = {o.key: rank for rank, o in enumerate(qualifying, start=1)}
    pool = [
        o
        for o in (qualifying or run.recommendation.options)
        if o.cost is not None and not at_demonstration_site(o)
    ]
    pool.sort(key=lambda o: o.key != chosen_key)  # stable: the chosen one first, then by rank
    picked: dict[str, list[Option]] = {}
    seen: set[tuple] = set()
    for option in pool:
        chosen_here = picked.setdefault(option.mode, [])
        if len(chosen_here) < PER_MODE and same_offer(option) not in seen:
            chosen_here.append(option)
            seen.add(same_offer(option))
    return [
        option_record(run, option, ranks.get(option.key))
        for mode in sorted(picked, key=_mode_order)
        for option in picked[mode]
    ]


def same_offer(option: Option) -> tuple:
    """What makes two options the same offer side by side: the mode, the server and every cost
    line (a rental priced alike at three data centers is one column, not three)."""
    lines = plain_cost(option)["lines"]
    return (
        option.mode,
        option.hardware.server.key,
        tuple((x["item"], x["unit_price_cny"], x["quantity"]) for x in lines),
    )


def at_demonstration_site(option: Option) -> bool:
    """Whether the option's servers stand at a planning example of the catalog ("DEMO: … (not
    a real site)"), whose figures are examples: not an offer finance can sign for. A cloud
    option's site is only where its figures are shown, never where it runs."""
    if option.mode == "cloud":
        return False
    return any(p.basis == BASIS_EXAMPLE for p in option.site.cost_provenance.values())


def _mode_order(mode: str) -> int:
    return MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER)


# --- The workbook --------------------------------------------------------------------------------


def comparison_workbook(records: list[dict], title: str, day: date | None = None) -> bytes:
    """The comparison sheet in the active language: one sheet per mode (``records`` from
    :func:`shortlist`), or one sheet saying that no option is priced. The same records, title
    and ``day`` (the day of the figures) give the same bytes.

    Written with XlsxWriter, which stores each formula's computed value beside it, so that a
    previewer or a script reads the totals without recalculating (docs/decisions/0116)."""
    import xlsxwriter  # on first use, as the PDF and Word libraries (decision 0046)

    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_formulas": False})
    book.set_properties({"author": "advisor", "created": document_moment(day)})
    styles = Styles(book)
    by_mode: dict[str, list[dict]] = {}
    for record in records:
        by_mode.setdefault(record["mode"], []).append(record)
    for mode, options in by_mode.items():
        ModeSheet(book, styles, mode, options, title).write()
    if not by_mode:
        sheet = book.add_worksheet(_("No priced option"))
        sheet.write_string(0, 0, title)
        sheet.write_string(1, 0, _("No shortlisted option has a price to compare."))
    book.close()
    return stable_zip(buffer.getvalue(), day)


def sheet_title(mode: str) -> str:
    """A sheet's name: the mode's words, within Excel's 31 characters and allowed characters."""
    words = label(MODE_LABELS, mode) or _("Not priced")
    return "".join(c for c in words if c not in "[]:*?/\\")[:31]


def places_of(value) -> int:
    """The decimal places ``value`` is stated to (``0.56200000`` → 3, ``1`` → 0)."""
    exponent = Decimal(str(value)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def number_format(places: int) -> str:
    """A thousands-grouped format with exactly ``places`` decimals (never a bare "1.")."""
    return "#,##0" if places <= 0 else "#,##0." + "0" * places


def fen(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a spreadsheet cell: a CJK or full-width character two."""
    return sum(2 if ord(c) >= 0x2E80 else 1 for c in text)


class Styles:
    """The workbook's cell formats, made once (XlsxWriter keeps one per combination)."""

    def __init__(self, book):
        self.book = book
        self.title = book.add_format({"bold": True, "font_size": 13})
        self.bold = book.add_format({"bold": True})
        self.section = book.add_format({"bold": True, "bg_color": "#E8EEF4"})
        self.fill = book.add_format({"bg_color": "#E8EEF4"})
        self.wrap = book.add_format({"text_wrap": True, "valign": "top"})
        self.header = book.add_format({"bold": True, "text_wrap": True, "valign": "top"})
        self.box = book.add_format({"border": 1, "valign": "top", "text_wrap": True})
        self.box_bold = book.add_format({"border": 1, "bold": True, "valign": "top"})
        self._numbers: dict[tuple, object] = {}

    def number(self, places: int, bold: bool = False):
        key = (places, bold)
        if key not in self._numbers:
            self._numbers[key] = self.book.add_format(
                {"num_format": number_format(places), "bold": bold}
            )
        return self._numbers[key]


class ModeSheet:
    """One mode's options side by side: three columns each (unit price, quantity, amount).

    Rows and columns are counted from 1, as a reader names them; XlsxWriter's are from 0."""

    def __init__(self, book, styles: Styles, mode: str, options: list[dict], title: str):
        self.sheet = book.add_worksheet(sheet_title(mode))
        self.styles = styles
        self.mode = mode
        self.options = options
        self.title = title
        self.row = HEADER_ROWS
        self.amounts: dict[tuple[int, int], Decimal] = {}  # (row, option) → computed amount

    def column(self, index: int, part: int) -> int:
        """Option ``index``'s column ``part`` (0 unit price, 1 quantity, 2 amount)."""
        return 2 + 3 * index + part

    def letter(self, index: int, part: int) -> str:
        return get_column_letter(self.column(index, part))

    @property
    def last_column(self) -> int:
        return self.column(len(self.options) - 1, 2)

    def text(self, row: int, column: int, value, style=None) -> None:
        self.sheet.write_string(row - 1, column - 1, "" if value is None else str(value), style)

    def number(self, row: int, column: int, value, style) -> None:
        if value in (None, ""):
            self.sheet.write_blank(row - 1, column - 1, None, style)
        else:
            self.sheet.write_number(row - 1, column - 1, float(Decimal(str(value))), style)

    def formula(self, row: int, column: int, formula: str, value: Decimal, style) -> None:
        """A formula with its computed value stored beside it."""
        self.sheet.write_formula(row - 1, column - 1, formula, style, float(value))

    def merged_text(self, row: int, first: int, last: int, value, style) -> None:
        if last > first:
            self.sheet.merge_range(row - 1, first - 1, row - 1, last - 1, str(value or ""), style)
        else:
            self.text(row, first, value, style)

    def fit_row(self, row: int, texts: list[tuple[str, float]]) -> None:
        """Give ``row`` the height its wrapped texts need (XlsxWriter does not measure text):
        each (text, column width in characters), a CJK character counted twice."""
        lines = max(
            (math.ceil(display_width(text) / max(width - 1, 1)) for text, width in texts),
            default=1,
        )
        if lines > 1:
            self.sheet.set_row(row - 1, LINE_HEIGHT * lines)

    def write(self) -> None:
        self.header()
        self.facts()
        self.costs()
        self.notes()
        self.sign_off()  # beside the totals it signs for; the sources follow as an annex
        self.sources()
        self.layout()

    def layout(self) -> None:
        """Frozen header; A4 landscape, fit to the page width, the header rows on every page."""
        sheet = self.sheet
        sheet.freeze_panes(HEADER_ROWS, 1)
        sheet.set_column(0, 0, LABEL_WIDTH)
        sheet.set_column(1, self.last_column - 1, COLUMN_WIDTH)
        sheet.set_paper(9)  # A4
        sheet.set_landscape()
        sheet.fit_to_pages(1, 0)
        sheet.repeat_rows(0, HEADER_ROWS - 1)
        sheet.set_margins(left=0.5, right=0.5, top=0.7, bottom=0.7)
        sheet.set_footer("&C&P / &N")
        sheet.print_area(0, 0, self.row - 1, max(self.last_column, 5) - 1)

    # Rows ---------------------------------------------------------------------------------

    def header(self) -> None:
        styles = self.styles
        self.text(
            1, 1, _("Price comparison: %(mode)s") % {"mode": sheet_title(self.mode)}, styles.title
        )
        self.text(2, 1, self.title)
        self.text(3, 1, _("Option"), styles.bold)
        self.text(4, 1, _("Item"), styles.bold)
        for index, option in enumerate(self.options):
            first, last = self.column(index, 0), self.column(index, 2)
            name = f"{local_name(option['server'])} · {local_name(option['place'])}"
            self.merged_text(3, first, last, name, styles.header)
            for part, words in enumerate((_("Unit price (CNY)"), _("Quantity"), _("Amount (CNY)"))):
                self.text(4, first + part, words, styles.header)
        self.sheet.set_row(2, 32)
        self.sheet.set_row(3, 30)

    def section(self, words: str) -> None:
        self.row += 1
        self.text(self.row, 1, words, self.styles.section)
        for column in range(2, self.last_column + 1):
            self.sheet.write_blank(self.row - 1, column - 1, None, self.styles.fill)

    def fact(self, words: str, values: list, places: int | None = None) -> int:
        """A row of one value per option, each across its three columns."""
        self.row += 1
        self.text(self.row, 1, words)
        for index, value in enumerate(values):
            first = self.column(index, 0)
            if places is not None:
                self.sheet.merge_range(
                    self.row - 1, first - 1, self.row - 1, first + 1, None,
                    self.styles.number(places),
                )  # fmt: skip
                self.number(self.row, first, value, self.styles.number(places))
            else:
                self.merged_text(self.row, first, first + 2, value, self.styles.wrap)
        if places is None:
            self.fit_row(self.row, [(str(v or ""), 3 * COLUMN_WIDTH) for v in values])
        return self.row

    def facts(self) -> None:
        options = self.options
        self.section(_("The options"))
        self.fact(_("Rank among qualifying options"), [o["rank"] for o in options], 0)
        self.fact(
            _("Accelerators"),
            [f"{o['gpus']} × {local_name(o['accelerator'])}" for o in options],
        )
        self.fact(_("Time to train (h)"), [o["time_to_train_hours"] for o in options], 1)
        self.fact(_("Memory needed per GPU (GiB)"), [o["memory_per_gpu_gib"] for o in options], 1)
        self.fact(_("Usable memory per GPU (GiB)"), [o["capacity_gib"] for o in options], 1)
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
            lambda i: sum(
                (self.amounts.get((row, i), Decimal(0)) for row in range(first, last + 1)),
                Decimal(0),
            ),
        )
        resale = None
        if any(o["cost"]["resale"] for o in self.options):
            resale = self.cost_line(
                label(COST_COMPONENT_LABELS, "resale"),
                [o["cost"]["resale"] for o in self.options],
            )
        net = self.total(
            _("Net of resale"),
            lambda i: (
                f"={self.letter(i, 2)}{cash}"
                + (f"+{self.letter(i, 2)}{resale}" if resale and self._has_resale(i) else "")
            ),
            lambda i: (
                self.amounts[(cash, i)]
                + (self.amounts.get((resale, i), Decimal(0)) if resale else Decimal(0))
            ),
        )
        runs = self.fact(
            _("Runs"),
            [o["cost"]["runs"] for o in self.options],
            max(places_of(o["cost"]["runs"]) for o in self.options),
        )
        self.total(
            _("Per run (net ÷ runs)"),
            lambda i: f"=ROUND({self.letter(i, 2)}{net}/{self.letter(i, 0)}{runs},2)",
            lambda i: fen(self.amounts[(net, i)] / Decimal(str(self.options[i]["cost"]["runs"]))),
        )

    def _has_resale(self, index: int) -> bool:
        return bool(self.options[index]["cost"]["resale"])

    def cost_line(self, words: str, lines: list[dict | None]) -> int:
        """Unit price and quantity at the precision they are stated to, and the amount as their
        product rounded to the fen (resale: negative), a formula with its value."""
        self.row += 1
        self.text(self.row, 1, words)
        for index, line in enumerate(lines):
            if not line:
                continue
            price, quantity = Decimal(str(line["unit_price_cny"])), Decimal(str(line["quantity"]))
            self.number(
                self.row,
                self.column(index, 0),
                price,
                self.styles.number(max(2, places_of(price))),
            )
            self.number(
                self.row, self.column(index, 1), quantity, self.styles.number(places_of(quantity))
            )
            negative = Decimal(str(line["amount_cny"])) < 0
            amount = fen(price * quantity)
            amount = -amount if negative else amount
            self.amounts[(self.row, index)] = amount
            cells = f"{self.letter(index, 0)}{self.row}*{self.letter(index, 1)}{self.row}"
            self.formula(
                self.row,
                self.column(index, 2),
                f"={'-' if negative else ''}ROUND({cells},2)",
                amount,
                self.styles.number(2),
            )
        return self.row

    def total(self, words: str, formula, value) -> int:
        self.row += 1
        self.text(self.row, 1, words, self.styles.bold)
        for index in range(len(self.options)):
            amount = value(index)
            self.amounts[(self.row, index)] = amount
            self.formula(
                self.row,
                self.column(index, 2),
                formula(index),
                amount,
                self.styles.number(2, bold=True),
            )
        return self.row

    def notes(self) -> None:
        self.row += 1
        self.section(_("Notes"))
        for words in (
            _(
                "Every amount is its unit price × its quantity, rounded half up to the fen; "
                "unit prices and quantities are shown at the precision the amounts use."
            ),
            _(
                "Totals are formulas over the lines above; each is stored with its computed "
                "value, so a viewer that does not recalculate shows the same figures."
            ),
        ):
            self.row += 1
            self.merged_text(self.row, 1, max(self.last_column, 5), words, self.styles.wrap)
            self.sheet.set_row(self.row - 1, 30)

    def sources(self) -> None:
        """Every figure the costs rest on, per option: its basis, the kind of its strongest
        source and the source itself (low-quality sources marked)."""
        self.row += 1
        self.section(_("Sources of the figures"))
        self.row += 1
        headers = (_("Figure"), _("Option"), _("Basis"), _("Quality of the source"), _("Source"))
        for column, words in enumerate(headers, start=1):
            self.text(self.row, column, words, self.styles.bold)
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
                for column, value in enumerate(values[:4], start=1):
                    self.text(self.row, column, value, self.styles.wrap)
                last = max(self.last_column, SOURCE_COLUMN)
                self.merged_text(self.row, SOURCE_COLUMN, last, values[4], self.styles.wrap)
                widths = (LABEL_WIDTH, COLUMN_WIDTH, COLUMN_WIDTH, COLUMN_WIDTH)
                self.fit_row(
                    self.row,
                    [*zip(values[:4], widths, strict=True)]
                    + [(values[4], COLUMN_WIDTH * (last - SOURCE_COLUMN + 1))],
                )

    def sign_off(self) -> None:
        """Who prepared, checked and approved the comparison: name, signature, date."""
        self.row += 1
        self.section(_("Sign-off"))
        self.row += 1
        for column, words in enumerate(
            (_("Role"), _("Name and title"), _("Signature"), _("Date")), start=1
        ):
            self.text(self.row, column, words, self.styles.box_bold)
        for role in (
            _("Prepared by (procurement)"),
            _("Checked by (finance)"),
            _("Approved by"),
        ):
            self.row += 1
            self.text(self.row, 1, role, self.styles.box)
            for column in range(2, 5):
                self.sheet.write_blank(self.row - 1, column - 1, None, self.styles.box)
            self.sheet.set_row(self.row - 1, 36)


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
