"""Reading a filled questionnaire never trusts the file: hostile and damaged workbooks."""

import io
import zipfile
from datetime import date

import openpyxl
import pytest
from django.utils import translation

from advisor.domain.questionnaire import specs
from advisor.domain.questionnaire.questions import Question
from advisor.questionnaire.xlsx import (
    HEADERS,
    MAX_UPLOAD_BYTES,
    UnreadableFile,
    read_workbook,
    write_workbook,
)

TODAY = date(2026, 11, 29)
QUESTIONS = [
    Question("dc-a", "DC A", specs.fact(specs.DATA_CENTER, "ups_minutes"), "unknown", ("SITE-UPS",)),
    Question("dc-a", "DC A", specs.fact(specs.DATA_CENTER, "hvdc"), "unknown", ("SITE-HVDC",)),
    Question("op-a", "Op A", specs.fact(specs.OPERATOR, "licence_valid_until"), "stale", ("VENDOR-TELECOM-LICENCE",)),
]  # fmt: skip
ANSWER = HEADERS.index("answer") + 1


def workbook(answers=(), *, edit=None) -> bytes:
    with translation.override("en"):
        data = write_workbook(QUESTIONS, "test")
    book = openpyxl.load_workbook(io.BytesIO(data))
    sheet = book["questionnaire"]
    for row, value in answers:
        sheet.cell(row, ANSWER).value = value
    if edit:
        edit(sheet)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def rezip(data: bytes, change) -> bytes:
    """The same workbook with its zip parts changed by ``change(name, bytes) -> bytes``."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            target.writestr(item.filename, change(item.filename, source.read(item.filename)))
    return out.getvalue()


def read(data):
    with translation.override("en"):
        return read_workbook(data, TODAY)


def test_a_filled_workbook_reads_back():
    result = read(workbook([(3, 30), (4, "yes"), (5, date(2029, 6, 30))]))
    assert result.refusals == ()
    assert [(a.row, a.declared.fact.name, a.declared.value) for a in result.answers] == [
        (3, "ups_minutes", 30.0),
        (4, "hvdc", True),
        (5, "licence_valid_until", "2029-06-30"),
    ]
    assert result.answers[0].declared.received == "2026-11-29"


def test_answer_cells_carry_data_validation():
    sheet = openpyxl.load_workbook(io.BytesIO(workbook()))["questionnaire"]
    rules = {
        str(dv.sqref): (dv.type, dv.formula1, dv.formula2)
        for dv in sheet.data_validations.dataValidation
    }
    assert rules["G3"] == ("decimal", "0", "600")
    assert rules["G4"] == ("list", '"yes,no"', None)
    assert rules["G5"][0] == "date"


def test_reordered_columns_are_read_by_their_header_keys():
    def swap(sheet):
        sheet.move_range("G1:H10", cols=5)  # answer and evidence to the far right

    result = read(workbook([(3, 30)], edit=swap))
    assert [a.declared.value for a in result.answers] == [30.0]


def refusal_lines(data):
    return [r.line() for r in read(data).refusals]


def test_a_formula_is_refused_never_evaluated():
    lines = refusal_lines(workbook([(3, "=1+1"), (4, "='C:\\[evil.xlsx]Sheet1'!A1")]))
    why = "is a formula; type the value itself (formulas are never evaluated)"
    assert lines == [f"row 3, column G (answer): {why}", f"row 4, column G (answer): {why}"]


def test_unknown_and_duplicate_ids_are_refused():
    def tamper(sheet):
        sheet.cell(4, 1).value = "dc-a:colour"
        sheet.cell(5, 1).value = "dc-a:ups_minutes"

    lines = refusal_lines(workbook([(3, 30), (4, "yes"), (5, 40)], edit=tamper))
    assert lines == [
        "row 4, column A (id): this question id is not one of ours; keep the id column as it was",
        "row 5, column A (id): this question is answered twice; keep one row",
    ]


def test_missing_header_keys_are_refused():
    def blank(sheet):
        sheet.cell(1, ANSWER).value = "Antwort"

    with pytest.raises(UnreadableFile, match="answer missing"):
        read(workbook(edit=blank))


def zip_of(entries) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, payload in entries:
            archive.writestr(name, payload)
    return out.getvalue()


HOSTILE = [
    ("not a zip", lambda: b"PK\x03\x04 not really", "not an XLSX workbook"),
    ("plain text", lambda: b"id,answer\n", "not an XLSX workbook"),
    ("too large", lambda: b"0" * (MAX_UPLOAD_BYTES + 1), "larger than 2 MiB"),
    ("zip bomb", lambda: zip_of([("[Content_Types].xml", ""), ("xl/workbook.xml", ""), ("xl/bomb.xml", b"\0" * (30 * 2**20))]), "zip bomb"),
    ("ratio bomb", lambda: zip_of([("[Content_Types].xml", ""), ("xl/workbook.xml", ""), ("xl/a.xml", b"a" * (5 * 2**20))]), "zip bomb"),
    ("too many parts", lambda: zip_of([(f"xl/p{i}.xml", "") for i in range(201)]), "too many parts"),
    ("a zip, not a workbook", lambda: zip_of([("readme.txt", "hello")]), "not an XLSX workbook"),
    ("entity expansion", lambda: rezip(workbook(), lambda name, body: b'<!DOCTYPE x [<!ENTITY a "aaaa">]>' + body if name == "xl/worksheets/sheet1.xml" else body), "declares XML entities"),
    ("damaged sheet", lambda: rezip(workbook(), lambda name, body: b"<worksheet" if name == "xl/worksheets/sheet1.xml" else body), "could not be read"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "make", "why"), HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_files_are_refused_with_a_plain_reason(case, make, why):
    with pytest.raises(UnreadableFile) as refused:
        read(make())
    assert why in str(refused.value)


def test_an_encrypted_part_is_refused():
    data = bytearray(zip_of([("[Content_Types].xml", "x"), ("xl/workbook.xml", "y")]))
    # Set the "encrypted" flag bit in every local and central directory header.
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            data[start + offset] |= 0x1
            start += 4
    with pytest.raises(UnreadableFile, match="zip bomb or encryption"):
        read(bytes(data))


def test_external_links_are_not_followed():
    """A workbook with an external link part reads without touching the linked file."""

    def add_link(name, body):
        if name == "xl/_rels/workbook.xml.rels":
            link = (
                b'<Relationship Id="rIdX" Target="externalLinks/externalLink1.xml" '
                b'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLink"/>'
            )
            return body.replace(b"</Relationships>", link + b"</Relationships>")
        return body

    data = rezip(workbook([(3, 30)]), add_link)
    result = read(data)  # keep_links=False: the missing link part is never opened
    assert [a.declared.value for a in result.answers] == [30.0]
