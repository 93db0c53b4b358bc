"""Figures written for the reader, in the active language: counts, units and CNY amounts.

Every number a person reads on the pages, in the brief and from the command line goes through
one of these: thousands separators, a unit, and a precision that suits the size of the figure
(``9.6 h``, ``1,234 h``; ``150 million tokens`` / ``1.5 亿词元``; ``¥1,234,567`` /
``1,234,567 元``). ``None`` or a value that is not a number gives an empty string, so the page
says what is missing instead. Rounding of amounts is half up
(:mod:`advisor.domain.economics.money`).
"""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.utils.translation import get_language, gettext

from advisor.domain.economics.money import format_cny

# A float's ``str`` reads back as the same float, and an int's or a Decimal's conversion to float
# is correctly rounded either way.
_EXACT = (float, int, Decimal)


def _number(value) -> float | None:
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        # An int, float or Decimal gives what reading its text gives, without the text.
        number = float(value) if type(value) in _EXACT else float(Decimal(str(value)))
    except (InvalidOperation, TypeError, ValueError, OverflowError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def grouped(number: float, places: int = 0) -> str:
    """``1234567.8`` → ``1,234,568`` (places=0) or ``1,234,567.80`` (places=2)."""
    text = f"{number:,.{places}f}"
    return "0" if text in ("-0", "-0.0") else text


def sensible(number: float) -> str:
    """One decimal below 10, none from 10 up (``9.6``, ``25``, ``1,234``)."""
    return grouped(number, 1 if abs(number) < 10 else 0)


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


def hours(value):
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s h") % {"n": sensible(number)}


def gib(value, places=1):
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s GiB") % {"n": grouped(number, int(places))}


def kw(value):
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s kW") % {"n": grouped(number, 1)}


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


def tokens(value):
    """``150000000`` → ``150 million tokens`` (English) / ``1.5 亿词元`` (Chinese)."""
    number = _number(value)
    if number is None:
        return ""
    return gettext("%(n)s tokens") % {"n": _large(number)}


def count(value):
    """A plain count in words for large ones (``150 million``), grouped otherwise."""
    number = _number(value)
    if number is None:
        return ""
    return _large(number)


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


def unit_price(value, places=2):
    """A cost line's unit price at the precision its amount was computed with: at least
    ``places`` decimals, more when the price has them (0.562 元/千瓦时, never 0.56), so the
    printed price × the printed quantity gives the printed amount."""
    number = _finite(value)
    if number is None:
        return ""
    exponent = number.normalize().as_tuple().exponent
    used = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return cny(number, max(int(places), used))


def _finite(value) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        number = Decimal(str(value))
    except (InvalidOperation, TypeError, ValueError):
        return None
    return number if number.is_finite() else None


def decimal(value, places=2):
    """``{{ 0.72612604|decimal:4 }}`` → ``0.7261`` (half up); empty when not a number."""
    number = _finite(value)
    if number is None:
        return ""
    return str(round_half_up(number, int(places)))


def percent(value, places=0):
    """A share (0..1) as a percentage: ``{{ 0.3333|percent }}`` → ``33%``."""
    number = _finite(value)
    if number is None:
        return ""
    return f"{round_half_up(number * 100, int(places))}%"


def round_half_up(number: Decimal, places: int) -> Decimal:
    return number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def plain_number(value) -> str:
    """A quantity as it was counted: ``2,859``, ``7.5``, ``21.6`` (grouped, no trailing zeros)."""
    number = _finite(value)
    if number is None:
        return ""
    number = number.normalize()
    places = max(0, -number.as_tuple().exponent)
    return f"{number:,.{places}f}"
