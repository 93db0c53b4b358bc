"""Domain values in plain JSON types (snapshots, catalog records, the CLI's output).

Decimals become strings (exact), dates ISO strings, dataclasses objects, tuples and sets lists,
and a :class:`Message` its template and parameters, translated only when a reader reads it.
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from decimal import Decimal

from advisor.domain.i18n import Message

_PLAIN = frozenset({str, int, bool, type(None)})


def jsonable(value):
    """Plain JSON types for dataclasses, Decimals, dates, tuples and Messages."""
    kind = type(value)
    if kind in _PLAIN:  # most values: returned as they are, without the checks below
        return value
    # The other common exact types, before the checks below (which they would pass the same way)
    if kind is Decimal:
        return str(value)
    if kind is dict:  # plain leaves and Decimals without a call (what jsonable makes of them)
        return {
            (k if type(k) is str else str(k)): (
                v if type(v) in _PLAIN else str(v) if type(v) is Decimal else jsonable(v)
            )
            for k, v in value.items()
        }
    if kind is list or kind is tuple:
        return [
            v if type(v) in _PLAIN else str(v) if type(v) is Decimal else jsonable(v) for v in value
        ]
    if kind is float:
        return None if value != value else value  # NaN never reaches a brief
    if isinstance(value, Message):
        return message(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and value != value:  # NaN never reaches a brief
        return None
    return value


def message(value: Message) -> dict:
    """A message's JSON form; a counted message keeps its plural form and count's name."""
    out = {"template": value.template, "params": jsonable(dict(value.params))}
    if value.plural:
        out["plural"] = value.plural
        out["count"] = value.count
    return out
