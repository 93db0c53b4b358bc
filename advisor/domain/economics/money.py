"""Rounding and display of CNY amounts, for both languages (pure Python).

Rounding rule: amounts are computed exactly in ``Decimal`` and rounded only for
display or for a stored summary figure, half up (四舍五入), to the fen (0.01) unless fewer
places are asked for. Thousands are grouped with commas in both languages, as Chinese
financial documents also do. The pattern is a translatable template: ``¥1,234,567`` in
English, ``1,234,567 元`` in Simplified Chinese.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from advisor.domain.economics.inputs import to_decimal
from advisor.domain.i18n import N_

CNY_TEMPLATE = N_("¥{amount}")


def round_cny(amount, places: int = 2) -> Decimal:
    """``amount`` rounded half up to ``places`` decimals (2 = fen, 0 = whole yuan)."""
    quantum = Decimal(1).scaleb(-places)
    return to_decimal(amount).quantize(quantum, rounding=ROUND_HALF_UP)


def group_thousands(amount, places: int = 0) -> str:
    """``1234567.891`` → ``"1,234,567.89"`` with ``places=2``; the sign is kept."""
    return f"{round_cny(amount, places):,.{places}f}"


def format_cny(amount, places: int = 0, translate=lambda text: text) -> str:
    """``amount`` in CNY for display; ``translate`` is gettext in the presentation layer."""
    rounded = round_cny(amount, places)
    digits = group_thousands(abs(rounded), places)
    text = translate(CNY_TEMPLATE).format(amount=digits)
    return f"-{text}" if rounded < 0 else text
