import threading

import pytest
from fontTools.ttLib import TTFont

from advisor.brief.render import BRIEF_FONTS, brief_font_config, font_faces_css, page_label_css
from advisor.presentation.pdf import ExternalResource, MissingGlyphs, write_pdf_checked

BRIEF_STYLE = 'html { font-family: "Brief Sans", "Noto Sans CJK SC", sans-serif; }'


def brief_like_pdf(text: str) -> bytes:
    """``text`` in the brief's fonts, loaded as the brief loads them (uncompressed, so that
    the embedded fonts' names can be read)."""
    html = f"<html lang='zh-Hans'><style>{font_faces_css()}{BRIEF_STYLE}</style><p>{text}</p>"
    return write_pdf_checked(html, served_files=BRIEF_FONTS.values(), uncompressed_pdf=True)


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


def test_the_brief_prints_its_own_text_in_brief_sans_alone():
    pdf = brief_like_pdf("采购简报 <b>审批</b> Procurement brief ¥1,234")
    assert b"Brief-Sans" in pdf
    assert b"Noto-Sans-CJK-SC" not in pdf


def test_a_rare_character_typed_in_a_name_still_prints_from_the_full_font():
    """龘 is outside Brief Sans (built from the product's own text): the full Noto Sans CJK
    SC behind it in the font list draws it, and the render does not stop on a missing glyph."""
    assert ord("龘") not in TTFont(BRIEF_FONTS[400]).getBestCmap()
    pdf = brief_like_pdf("编制人 龘")
    assert b"Brief-Sans" in pdf
    assert b"Noto-Sans-CJK-SC" in pdf


def test_a_thread_keeps_its_font_configuration_and_another_thread_has_its_own():
    other = []
    thread = threading.Thread(target=lambda: other.append(brief_font_config()))
    thread.start()
    thread.join()
    assert brief_font_config() is brief_font_config()
    assert other[0] is not brief_font_config()


def test_the_brief_fonts_are_the_only_files_served():
    with pytest.raises(ExternalResource, match="fetches nothing"):
        write_pdf_checked("<img src='file:///etc/hostname'>", served_files=BRIEF_FONTS.values())


@pytest.mark.parametrize(
    ("label", "css"),
    [
        ("Page {page} of {pages}", '"Page " counter(page) " of " counter(pages)'),
        ("第 {page} 页，共 {pages} 页", '"第 " counter(page) " 页，共 " counter(pages) " 页"'),
    ],
)
def test_page_label_becomes_css_counters(label, css):
    assert page_label_css(label) == css
