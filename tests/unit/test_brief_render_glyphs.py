import pytest

from advisor.brief.render import page_label_css
from advisor.presentation.pdf import ExternalResource, MissingGlyphs, write_pdf_checked


def test_chinese_and_english_text_have_glyphs():
    pdf = write_pdf_checked(
        "<html lang='zh-Hans'><p>采购简报 Procurement brief ¥1,234 · — ☐</p></html>"
    )
    assert pdf.startswith(b"%PDF-")


def test_a_character_no_font_has_fails():
    with pytest.raises(MissingGlyphs, match="notdef"):
        write_pdf_checked("<p>private use \ue000</p>")


@pytest.mark.parametrize(
    "html",
    [
        "<img src='file:///etc/hostname'>",
        "<link rel='stylesheet' href='http://127.0.0.1:9/x.css'><p>x</p>",
        "<p style='background: url(https://example.com/a.png)'>x</p>",
        "<style>@import url('file:///etc/passwd');</style><p>x</p>",
    ],
)
def test_a_pdf_of_ours_fetches_nothing(html):
    """Briefs and letters are self-contained: any URL stops the render (never the network or
    a local file), with an ordinary exception the brief worker records."""
    with pytest.raises(ExternalResource, match="fetches nothing"):
        write_pdf_checked(html)


@pytest.mark.parametrize(
    ("label", "css"),
    [
        ("Page {page} of {pages}", '"Page " counter(page) " of " counter(pages)'),
        ("第 {page} 页，共 {pages} 页", '"第 " counter(page) " 页，共 " counter(pages) " 页"'),
    ],
)
def test_page_label_becomes_css_counters(label, css):
    assert page_label_css(label) == css
