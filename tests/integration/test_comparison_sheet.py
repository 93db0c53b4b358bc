"""The price comparison sheet (比价表): totals are formulas that evaluate to the figures the
pages show; one sheet per mode, frozen header, both languages; the command and the brief's
download (reproducible from the snapshot, in the audit trail)."""

from __future__ import annotations

import hashlib
import io
import json
import re
from decimal import ROUND_HALF_UP, Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from advisor.brief.comparison import (
    PER_MODE,
    at_demonstration_site,
    comparison_workbook,
    number_format,
    places_of,
    same_offer,
    sheet_title,
    shortlist,
)
from advisor.brief.models import AuditAction, AuditEvent
from advisor.presentation.numbers import cny
from advisor.recommendation.run import run_recommendation
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.support.briefs import issue_through_the_page
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_32B_LORA
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

CELL = re.compile(r"\$?([A-Z]{1,3})\$?(\d+)")


class Evaluator:
    """Recomputes the sheet's formulas as a spreadsheet would, in exact decimals: the four
    shapes the sheet writes (ROUND of a product or quotient, SUM of a column range, a sum of
    cells, a negated ROUND). Anything else fails the test."""

    ALLOWED = re.compile(r"^=(-?ROUND\(\w+[*/]\w+,2\)|SUM\(\w+:\w+\)|\w+(\+\w+)*)$")

    def __init__(self, sheet):
        self.sheet = sheet

    def value(self, reference: str) -> Decimal:
        cell = self.sheet[reference]
        if isinstance(cell.value, str) and cell.value.startswith("="):
            return self.formula(cell.value)
        return Decimal(str(cell.value)) if cell.value is not None else Decimal(0)

    def formula(self, text: str) -> Decimal:
        assert self.ALLOWED.match(text), text
        body = text[1:]
        sign = -1 if body.startswith("-") else 1
        body = body.lstrip("-")
        if body.startswith("ROUND("):
            left, op, right = re.match(r"ROUND\((\w+)([*/])(\w+),2\)", body).groups()
            a, b = self.value(left), self.value(right)
            product = a * b if op == "*" else a / b
            return sign * product.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        if body.startswith("SUM("):
            start, end = re.match(r"SUM\((\w+):(\w+)\)", body).groups()
            (col_a, row_a), (col_b, row_b) = CELL.match(start).groups(), CELL.match(end).groups()
            assert col_a == col_b
            return sum(
                (self.value(f"{col_a}{row}") for row in range(int(row_a), int(row_b) + 1)),
                Decimal(0),
            )
        return sum((self.value(ref) for ref in body.split("+")), Decimal(0))


def totals(sheet) -> dict[str, list[Decimal]]:
    """Each total row's label → the evaluated amount of each option (its amount column): the
    rows with formulas and no unit price beside them."""
    evaluator = Evaluator(sheet)
    found = {}
    for row in sheet.iter_rows(min_row=5):
        formulas = [c for c in row if isinstance(c.value, str) and c.value.startswith("=")]
        if formulas and sheet.cell(row[0].row, formulas[0].column - 2).value is None:
            found[row[0].value] = [evaluator.value(c.coordinate) for c in formulas]
    return found


def evaluated_lines(sheet) -> list[tuple[Decimal, Decimal, Decimal]]:
    """Every cost line: (unit price, quantity, evaluated amount)."""
    evaluator = Evaluator(sheet)
    lines = []
    for row in sheet.iter_rows(min_row=5):
        for cell in row:
            match = isinstance(cell.value, str) and re.match(
                r"=-?ROUND\(([A-Z]+)(\d+)\*([A-Z]+)\d+,2\)", cell.value
            )
            if match:
                price = sheet[f"{match[1]}{match[2]}"].value
                quantity = sheet[f"{match[3]}{match[2]}"].value
                lines.append(
                    (Decimal(str(price)), Decimal(str(quantity)), evaluator.value(cell.coordinate))
                )
    return lines


@pytest.fixture
def seeded():
    load_catalog()


@pytest.fixture
def run_32b(seeded):
    return run_recommendation(QWEN_32B_LORA)


def workbook_for(run, language="en"):
    records = shortlist(run)
    with translation.override(language):
        data = comparison_workbook(records, "Qwen2.5 32B", run.today)
    return records, load_workbook(io.BytesIO(data))


def test_totals_are_formulas_that_evaluate_to_each_options_figures(run_32b):
    records, book = workbook_for(run_32b)
    options = {o.key: o for o in run_32b.recommendation.options}
    by_mode: dict[str, list[dict]] = {}
    for record in records:
        by_mode.setdefault(record["mode"], []).append(record)
    assert set(by_mode) == {"buy", "rent", "cloud"}  # the 32B job's priced modes
    with translation.override("en"):
        assert book.sheetnames == [sheet_title(mode) for mode in by_mode]
    for (mode, compared), sheet in zip(by_mode.items(), book.worksheets, strict=True):
        assert 1 <= len(compared) <= PER_MODE
        assert sheet.freeze_panes == "B5"
        found = totals(sheet)
        cash = found["Cash out (the sum of the lines above)"]
        net = found["Net of resale"]
        per_run = found["Per run (net ÷ runs)"]
        for index, record in enumerate(compared):
            cost = options[record["key"]].cost  # what the option page prints
            assert options[record["key"]].mode == mode
            assert cash[index] == cost.cash_out_cny, (mode, record["key"])
            assert net[index] == cost.net_of_resale_cny
            assert per_run[index] == cost.per_run_cny
        for price, quantity, amount in evaluated_lines(sheet):
            assert amount == (price * quantity).quantize(Decimal("0.01"), ROUND_HALF_UP).copy_sign(
                amount
            )


def test_buy_sheet_carries_resale_and_the_facts_side_by_side(run_32b):
    records, book = workbook_for(run_32b)
    buy = book["Buy and host"]
    labels = [row[0].value for row in buy.iter_rows()]
    for words in (
        "Time to train (h)",
        "Memory needed per GPU (GiB)",
        "Verdict",
        "Open questions",
        "Weakest source of a cost figure",
        "Resale at the end",
        "Sources of the figures",
    ):
        assert words in labels, words
    text = " ".join(str(c.value) for row in buy.iter_rows() for c in row if c.value)
    assert "low-quality source" in text  # example prices from aggregators are marked
    resale = next(row for row in buy.iter_rows() if row[0].value == "Resale at the end")
    assert resale[3].value.startswith("=-ROUND(")


def test_chinese_sheet(run_32b):
    _records, book = workbook_for(run_32b, "zh-hans")
    assert book.sheetnames[0] == "购买并托管"
    labels = [row[0].value for row in book.worksheets[0].iter_rows()]
    assert any(label and "现金支出" in label for label in labels), labels


def test_text_from_the_catalog_is_never_a_formula(run_32b):
    records = shortlist(run_32b)
    records[0]["server"] = {"name": '=HYPERLINK("http://x")', "name_zh": None}
    with translation.override("en"):
        book = load_workbook(io.BytesIO(comparison_workbook(records, "=1+1", run_32b.today)))
    sheet = book.worksheets[0]
    assert sheet["A2"].data_type == "s"
    assert sheet["B3"].data_type == "s" and sheet["B3"].value.startswith("=HYPERLINK")


def test_command_writes_the_sheet_and_refuses_bad_input(seeded, tmp_path):
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(QWEN_32B_LORA))
    out = tmp_path / "sheet.xlsx"
    stdout = StringIO()
    call_command(
        "comparison_sheet", "--input", str(scenario), "--language", "en", "--output", str(out),
        stdout=stdout,
    )  # fmt: skip
    assert "on 3 sheets" in stdout.getvalue()
    assert load_workbook(out).sheetnames == [
        "Buy and host",
        "Rent dedicated servers",
        "Cloud GPU-hours",
    ]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**QWEN_32B_LORA, "model": {**QWEN_32B_LORA["model"], "layers": 0}}))
    for args, words in (
        (("--input", str(bad), "--output", str(out)), "model.layers"),
        (("--input", str(tmp_path / "none.json"), "--output", str(out)), "cannot read"),
        (("--input", str(scenario), "--output", str(tmp_path / "no" / "x.xlsx")), "does not exist"),
    ):
        with pytest.raises(CommandError) as caught:
            call_command("comparison_sheet", *args)
        assert caught.value.returncode == 2
        assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.usefixtures("brief_ready", "one_page_briefs")
def test_brief_page_offers_the_sheet_of_its_snapshot_recorded_and_reproducible(
    client, django_capture_on_commit_callbacks
):
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    brief = issue_through_the_page(client, buyer, django_capture_on_commit_callbacks)
    assessment = brief.assessment
    option = assessment_results(assessment).recommendation.rankings["recommended"][0]
    detail = reverse("brief:detail", args=(brief.pk,))
    page = client.get(detail, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    url = reverse("brief:document", args=(brief.pk, "comparison"))
    assert f'href="{url}"' in page and "Price comparison sheet (XLSX)" in page

    first, second = client.get(url), client.get(url)
    assert first["Content-Type"].startswith("application/vnd.openxmlformats")
    assert f"{brief.number}-comparison.xlsx" in first["Content-Disposition"]
    assert first.content == second.content  # the same snapshot, the same bytes
    events = AuditEvent.objects.filter(action=AuditAction.DOCUMENT_GENERATED, brief=brief)
    assert events.count() == 2
    digest = hashlib.sha256(first.content).hexdigest()
    assert {e.detail["sha256"] for e in events} == {digest}
    assert {e.actor_username for e in events} == {"buyer"}
    listed = client.get(detail, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Documents made from this brief (audit trail)" in listed and digest in listed

    # The chosen option's cash out in the sheet is the figure its option page shows.
    book = load_workbook(io.BytesIO(first.content))
    sheet = book[sheet_title_en(option.mode)]
    cash = totals(sheet)["Cash out (the sum of the lines above)"][0]
    option_page = client.get(
        reverse("results:option", args=(assessment.pk, option.key)), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    shown = re.search(r'id="cost-lines-cash">([^<]+)<', option_page)[1]
    with translation.override("en"):
        assert shown == cny(cash, 2)

    client.force_login(make_user("stranger", PROCUREMENT_STAFF))
    assert client.get(url).status_code == 404
    client.force_login(buyer)
    assert client.get(reverse("brief:document", args=(brief.pk, "nothing"))).status_code == 404


def sheet_title_en(mode: str) -> str:
    with translation.override("en"):
        return sheet_title(mode)


def displayed(cell) -> Decimal:
    """A number cell as the reader sees it: rounded to the decimals of its number format."""
    fmt = cell.number_format
    assert fmt in ("General",) or re.fullmatch(r"#,##0(\.0+)?", fmt), fmt
    places = len(fmt.split(".")[1]) if "." in fmt else 0
    return Decimal(str(cell.value)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)


def test_every_line_recomputes_from_what_is_displayed_and_totals_are_stored(run_32b):
    """Without a spreadsheet application: each amount's stored value is its displayed unit
    price × displayed quantity to the fen, nothing is hidden by the format (0.562, not 0.56;
    quantities never "1."), and the totals' stored values are the option's figures."""
    records = shortlist(run_32b)
    with translation.override("en"):
        data = comparison_workbook(records, "Qwen2.5 32B", run_32b.today)
    formulas, values = (
        load_workbook(io.BytesIO(data)),
        load_workbook(io.BytesIO(data), data_only=True),
    )
    options = {o.key: o for o in run_32b.recommendation.options}
    lines_checked = 0
    for sheet, stored in zip(formulas.worksheets, values.worksheets, strict=True):
        compared = [r for r in records if sheet_title_en(r["mode"]) == sheet.title]
        for row in sheet.iter_rows(min_row=5):
            for cell in row:
                match = isinstance(cell.value, str) and re.match(
                    r"=(-?)ROUND\(([A-Z]+)(\d+)\*([A-Z]+)\d+,2\)", cell.value
                )
                if not match:
                    continue
                price_cell = sheet[f"{match[2]}{match[3]}"]
                quantity_cell = sheet[f"{match[4]}{match[3]}"]
                price, quantity = displayed(price_cell), displayed(quantity_cell)
                assert price == Decimal(str(price_cell.value))  # the precision used, shown
                assert quantity == Decimal(str(quantity_cell.value))
                amount = Decimal(str(stored[cell.coordinate].value))
                expected = (price * quantity).quantize(Decimal("0.01"), ROUND_HALF_UP)
                assert amount == (-expected if match[1] else expected), cell.coordinate
                lines_checked += 1
        labels = {row[0].value: row[0].row for row in stored.iter_rows() if row[0].value}
        for index, record in enumerate(compared):
            cost = options[record["key"]].cost
            column = get_column_letter(2 + 3 * index + 2)
            for words, figure in (
                ("Cash out (the sum of the lines above)", cost.cash_out_cny),
                ("Net of resale", cost.net_of_resale_cny),
                ("Per run (net ÷ runs)", cost.per_run_cny),
            ):
                value = stored[f"{column}{labels[words]}"].value
                assert value is not None and Decimal(str(value)) == figure, (words, record["key"])
    assert lines_checked >= 5


def test_precision_formats():
    assert places_of("0.56200000") == 3 and number_format(3) == "#,##0.000"
    assert places_of("1") == 0 and number_format(0) == "#,##0"
    assert places_of("1200000.00") == 0 and places_of("7.53") == 2


def test_prints_on_a4_landscape_fit_to_width_with_header_rows_and_a_sign_off(run_32b):
    records = shortlist(run_32b)
    for language, words in (("en", ("Sign-off", "Checked by (finance)", "Notes")),
                            ("zh-hans", ("签批", "财务复核", "说明"))):  # fmt: skip
        with translation.override(language):
            data = comparison_workbook(records, "Qwen2.5 32B", run_32b.today)
        for sheet in load_workbook(io.BytesIO(data)).worksheets:
            setup = sheet.page_setup
            assert (setup.paperSize, setup.orientation) == (9, "landscape")
            # fitToWidth left out means 1 (ECMA-376 CT_PageSetup's default).
            assert (setup.fitToWidth or 1, setup.fitToHeight) == (1, 0)
            assert sheet.sheet_properties.pageSetUpPr.fitToPage
            assert sheet.print_title_rows == "$1:$4"
            labels = [row[0].value for row in sheet.iter_rows() if row[0].value]
            for word_ in words:
                assert any(word_ in str(label) for label in labels), (language, word_)


def test_no_demonstration_site_is_compared(run_32b):
    demo = [o for o in run_32b.recommendation.options if at_demonstration_site(o)]
    assert demo  # the catalog's planning examples are among the options weighed
    records = shortlist(run_32b)
    assert {r["key"] for r in records}.isdisjoint({o.key for o in demo})
    for record in records:
        assert not record["place"]["name"].startswith("DEMO"), record["place"]


def test_an_offer_priced_alike_at_several_sites_is_compared_once(run_32b):
    records = shortlist(run_32b)
    offers = [
        (r["mode"], r["server"]["name"], tuple((x["item"], x["unit_price_cny"], x["quantity"])
                                              for x in r["cost"]["lines"]))
        for r in records
    ]  # fmt: skip
    assert len(offers) == len(set(offers))
    options = {o.key: o for o in run_32b.recommendation.options}
    # The check bites: the job has options that are the same offer at different sites.
    keys = [same_offer(o) for o in options.values() if o.cost is not None]
    assert len(keys) > len(set(keys))
