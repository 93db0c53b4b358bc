"""``{{ amount|cny }}``: a CNY amount with thousands separators in the page's language.

English: ``¥1,234,567``; Simplified Chinese: ``1,234,567 元``. The argument is the number
of decimals (default 0, whole yuan): ``{{ amount|cny:2 }}`` → ``¥1,234,567.89``. Rounding
is half up (see :mod:`advisor.domain.economics.money`). Empty or non-numeric values render
as an empty string, so a missing price never shows as ``¥0``.
"""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.utils.translation import gettext

from advisor.domain.economics.money import format_cny

register = template.Library()


@register.filter
def cny(value, places=0):
    if value is None or value == "":
        return ""
    try:
        amount = Decimal(str(value))
        places = int(places)
    except (InvalidOperation, TypeError, ValueError):
        return ""
    if not amount.is_finite():
        return ""
    return format_cny(amount, places, translate=gettext)


def _finite(value) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        number = Decimal(str(value))
    except (InvalidOperation, TypeError, ValueError):
        return None
    return number if number.is_finite() else None


@register.filter
def decimal(value, places=2):
    """``{{ 0.72612604|decimal:4 }}`` → ``0.7261`` (half up); empty when not a number."""
    number = _finite(value)
    if number is None:
        return ""
    return str(round_half_up(number, int(places)))


@register.filter
def percent(value, places=0):
    """A share (0..1) as a percentage: ``{{ 0.3333|percent }}`` → ``33%``."""
    number = _finite(value)
    if number is None:
        return ""
    return f"{round_half_up(number * 100, int(places))}%"


def round_half_up(number: Decimal, places: int) -> Decimal:
    return number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
