"""Calendar arithmetic the vendor rules need (whole months, clamped to the month's end)."""

from __future__ import annotations

import calendar
from datetime import date


def add_months(day: date, months: int) -> date:
    """``day`` moved by ``months`` (negative goes back); 31 Jan + 1 month = 28/29 Feb."""
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))
