"""Each PDF object is turned into bytes once (advisor.presentation.pdf.objects_written_once):
the file is the same as WeasyPrint writes without it, and no object is serialised twice."""

import weasyprint

from advisor.presentation.pdf import objects_written_once, write_pdf_checked

# Two pages, Chinese and Latin text, a table and an SVG: fonts, page streams and dictionaries.
HTML = """<html lang="zh-Hans"><title>采购简报</title>
<style>@page { @bottom-center { content: counter(page) " / " counter(pages); } }
p.next { break-before: page; }</style>
<h1>采购简报 Procurement brief</h1>
<table><tr><th>项目</th><td>¥1,234</td></tr></table>
<svg width="40" height="20"><rect width="40" height="20" fill="#1d4f91"/></svg>
<p class="next">第二页 page two</p></html>"""


def pdf_a(**options) -> bytes:
    return weasyprint.HTML(string=HTML).write_pdf(
        pdf_variant="pdf/a-3b", pdf_identifier=b"FT-2026-000001", **options
    )


def test_the_file_is_the_same_as_without():
    assert pdf_a(finisher=objects_written_once) == pdf_a()


def test_each_object_is_serialised_once(monkeypatch):
    import pydyf

    made = []
    serialise = pydyf.Stream.data.fget

    def counted(stream):
        made.append(id(stream))
        return serialise(stream)

    monkeypatch.setattr(pydyf.Stream, "data", property(counted))
    pdf_a(finisher=objects_written_once)
    once = list(made)
    made.clear()
    pdf_a()
    # Without it every stream is made twice (the file and the MD5 of the identifier); with
    # it, once each, but for the object and cross-reference streams pydyf makes while writing.
    assert len(once) == len(set(once)) + 1
    assert len(made) > len(once)


def test_pdfs_written_through_the_checked_writer_use_it(monkeypatch):
    from advisor.presentation import pdf

    finished = []

    def recorded(document, written):
        finished.append(len(written.objects))
        objects_written_once(document, written)

    monkeypatch.setattr(pdf, "objects_written_once", recorded)
    write_pdf_checked("<p>一页 one page</p>", pdf_variant="pdf/a-3b")
    assert len(finished) == 1
    assert finished[0] > 0
