"""One answer cell → a checked value, or a refusal that says why (translatable)."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime

from advisor.domain.i18n import N_, Message
from advisor.domain.questionnaire.specs import (
    CHOICE,
    DATE,
    INTEGER,
    NUMBER,
    TEXT,
    TEXT_MAX_LENGTH,
    YES_NO,
    Fact,
)
from advisor.domain.text import clean_text

YES = ("yes", "y", "true", "1", "是", "有")
NO = ("no", "n", "false", "0", "否", "无", "没有")
_SEPARATORS = re.compile(r"[,，、;；]")


class AnswerError(ValueError):
    """A refused answer; ``message`` says why in words the vendor understands."""

    def __init__(self, message: Message):
        self.message = message
        super().__init__(message.render())


def _refuse(template: str, **params) -> AnswerError:
    return AnswerError(Message(template, params))


def _clean_text(raw: str) -> str:
    """The answer without its bidi controls and surrounding space (stripped, as from all
    stored text); any other control or invisible formatting character is refused."""
    text = clean_text(raw).strip()
    if any(unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\t\n" for ch in text):
        raise _refuse(N_("contains control or invisible formatting characters"))
    return text


def is_blank(raw) -> bool:
    return raw is None or (isinstance(raw, str) and not raw.strip())


def _number(fact: Fact, raw) -> float:
    if isinstance(raw, bool):
        raise _refuse(N_("must be a number"))
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str):
        try:
            value = float(_clean_text(raw).replace(",", ""))
        except ValueError:
            raise _refuse(N_("must be a number")) from None
    else:
        raise _refuse(N_("must be a number"))
    if not math.isfinite(value):
        raise _refuse(N_("must be a number"))
    low, high = fact.minimum, fact.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        raise _refuse(N_("must be between {low} and {high}"), low=_fmt(low), high=_fmt(high))
    return value


def _fmt(value) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"


def parse_answer(fact: Fact, raw):
    """The value ``raw`` (a spreadsheet cell or a JSON value) gives ``fact``.

    Returns a JSON-ready value (ISO text for dates, a list for multiple choices); raises
    :class:`AnswerError` when the answer does not fit the fact's type, range or choices.
    Blank answers are the caller's business (see :func:`is_blank`).
    """
    if fact.type == NUMBER:
        return _number(fact, raw)
    if fact.type == INTEGER:
        value = _number(fact, raw)
        if not value.is_integer():
            raise _refuse(N_("must be a whole number"))
        return int(value)
    if fact.type == YES_NO:
        if isinstance(raw, bool):
            return raw
        text = _clean_text(str(raw)).lower() if isinstance(raw, str | int) else None
        if text in YES:
            return True
        if text in NO:
            return False
        raise _refuse(N_("must be yes or no"))
    if fact.type == DATE:
        return _date(raw).isoformat()
    if fact.type == CHOICE:
        return _choice(fact, raw)
    if fact.type == TEXT:
        if not isinstance(raw, str | int | float) or isinstance(raw, bool):
            raise _refuse(N_("must be text"))
        text = _clean_text(str(raw) if not isinstance(raw, float) else _fmt(raw))
        if len(text) > TEXT_MAX_LENGTH:
            raise _refuse(N_("must be at most {count} characters"), count=TEXT_MAX_LENGTH)
        return text
    raise _refuse(N_("cannot be answered here"))


def _date(raw) -> date:
    if isinstance(raw, datetime):
        if raw.time() != datetime.min.time():
            raise _refuse(N_("must be a date without a time (YYYY-MM-DD)"))
        return raw.date()
    if isinstance(raw, date):
        return raw
    if isinstance(raw, str):
        try:
            return date.fromisoformat(_clean_text(raw))
        except ValueError:
            pass
    raise _refuse(N_("must be a date written YYYY-MM-DD"))


def _choice(fact: Fact, raw):
    if isinstance(raw, list) and fact.multiple:
        items = raw
    elif isinstance(raw, str):
        text = _clean_text(raw)
        items = [part.strip() for part in _SEPARATORS.split(text)] if fact.multiple else [text]
    else:
        raise _refuse(N_("must be one of: {choices}"), choices=", ".join(fact.choices))
    values = []
    for item in items:
        if not isinstance(item, str) or item.strip().lower() not in fact.choices:
            raise _refuse(N_("must be one of: {choices}"), choices=", ".join(fact.choices))
        if item.strip().lower() not in values:
            values.append(item.strip().lower())
    if not values:
        raise _refuse(N_("must be one of: {choices}"), choices=", ".join(fact.choices))
    return values if fact.multiple else values[0]


@dataclass(frozen=True)
class Answer:
    """A checked answer: which subject and fact, the value, and the vendor's evidence."""

    subject: str
    fact: Fact
    value: object
    evidence: str = ""
