"""The questionnaire as an XLSX workbook, and a filled one read back safely.

Writing: one row per question under machine-readable header keys (row 1) and the same headers
in the reader's language (row 2), with data validation on every answer cell.

Reading never trusts the file: its size is limited, the zip directory is checked for bombs
(entry count, uncompressed sizes and ratios) and for XML entity declarations before openpyxl
opens it, the workbook is opened read-only without evaluating formulas (a formula is a refused
answer) and without following external links.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from datetime import date

from django.utils.translation import gettext as _
from openpyxl import Workbook, load_workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from advisor.domain.i18n import Message
from advisor.domain.questionnaire.answers import AnswerError, is_blank, parse_answer
from advisor.domain.questionnaire.declared import FACTS_BY_NAME, DeclaredFact
from advisor.domain.questionnaire.questions import Question
from advisor.domain.questionnaire.specs import (
    CHOICE,
    DATE,
    INTEGER,
    NUMBER,
    TEXT_MAX_LENGTH,
    TYPE_LABELS,
    YES_NO,
    Fact,
)
from advisor.presentation.text import render_text, rule_text
from advisor.questionnaire import labels
from advisor.spreadsheets import append_row
from advisor.text import clean_text

HEADERS = (
    "id",
    "subject",
    "question",
    "type",
    "allowed",
    "unit",
    "answer",
    "evidence",
    "rule",
    "citation",
)
SHEET = "questionnaire"
FIRST_QUESTION_ROW = 3
WIDTHS = {"id": 34, "subject": 26, "question": 60, "type": 14, "allowed": 30, "unit": 10,
          "answer": 24, "evidence": 36, "rule": 26, "citation": 50}  # fmt: skip

# Limits on what an upload may be (docs/decisions/0023-questionnaire-vendor-answers.md).
MAX_UPLOAD_BYTES = 2 * 1024 * 1024
MAX_ZIP_ENTRIES = 200
MAX_ENTRY_BYTES = 20 * 1024 * 1024
MAX_TOTAL_BYTES = 50 * 1024 * 1024
MAX_RATIO = 100  # uncompressed / compressed, per entry over 1 MiB
MAX_ROWS = 2000


def write_workbook(questions: list[Question], title: str) -> bytes:
    """The questionnaire in the active language: one row per question."""
    book = Workbook()
    sheet = book.active
    sheet.title = SHEET
    append_row(sheet, HEADERS)
    append_row(sheet, [str(labels.HEADER_LABELS[key]) for key in HEADERS])
    bold = Font(bold=True)
    for cell in (*sheet[1], *sheet[2]):
        cell.font = bold
    answer_fill = PatternFill("solid", fgColor="FFF7D6")
    column = {key: index + 1 for index, key in enumerate(HEADERS)}
    validations: dict[tuple, DataValidation] = {}
    for offset, question in enumerate(questions):
        row = FIRST_QUESTION_ROW + offset
        append_row(sheet, _row(question))  # catalog text: never a formula
        for key in ("question", "citation", "allowed"):
            sheet.cell(row, column[key]).alignment = Alignment(wrap_text=True, vertical="top")
        answer = sheet.cell(row, column["answer"])
        answer.fill = answer_fill
        sheet.cell(row, column["evidence"]).fill = answer_fill
        if question.fact.type == DATE:
            answer.number_format = "yyyy-mm-dd"
        elif question.fact.type not in (NUMBER, INTEGER):
            answer.number_format = "@"
        signature, make = _validation(question.fact)
        if signature not in validations:
            validations[signature] = make()
            sheet.add_data_validation(validations[signature])
        validations[signature].add(answer.coordinate)
    for key, width in WIDTHS.items():
        sheet.column_dimensions[get_column_letter(column[key])].width = width
    sheet.freeze_panes = f"A{FIRST_QUESTION_ROW}"
    about = book.create_sheet(_("about"))
    for line in (
        title,
        _("Fill in the yellow answer and evidence cells; leave the other columns as they are."),
    ):
        append_row(about, [line])  # the title is the buyer's text
    about.column_dimensions["A"].width = 120
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _row(question: Question) -> list:
    fact = question.fact
    return [
        question.id,
        render_text(question.subject_name),
        _(fact.question),
        _(TYPE_LABELS[fact.type]),
        allowed_text(fact),
        _(fact.unit) if fact.unit else "",
        None,
        None,
        "; ".join(rule_text(rule) for rule in question.rules) or _("price quote"),
        "; ".join(dict.fromkeys(_(c) for c in question.citations)),
    ]


def allowed_text(fact: Fact) -> str:
    """What an answer may be, in words: a range, the choices, yes/no, a date."""
    if fact.type in (NUMBER, INTEGER):
        return _("%(low)s to %(high)s") % {"low": _fmt(fact.minimum), "high": _fmt(fact.maximum)}
    if fact.type == YES_NO:
        return _("yes or no")
    if fact.type == DATE:
        return "YYYY-MM-DD"
    if fact.type == CHOICE:
        text = ", ".join(fact.choices)
        return _("one or more of: %(choices)s") % {"choices": text} if fact.multiple else text
    return _("text, at most %(count)d characters") % {"count": TEXT_MAX_LENGTH}


def _fmt(value) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else str(value)


def _validation(fact: Fact):
    error = _("This answer does not fit the question: see the allowed column.")
    common = {"allow_blank": True, "showErrorMessage": True, "error": error, "errorStyle": "stop"}
    if fact.type in (NUMBER, INTEGER):
        kind = "whole" if fact.type == INTEGER else "decimal"
        low, high = _fmt(fact.minimum), _fmt(fact.maximum)
        return (kind, low, high), lambda: DataValidation(
            type=kind, operator="between", formula1=low, formula2=high, **common
        )
    if fact.type == DATE:
        return ("date",), lambda: DataValidation(
            type="date", operator="between", formula1="DATE(1990,1,1)",
            formula2="DATE(2100,12,31)", **common,
        )  # fmt: skip
    if fact.type == YES_NO:
        choices = (_("yes"), _("no"))
    elif fact.type == CHOICE and not fact.multiple:
        choices = fact.choices
    else:
        return ("text",), lambda: DataValidation(
            type="textLength", operator="lessThanOrEqual", formula1=str(TEXT_MAX_LENGTH), **common
        )
    listed = '"' + ",".join(choices) + '"'
    return ("list", listed), lambda: DataValidation(type="list", formula1=listed, **common)


# --------------------------------------------------------------------------- reading


class UnreadableFile(ValueError):
    """The upload is not a questionnaire we can read safely; the message says why."""


@dataclass(frozen=True)
class Refusal:
    row: int
    column: str  # letter, e.g. "G"
    header: str  # machine key, e.g. "answer"
    message: Message

    def line(self) -> str:
        return f"row {self.row}, column {self.column} ({self.header}): {self.message.render()}"


@dataclass(frozen=True)
class ReadAnswer:
    row: int
    declared: DeclaredFact


@dataclass(frozen=True)
class ReadResult:
    answers: tuple[ReadAnswer, ...]
    refusals: tuple[Refusal, ...]
    unanswered: int

    @property
    def declared(self) -> tuple[DeclaredFact, ...]:
        return tuple(answer.declared for answer in self.answers)


def check_zip(data: bytes) -> None:
    """Refuse anything but a modest, plain XLSX zip, before any XML parser sees it."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise UnreadableFile(
            _("The file is larger than %(size)d MiB.") % {"size": MAX_UPLOAD_BYTES // 2**20}
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise UnreadableFile(_("The file is not an XLSX workbook.")) from None
    if len(entries) > MAX_ZIP_ENTRIES:
        raise UnreadableFile(_("The workbook has too many parts to be a questionnaire."))
    total = 0
    for entry in entries:
        total += entry.file_size
        ratio = entry.file_size / max(entry.compress_size, 1)
        too_packed = entry.file_size > 2**20 and ratio > MAX_RATIO
        if entry.flag_bits & 0x1 or entry.file_size > MAX_ENTRY_BYTES or too_packed:
            raise UnreadableFile(
                _("The workbook is packed in a way we do not open (zip bomb or encryption).")
            )
        if total > MAX_TOTAL_BYTES:
            raise UnreadableFile(_("The workbook unpacks to more than we open (zip bomb)."))
    names = {entry.filename for entry in entries}
    if "[Content_Types].xml" not in names or "xl/workbook.xml" not in names:
        raise UnreadableFile(_("The file is not an XLSX workbook."))
    for entry in entries:
        if entry.filename.endswith((".xml", ".rels")):
            with archive.open(entry) as part:
                head = part.read(MAX_ENTRY_BYTES + 1)
            if len(head) > MAX_ENTRY_BYTES:
                raise UnreadableFile(_("The workbook unpacks to more than we open (zip bomb)."))
            if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
                raise UnreadableFile(_("The workbook declares XML entities; we do not open it."))


def read_workbook(data: bytes, received: date) -> ReadResult:
    """The answers of a filled questionnaire; raises :class:`UnreadableFile`.

    Rows are matched by their ``id``; columns by the header keys in row 1, so reordered
    columns are read correctly. A formula, a wrong type or an unknown id is refused with its
    row and column; blank answers are left unanswered.
    """
    check_zip(data)
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=False, keep_links=False)
    except Exception:  # openpyxl raises many kinds for a damaged file
        raise UnreadableFile(_("The workbook could not be read; save it again as XLSX.")) from None
    try:
        sheet = book[SHEET] if SHEET in book.sheetnames else book.worksheets[0]
        rows = sheet.iter_rows(max_row=MAX_ROWS + FIRST_QUESTION_ROW)
        header = next(rows, ())
        columns = {
            str(c.value).strip(): i for i, c in enumerate(header) if isinstance(c.value, str)
        }
        missing = [key for key in ("id", "answer", "evidence") if key not in columns]
        if missing:
            raise UnreadableFile(
                _("Row 1 must hold the header keys; %(keys)s missing.")
                % {"keys": ", ".join(missing)}
            )
        return _read_rows(rows, columns, received)
    finally:
        book.close()


def _cell(row, columns, key):
    index = columns.get(key)
    return row[index] if index is not None and index < len(row) else None


def _read_rows(rows, columns, received: date) -> ReadResult:
    answers, refusals, unanswered, seen = [], [], 0, set()
    letter = {key: get_column_letter(index + 1) for key, index in columns.items()}

    def refuse(number, key, template, **params):
        refusals.append(Refusal(number, letter[key], key, Message(template, params)))

    for number, row in enumerate(rows, start=2):
        id_cell, answer_cell = _cell(row, columns, "id"), _cell(row, columns, "answer")
        evidence_cell = _cell(row, columns, "evidence")
        question_id = id_cell.value if id_cell is not None else None
        raw = answer_cell.value if answer_cell is not None else None
        if not isinstance(question_id, str) or ":" not in question_id:
            if number > 2 and not is_blank(raw):
                refuse(number, "id", labels.UNKNOWN_ID)
            continue
        subject, name = question_id.strip().rsplit(":", 1)
        fact = FACTS_BY_NAME.get(name)
        if fact is None or not subject:
            refuse(number, "id", labels.UNKNOWN_ID)
            continue
        formulas = [
            key for key, cell in (("answer", answer_cell), ("evidence", evidence_cell))
            if cell is not None and cell.data_type == "f"
        ]  # fmt: skip
        if formulas:
            for key in formulas:
                refuse(number, key, labels.FORMULA)
            continue
        if is_blank(raw):
            unanswered += 1
            continue
        if question_id in seen:
            refuse(number, "id", labels.DUPLICATE_ID)
            continue
        seen.add(question_id)
        try:
            value = parse_answer(fact, raw)
        except AnswerError as error:
            refusals.append(Refusal(number, letter["answer"], "answer", error.message))
            continue
        evidence = evidence_cell.value if evidence_cell is not None else None
        # No control or bidi-control characters: evidence is printed in the signed brief.
        evidence = "" if evidence is None else clean_text(str(evidence)).strip()
        if len(evidence) > TEXT_MAX_LENGTH:
            refuse(number, "evidence", labels.EVIDENCE_TOO_LONG, count=TEXT_MAX_LENGTH)
            continue
        declared = DeclaredFact(subject, fact, value, evidence, received.isoformat())
        answers.append(ReadAnswer(number, declared))
    return ReadResult(tuple(answers), tuple(refusals), unanswered)
