"""A figure read for display (advisor/presentation/numbers._number): a float, int or Decimal
is converted directly, and gives exactly what reading its text gives (the way every other
value, e.g. a string from a form, is read)."""

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from advisor.presentation.numbers import _number, num


def by_text(value):
    number = float(Decimal(str(value)))
    return number if number == number and abs(number) != math.inf else None


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_reads_as_its_text_does(value):
    assert _number(value) == by_text(value)


@given(st.integers(min_value=-(10**300), max_value=10**300))
def test_an_int_reads_as_its_text_does(value):
    assert _number(value) == by_text(value)


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_a_decimal_reads_as_its_text_does(value):
    assert _number(value) == by_text(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        (True, None),
        (float("nan"), None),
        (float("inf"), None),
        (Decimal("NaN"), None),
        (Decimal("sNaN"), None),
        (Decimal("-Infinity"), None),
        (10**400, None),  # beyond a float: not a figure to show
        ("12.5", 12.5),
        ("not a number", None),
        (Decimal("1234567.891"), 1234567.891),
        (7, 7.0),
    ],
)
def test_edges(value, expected):
    assert _number(value) == expected


def test_a_figure_is_written_with_its_separators():
    assert num(1234567.891, 2) == "1,234,567.89"
    assert num(Decimal("-0.001"), 1) == "0"
    assert num(10**400) == ""
