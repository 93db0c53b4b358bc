"""``{% load numbers %}``: figures written for the reader, in the page's language.

Every number a person reads on the results pages and in the brief goes through one of these
filters: thousands separators, a unit, and a precision that suits the size of the figure
(``9.6 h``, ``1,234 h``; ``150 million tokens`` / ``1.5 亿词元``). ``None`` or a value that is
not a number renders as an empty string, so the template says what is missing instead.
"""

from decimal import Decimal, InvalidOperation

from django import template
from django.utils.translation import get_language, gettext

register = template.Library()


def _number(value) -> float | None:
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        number = float(Decimal(str(value)))
    except (InvalidOperation, TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def grouped(number: float, places: int = 0) -> str:
    """``1234567.8`` → ``1,234,568`` (places=0) or ``1,234,567.80`` (places=2)."""
    text = f"{number:,.{places}f}"
    return "0" if text in ("-0", "-0.0") else text


def sensible(number: float) -> str:
    """One decimal below 10, none from 10 up (``9.6``, ``25``, ``1,234``)."""
    return grouped(number, 1 if abs(number) < 10 else 0)


@register.filter
def num(value, places=0):
    """``{{ value|num }}`` / ``{{ value|num:1 }}``: thousands separators, fixed decimals."""
    number = _number(value)
    if number is None:
        return ""
    try:
        places = int(places)
    except (TypeError, ValueError):
        places = 0
    return grouped(number, places)


@register.filter
def hours(value):
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s h") % {"n": sensible(number)}


@register.filter
def gib(value, places=1):
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s GiB") % {"n": grouped(number, int(places))}


@register.filter
def kw(value):
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s kW") % {"n": grouped(number, 1)}


@register.filter
def tokens_per_s(value):
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s tokens/s") % {"n": grouped(number, 0)}


def _large(number: float) -> str:
    """A large count in words: ``150 million`` / ``1.5 亿``; below ten thousand, as is."""
    chinese = (get_language() or "").startswith("zh")
    steps = (
        ((1e8, gettext("%(n)s hundred million")), (1e4, gettext("%(n)s ten thousand")))
        if chinese
        else ((1e9, gettext("%(n)s billion")), (1e6, gettext("%(n)s million")))
    )
    for size, words in steps:
        if abs(number) >= size:
            scaled = number / size
            text = f"{scaled:,.2f}".rstrip("0").rstrip(".")
            return words % {"n": text}
    return grouped(number, 0)


@register.filter
def tokens(value):
    """``150000000`` → ``150 million tokens`` (English) / ``1.5 亿词元`` (Chinese)."""
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s tokens") % {"n": _large(number)}


@register.filter
def count(value):
    """A plain count in words for large ones (``150 million``), grouped otherwise."""
    number = _number(value)
    if number is None:
        return ""
    return _large(number)
