"""What the buyer reads in the brief: words instead of codes, formatted figures, page 1."""

import re

import pytest

from tests.support.pdf import pdf_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

# Codes of the scenario and layout that must never reach the reader as such.
RAW_CODES = re.compile(r"amp-bf16|\badamw\b|\bfsdp\b|\bTP \d|r=—|r=\d|\bzero[123]\b|\(—\)")
# A rule id (rule ids belong to the technical annex only, issue 27) and an expression.
RULE_ID = re.compile(r"\b(?:SITE|VENDOR|HW|CLOUD)-")
EXPRESSION = re.compile(r"==|<=|>=|\bTrue\b|\bFalse\b|\bNone\b")
# A run of five or more digits without separators (ids, dates and hashes are cut out first).
LONG_NUMBER = re.compile(r"(?<![\d.,:/-])\d{5,}(?![\d.,:/-])")


def body(text: str, number: str) -> str:
    """The brief's text up to the appendix (records and hashes are for auditors)."""
    for marker in ("Appendix A", "附录 A", "附录A"):
        if marker in text:
            text = text.split(marker)[0]
    text = re.sub(r"\b(?:ISO|IEC|GB)(?:/IEC)?[\s/]*\d+", "", text)  # standards' names
    # Citations' URLs (line breaks may cut one into pieces): addresses, not numbers to read.
    text = re.sub(r"https?://\S*(?:\n[\w./%#?=&~:+-]+)*", "", text)
    return text.replace(number, "")


@pytest.mark.parametrize(
    ("language", "decision", "approved_by"),
    [
        ("en", "Decision", "not yet approved"),
        ("zh-hans", "决定", "尚未审批"),
    ],
)
def test_brief_reads_as_words_and_its_first_page_is_the_decision(
    shared_briefs, tmp_path, language, decision, approved_by
):
    brief = shared_briefs(language)  # the standard job's, as issue() makes it
    text = pdf_text(brief.pdf, tmp_path)
    (tmp_path / f"brief-{language}.txt").write_text(text)
    readable = body(text, brief.number)
    assert not RAW_CODES.findall(readable), RAW_CODES.findall(readable)
    assert not LONG_NUMBER.findall(readable), LONG_NUMBER.findall(readable)
    assert not RULE_ID.findall(readable), RULE_ID.findall(readable)
    assert not EXPRESSION.findall(readable), EXPRESSION.findall(readable)
    annex = re.split(r"Appendix C|附录 C", text)[-1]
    assert RULE_ID.search(annex)  # the technical annex names every finding's rule id
    first_page = re.sub(r"\s+", " ", text.split("\f")[0])
    chosen = brief.snapshot["options"][0]
    assert decision in first_page and approved_by in first_page
    accelerator = chosen["accelerator"]
    shown = (language == "zh-hans" and accelerator.get("name_zh")) or accelerator["name"]
    assert shown in first_page  # in the reader's language
    assert re.search(rf"\b{chosen['sizing']['gpus']} (×|张) ", first_page)
