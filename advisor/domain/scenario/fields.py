"""Reading one field of a scenario document: its type, its range (:data:`LIMITS`) and its
allowed values, each failure a :class:`ScenarioError` naming the field path."""

from __future__ import annotations

import json
import math

from advisor.domain.i18n import N_, Message
from advisor.domain.scenario.values import LIMITS, ScenarioError

# --- Validation helpers -------------------------------------------------------------------


def _type_error(path: str, template: str) -> ScenarioError:
    """``template`` is an ``N_``-marked sentence fragment such as "must be a number"."""
    return ScenarioError(path, Message(template))


def _range_error(path: str) -> ScenarioError:
    low, high = LIMITS[path]
    return ScenarioError(
        path,
        Message(N_("must be between {low} and {high}"), {"low": _fmt(low), "high": _fmt(high)}),
    )


def _fmt(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() else f"{value:g}"


def _section(data: dict, key: str, path: str) -> dict:
    if key not in data:
        raise ScenarioError(path, Message(N_("is required")))
    value = data[key]
    if not isinstance(value, dict):
        raise _type_error(path, N_("must be an object"))
    return value


def _key_text(key) -> str:
    """A key as it may appear in a one-line field path (odd keys JSON-quoted, shortened)."""
    if isinstance(key, str) and key.isidentifier():
        return key
    return json.dumps(key if isinstance(key, str) else str(key), ensure_ascii=True)[:40]


def _check_keys(data: dict, allowed: tuple[str, ...], prefix: str) -> None:
    for key in data:
        if key not in allowed:
            path = f"{prefix}{_key_text(key)}"
            raise ScenarioError(
                path,
                Message(
                    N_("is not a field of scenario v1 (allowed: {allowed})"),
                    {"allowed": ", ".join(allowed)},
                ),
            )


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _int(data: dict, key: str, path: str, *, nullable: bool = False) -> int | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        value = int(value)
    if not _is_int(value):
        raise _type_error(path, N_("must be a whole number"))
    low, high = LIMITS[path]
    if not low <= value <= high:
        raise _range_error(path)
    return value


def _number(data: dict, key: str, path: str, *, nullable: bool = False) -> float | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if not _is_number(value):
        raise _type_error(path, N_("must be a number"))
    low, high = LIMITS[path]
    if not low <= value <= high:
        raise _range_error(path)
    return value  # kept as given (int or float) so that dumping reproduces the source


def _int_or_one(data: dict, key: str, path: str) -> int:
    """An optional whole-number field whose absence means 1 (no parallelism, no accumulation)."""
    return _int(data, key, path) if key in data else 1


def _bool(data: dict, key: str, path: str, *, nullable: bool = False) -> bool | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if not isinstance(value, bool):
        raise _type_error(
            path, N_("must be true, false or null") if nullable else N_("must be true or false")
        )
    return value


def _choice(data: dict, key: str, path: str, allowed: tuple, *, default=None):
    value = data.get(key, default)
    if value is None and default is None:
        raise ScenarioError(path, Message(N_("is required")))
    if value not in allowed or isinstance(value, bool):
        raise ScenarioError(
            path,
            Message(N_("must be one of: {allowed}"), {"allowed": ", ".join(map(str, allowed))}),
        )
    return value


def _optional_choice(data: dict, key: str, path: str, allowed: tuple) -> str | None:
    if data.get(key) is None:
        return None
    return _choice(data, key, path, allowed)


def _string(data: dict, key: str, path: str, *, nullable: bool = False) -> str | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise _type_error(path, N_("must be a non-empty text of at most 200 characters"))
    return value
