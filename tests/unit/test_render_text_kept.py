"""render_text keeps each worded message per language: what it keeps never changes a word.

A recommendation over every site words ~20,000 findings, most alike; the words are kept per
(language, template, parameters) and must be exactly what wording them again gives.
"""

from decimal import Decimal

import pytest
from django.utils import translation

from advisor.domain.i18n import Code, Message
from advisor.presentation import text
from advisor.presentation.text import render_text


def _fresh(message, language):
    with translation.override(language):
        return text._rendered(language, message.template, message.params)


@pytest.mark.parametrize(
    "first, second",
    [
        (Message("{x}", {"x": True}), Message("{x}", {"x": 1})),
        (Message("{x}", {"x": Decimal("1.0")}), Message("{x}", {"x": Decimal("1.00")})),
        (Message("{x:.1f}", {"x": 0.0}), Message("{x:.1f}", {"x": -0.0})),
        (Message("{x}", {"x": 1}), Message("{x}", {"x": 1.0})),
        (Message("{x}", {"x": "a"}), Message("{x}", {"x": None})),
    ],
)
def test_values_that_compare_equal_but_read_differently_are_kept_apart(first, second):
    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert render_text(first) == _fresh(first, language)
            assert render_text(second) == _fresh(second, language)
            assert render_text(first) == _fresh(first, language)  # now from what was kept


def test_the_same_message_reads_in_each_language_as_worded_there():
    message = Message(
        "{p} pass · {w} warn · {f} fail · {u} unknown", {"p": 1, "w": 2, "f": 0, "u": 3}
    )
    with translation.override("en"):
        english = render_text(message)
    with translation.override("zh-hans"):
        chinese = render_text(message)
    with translation.override("en"):
        assert render_text(message) == english == _fresh(message, "en")
    assert chinese == _fresh(message, "zh-hans")


def test_a_nested_message_or_coded_value_is_worded_in_the_readers_language():
    nested = Message("In this config, {reason}", {"reason": Message("not priced")})
    coded = Message("{strategy}", {"strategy": Code("strategy", "fsdp")})
    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert render_text(nested) == _fresh(nested, language)
            assert render_text(coded) == render_text(coded) == _fresh(coded, language)
    assert text._cache_key("en", nested.template, nested.params) is None
