"""The ``cny`` template filter: thousands separators and the currency in both languages."""

from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import translation

from advisor.domain.i18n import Message
from advisor.presentation.text import render_text


def render(text: str, language: str, **context) -> str:
    with translation.override(language):
        return Template("{% load money %}" + text).render(Context(context))


@pytest.mark.parametrize(
    ("language", "amount", "places", "expected"),
    [
        ("en", Decimal("1234567"), 0, "¥1,234,567"),
        ("zh-hans", Decimal("1234567"), 0, "1,234,567 元"),
        ("en", Decimal("1234567.891"), 2, "¥1,234,567.89"),
        ("zh-hans", Decimal("1234567.895"), 2, "1,234,567.90 元"),  # half up
        ("en", Decimal("999.5"), 0, "¥1,000"),
        ("en", 0, 0, "¥0"),
        ("en", Decimal("-2500000"), 0, "-¥2,500,000"),
        ("zh-hans", Decimal("-2500000"), 0, "-2,500,000 元"),
        ("zh-hans", 3_840_000, 0, "3,840,000 元"),
        ("en", 12.5, 1, "¥12.5"),
        ("en", "4200", 0, "¥4,200"),
    ],
)
def test_cny_filter(language, amount, places, expected):
    assert render("{{ amount|cny:places }}", language, amount=amount, places=places) == expected


@pytest.mark.parametrize("value", [None, "", "not a number", Decimal("NaN")])
def test_cny_filter_leaves_missing_amounts_empty(value):
    assert render("{{ amount|cny }}", "en", amount=value) == ""


def test_default_is_whole_yuan():
    assert render("{{ amount|cny }}", "zh-hans", amount=Decimal("5013700.40")) == "5,013,700 元"


def test_economics_messages_render_in_chinese():
    """The economics catalogue is found by Django and fills amounts after translating."""
    message = Message(
        "Buying and hosting at {other} costs {difference} CNY more than at {base}.",
        {"other": "上海", "base": "贵阳", "difference": Decimal("531554")},
    )
    with translation.override("zh-hans"):
        text = render_text(message)
    assert text == "在上海采购并托管比在贵阳多花 531,554 元。"
