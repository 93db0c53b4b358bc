"""``{{ amount|cny }}``: a CNY amount with thousands separators in the page's language.

English: ``¥1,234,567``; Simplified Chinese: ``1,234,567 元``. The argument is the number
of decimals (default 0, whole yuan): ``{{ amount|cny:2 }}`` → ``¥1,234,567.89``. Rounding
is half up (see :mod:`advisor.domain.economics.money`). Empty or non-numeric values render
as an empty string, so a missing price never shows as ``¥0``.
"""

from decimal import Decimal, InvalidOperation

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
