"""Spreadsheets written from data: every cell is a value, never a formula (OWASP CSV injection).

A catalog name, a vendor's evidence or an assessment title that begins with ``=`` (or ``+``,
``-``, ``@``, a tab or a carriage return) would be a formula when a spreadsheet program opens the
file, and the vendor questionnaire and the catalog exports go to other people. In an XLSX file
every text cell is written as text (openpyxl would store ``"=..."`` as a formula); in a CSV file,
which has no types, such a text gets a leading apostrophe (OWASP's advice), which the catalog
import takes off again. Numbers stay numbers (``-5`` is not a formula).
"""

from __future__ import annotations

import re
from datetime import datetime
from io import BytesIO

import tablib
from django.utils import timezone
from import_export.formats import base_formats
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def text_cells(cells) -> None:
    """Cells openpyxl took for formulas become the text they are."""
    for cell in cells:
        if cell.data_type == "f":
            cell.data_type = "s"


def append_row(sheet, values) -> None:
    """``sheet.append(values)``, every text a text cell."""
    sheet.append(list(values))
    text_cells(sheet[sheet.max_row])


def csv_text(value):
    """A CSV cell: a text that a spreadsheet would start as a formula gets an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def from_csv_text(value):
    """A CSV cell as it was before :func:`csv_text`."""
    if (
        isinstance(value, str)
        and value.startswith("'")
        and value[1:].startswith(FORMULA_START)
        and not _NUMBER.fullmatch(value[1:])
    ):
        return value[1:]
    return value


def _xlsx_value(value):
    if isinstance(value, datetime) and timezone.is_aware(value):
        return timezone.make_naive(value)
    return value


def catalog_formats() -> tuple[list, list]:
    """django-import-export formats for the catalog admin: CSV and XLSX whose exported cells
    are never formulas (import: the same two, the CSV apostrophe taken off)."""

    class CSV(base_formats.CSV):
        def export_data(self, dataset, **kwargs):
            return super().export_data(_mapped(dataset, csv_text), **kwargs)

        def create_dataset(self, in_stream, **kwargs):
            return _mapped(super().create_dataset(in_stream, **kwargs), from_csv_text)

    class XLSX(base_formats.XLSX):
        def export_data(self, dataset, **kwargs):
            book = Workbook()
            sheet = book.active
            sheet.title = "Sheet 1"

            def value(item):
                item = _xlsx_value(item)
                return ILLEGAL_CHARACTERS_RE.sub("", item) if isinstance(item, str) else item

            if dataset.headers:
                append_row(sheet, [value(h) for h in dataset.headers])
            for row in dataset:
                append_row(sheet, [value(item) for item in row])
            buffer = BytesIO()
            book.save(buffer)
            return buffer.getvalue()

    def _mapped(dataset, function):
        out = tablib.Dataset(headers=dataset.headers, title=dataset.title)
        for row in dataset:
            out.append([function(item) for item in row])
        return out

    formats = [CSV, XLSX]
    return formats, formats
