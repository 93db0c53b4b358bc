"""The specification written as DOCX (python-docx, A4, header and page numbers) and as PDF (an
HTML template through WeasyPrint, as the brief)."""

from __future__ import annotations

import io

from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from advisor.brief.office import document_moment, stable_zip
from advisor.brief.specification.values import (
    FONT_EAST_ASIA,
    Line,
    Specification,
)
from advisor.presentation.pdf import write_pdf_checked

# --- DOCX ----------------------------------------------------------------------------------------------


def _east_asian_font(style) -> None:
    from docx.oxml.ns import qn  # on first use, as the PDF libraries (decision 0046)

    fonts = style.element.get_or_add_rPr().get_or_add_rFonts()
    fonts.set(qn("w:eastAsia"), FONT_EAST_ASIA)


def _field(paragraph, instruction: str) -> None:
    """A Word field (PAGE, NUMPAGES) in ``paragraph``."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    simple = OxmlElement("w:fldSimple")
    simple.set(qn("w:instr"), instruction)
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "1"
    run.append(text)
    simple.append(run)
    paragraph._p.append(simple)


def _page_setup(document, spec: Specification) -> None:
    """A4 portrait, the brief's margins; the title and number in the header, page X / Y in the
    footer."""
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Mm, Pt

    section = document.sections[0]
    section.page_width, section.page_height = Mm(210), Mm(297)
    section.top_margin = section.bottom_margin = Mm(20)
    section.left_margin = section.right_margin = Mm(18)
    header = section.header.paragraphs[0]
    header.text = f"{spec.title} {spec.number}".strip()
    header.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    for run in header.runs:
        run.font.size = Pt(8)
    footer = section.footer.paragraphs[0]
    footer.alignment = WD_ALIGN_PARAGRAPH.CENTER
    _field(footer, "PAGE")
    footer.add_run(" / ")
    _field(footer, "NUMPAGES")


def _table(document, rows: list[tuple], header: tuple | None = None):
    from docx.enum.table import WD_TABLE_ALIGNMENT

    table = document.add_table(rows=0, cols=len(rows[0] if rows else header))
    table.style = "Table Grid"
    table.alignment = WD_TABLE_ALIGNMENT.CENTER
    for index, values in enumerate(([header] if header else []) + rows):
        cells = table.add_row().cells
        for cell, value in zip(cells, values, strict=True):
            cell.text = str(value)
            if header and index == 0:
                for run in cell.paragraphs[0].runs:
                    run.font.bold = True
    return table


def requirement_rows(lines: list[Line]) -> list[tuple]:
    return [(str(n), line.mark, line.text, line.evidence) for n, line in enumerate(lines, 1)]


def requirement_header() -> tuple:
    return (_("No."), _("Mark"), _("Requirement"), _("Evidence to supply"))


def policy_header() -> tuple:
    return (_("Policy clause"), _("Applies to this lot"), _("Why"))


def docx_bytes(spec: Specification) -> bytes:
    """The specification as an A4 Word document; the same content gives the same bytes."""
    # python-docx on first use (~80 ms of imports every command would pay; decision 0046).
    from docx import Document
    from docx.shared import Pt

    document = Document()
    for name in ("Normal", "Title", "Heading 1", "Heading 2", "Heading 3"):
        _east_asian_font(document.styles[name])
    document.styles["Normal"].font.size = Pt(10.5)
    properties = document.core_properties
    properties.title = spec.title
    properties.identifier = spec.number
    properties.language = spec.language
    properties.author = properties.last_modified_by = ""
    properties.created = properties.modified = document_moment(spec.day)
    properties.revision = 1
    _page_setup(document, spec)
    document.add_heading(spec.title, level=0)
    if spec.number:
        document.add_paragraph(spec.number)
    document.add_heading(_("Preface table"), level=1)
    _table(document, [(row.label, row.value) for row in spec.preface])
    for lot in spec.lots:
        document.add_heading(lot.title, level=1)
        _table(document, [(row.label, row.value) for row in lot.preface])
        for section in lot.sections:
            document.add_heading(section.title, level=2)
            _table(document, requirement_rows(section.lines), requirement_header())
        if lot.acceptance:
            document.add_heading(_("Acceptance tests"), level=2)
            for index, line in enumerate(lot.acceptance, start=1):
                document.add_paragraph(f"{index}. {line.text}")
        if lot.policies:
            document.add_heading(_("Policy clauses"), level=2)
            rows = [(p.title, p.verdict, p.why) for p in lot.policies]
            _table(document, rows, policy_header())
    document.add_heading(_("Notes"), level=1)
    for note in spec.notes:
        document.add_paragraph(note)
    document.add_heading(spec.examples_title, level=1)
    for example in spec.examples:
        document.add_paragraph(example)
    buffer = io.BytesIO()
    document.save(buffer)
    return stable_zip(buffer.getvalue(), spec.day)


# --- PDF -------------------------------------------------------------------------------------------------


def pdf_bytes(spec: Specification) -> bytes:
    """The specification as PDF (WeasyPrint, the brief's fonts; nothing fetched)."""
    html = render_to_string(
        "brief/specification.html",
        {
            "spec": spec,
            "requirement_header": requirement_header(),
            "policy_header": policy_header(),
        },
    )
    return write_pdf_checked(html)
