"""Counted messages read "1 other site" and "2 other sites", never "site(s)", in every output.

The domain marks both English forms (``Nn_``) and names the count; the presentation picks the
form with ``ngettext`` (Chinese has one), also for the JSON form a brief stores.
"""

import re
from decimal import Decimal
from pathlib import Path

import polib
import pytest
from django.utils import translation

from advisor.domain.economics.compare import PAYBACK_NOT, TOO_MANY_RUNS
from advisor.domain.i18n import Message, Nn_, plural_number
from advisor.domain.plain import jsonable
from advisor.presentation.labels import unit_count
from advisor.presentation.text import render_text

ROOT = Path(__file__).resolve().parents[2]


def payback(years) -> Message:
    return Message.counted(PAYBACK_NOT, "years", {"years": years})


@pytest.mark.parametrize(
    ("years", "words"),
    [(1, "within 1 year at"), (3, "within 3 years at"), ("1", "within 1 year at")],
)
def test_the_form_follows_the_count_in_english(years, words):
    message = payback(years)
    with translation.override("en"):
        assert words in render_text(message)
        assert words in render_text(jsonable(message))  # as a brief's snapshot keeps it
    assert words in message.render()


def test_chinese_has_one_form_for_both():
    with translation.override("zh-hans"):
        one, three = render_text(payback(1)), render_text(payback(3))
    assert one == "与租用相同服务器相比，按此用量，采购在 1 年内无法收回投资。"
    assert three == one.replace("1 年", "3 年")


def test_the_stored_form_keeps_both_forms_and_the_count_name():
    stored = jsonable(Message.counted(TOO_MANY_RUNS, "runs", {"runs": 1, "hours": 9000}))
    assert stored["template"].startswith("{runs} run a year needs")
    assert stored["plural"].startswith("{runs} runs a year need")
    assert stored["count"] == "runs"
    plain = jsonable(Message("no count {x}", {"x": 1}))
    assert set(plain) == {"template", "params"}  # briefs stored before counted messages


@pytest.mark.parametrize(("value", "number"), [(1, 1), ("1", 1), (2, 2), ("1.5", 2), (None, 0)])
def test_plural_number(value, number):
    assert plural_number(value) == number


def test_marker_returns_both_forms():
    assert Nn_("a site", "sites") == ("a site", "sites")


PO_FILES = [
    p for p in ROOT.glob("**/locale/zh_Hans/LC_MESSAGES/django.po") if ".venv" not in p.parts
]
GUESSED_PLURAL = re.compile(r"[a-z]\(s\)")


@pytest.mark.parametrize("po_path", PO_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_message_guesses_its_plural(po_path):
    """No English text writes "site(s)": a count picks its form."""
    guessed = [e.msgid for e in polib.pofile(str(po_path)) if GUESSED_PLURAL.search(e.msgid)]
    assert not guessed, guessed


@pytest.mark.parametrize(
    ("language", "quantity", "code", "words"),
    [
        ("en", "1", "server", "1 server"),
        ("en", "3", "year", "3 years"),
        ("en", "51.2", "card_hour", "51.2 card-hours"),
        ("en", "55,995", "kwh", "55,995 kWh"),
        ("zh-hans", "36", "month", "36 个月"),
        ("zh-hans", "2", "server", "2 台"),
        ("en", "4", "not-a-unit", "4 not-a-unit"),
    ],
)
def test_a_cost_line_quantity_reads_with_its_counted_unit(language, quantity, code, words):
    with translation.override(language):
        number = Decimal(quantity.replace(",", ""))
        assert unit_count(quantity, number, code) == words
