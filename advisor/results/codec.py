"""A computed recommendation as JSON text and back (docs/decisions/0031-stored-recommendation.md).

The domain's results are frozen dataclasses holding Decimals, dates, tuples, enums and
nested dataclasses. ``dumps`` writes them as JSON with small type tags, so ``loads`` gives
back equal objects of the same types:

=====================  ===========================================================
value                  JSON
=====================  ===========================================================
dataclass              ``{"$c": "module.Class", "f": {field: value, …}}``
enum member            ``{"$e": "module.Class", "v": value}``
Decimal                ``{"$d": "12.50"}``
date / datetime        ``{"$date": "2026-12-01"}`` / ``{"$dt": "2026-12-01T08:00:00+08:00"}``
tuple, list, frozenset ``{"$t": […]}``, ``{"$l": […]}``, ``{"$fs": […]}``
shared object          ``{"$r": n}``: the n-th object written, written once
dict, text keys        a JSON object (``{"$m": [[key, value], …]}`` for any other keys)
float inf / nan        ``{"$f": "inf"}``
=====================  ===========================================================

Only dataclasses and enums of the domain (``advisor.domain.*``), the catalog's choice enums
(``vendors.choices``) and the classes named in ``EXTRA_CLASSES`` are rebuilt, so a stored text can never name arbitrary code (unlike pickle).
A stored result written by an older version of the code whose classes have changed (a field
removed, renamed or added without a default, a class moved) raises :class:`StoredFormatError`;
the caller then computes it again. Pure Python: no Django.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
import math
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal

FORMAT = 1  # bump when the tagging itself changes; class changes are detected field by field
# The domain's classes, and the catalog's choice enums that its facts carry (e.g. a source flag).
ALLOWED_MODULES = ("advisor.domain.", "vendors.choices.")
EXTRA_CLASSES = frozenset({"advisor.selectors.recommend.RecommendRun"})


class StoredFormatError(ValueError):
    """The stored text does not describe the current classes (written by older code)."""


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _Encoder:
    """Writes each shared object once: a second reference is ``{"$r": n}``, the n-th object
    written (an option's hardware and site are shared by many options, as pickle shares them).
    Dataclasses are numbered before their fields, containers after their items; the decoder
    numbers them in the same order."""

    def __init__(self):
        self.seen: dict[int, int] = {}
        self.keep: list = []  # holds every numbered object, so that no id() is reused

    def number(self, value) -> None:
        self.seen[id(value)] = len(self.keep)
        self.keep.append(value)

    def encode(self, value, path: str):
        if (
            value is None
            or isinstance(value, (bool, int, str))
            and not isinstance(value, enum.Enum)
        ):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"$f": repr(value)}
        if isinstance(value, Decimal):
            return {"$d": str(value)}
        if isinstance(value, datetime):
            return {"$dt": value.isoformat()}
        if isinstance(value, date):
            return {"$date": value.isoformat()}
        if isinstance(value, enum.Enum):
            return {"$e": _name(type(value)), "v": self.encode(value.value, path)}
        shared = self.seen.get(id(value))
        if shared is not None:
            return {"$r": shared}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            self.number(value)
            return {
                "$c": _name(type(value)),
                "f": {
                    f.name: self.encode(getattr(value, f.name), f"{path}.{f.name}")
                    for f in dataclasses.fields(value)
                },
            }
        if isinstance(value, tuple):
            encoded = {"$t": [self.encode(item, f"{path}[{i}]") for i, item in enumerate(value)]}
        elif isinstance(value, list):
            encoded = {"$l": [self.encode(item, f"{path}[{i}]") for i, item in enumerate(value)]}
        elif isinstance(value, frozenset):
            items = [self.encode(item, f"{path}{{}}") for item in value]
            encoded = {"$fs": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
        elif isinstance(value, Mapping):
            if all(isinstance(key, str) and not key.startswith("$") for key in value):
                encoded = {
                    key: self.encode(item, f"{path}[{key!r}]") for key, item in value.items()
                }
            else:
                encoded = {
                    "$m": [
                        [self.encode(k, path), self.encode(v, f"{path}[{k!r}]")]
                        for k, v in value.items()
                    ]
                }
        else:
            raise TypeError(f"cannot store {type(value).__name__} at {path or 'the top'}")
        self.number(value)
        return encoded


def dumps(value) -> str:
    """JSON text for ``value`` (a dataclass tree); TypeError naming where an unknown type is."""
    return json.dumps(_Encoder().encode(value, ""), ensure_ascii=False, separators=(",", ":"))


def _class(name: str) -> type:
    if not (name.startswith(ALLOWED_MODULES) or name in EXTRA_CLASSES):
        raise StoredFormatError(f"{name} is not a class a stored result may hold")
    module_name, _, qualname = name.rpartition(".")
    while module_name:
        try:
            module = importlib.import_module(module_name)
            break
        except ImportError:  # a nested class: the module is shorter
            module_name, _, outer = module_name.rpartition(".")
            qualname = f"{outer}.{qualname}"
    else:
        raise StoredFormatError(f"{name} no longer exists")
    found = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise StoredFormatError(f"{name} no longer exists")
    return found


class _Decoder:
    def __init__(self):
        self.objects: list = []  # numbered as the encoder numbered them

    def dataclass(self, name: str, values: dict):
        cls = _class(name)
        if not (dataclasses.is_dataclass(cls) and isinstance(cls, type)):
            raise StoredFormatError(f"{name} is no longer a dataclass")
        fields = dataclasses.fields(cls)
        unknown = set(values) - {f.name for f in fields}
        if unknown:
            raise StoredFormatError(f"{name} no longer has {', '.join(sorted(unknown))}")
        instance = object.__new__(cls)  # as pickle does: the stored values, no __init__ checks
        self.objects.append(instance)
        for f in fields:
            if f.name in values:
                value = self.decode(values[f.name])
            elif f.default is not dataclasses.MISSING:
                value = f.default
            elif f.default_factory is not dataclasses.MISSING:
                value = f.default_factory()
            else:
                raise StoredFormatError(f"{name}.{f.name} was added since this result was stored")
            object.__setattr__(instance, f.name, value)
        return instance

    def decode(self, value):
        if not isinstance(value, dict):
            return value
        if "$r" in value:
            return self.objects[value["$r"]]
        if "$c" in value:
            return self.dataclass(value["$c"], value["f"])
        if "$d" in value:
            return Decimal(value["$d"])
        if "$date" in value:
            return date.fromisoformat(value["$date"])
        if "$dt" in value:
            return datetime.fromisoformat(value["$dt"])
        if "$f" in value:
            return float(value["$f"])
        if "$e" in value:
            cls = _class(value["$e"])
            try:
                return cls(self.decode(value["v"]))
            except (TypeError, ValueError) as error:
                raise StoredFormatError(f"{value['$e']} has no member {value['v']!r}") from error
        if "$t" in value:
            decoded = tuple(self.decode(item) for item in value["$t"])
        elif "$l" in value:
            decoded = [self.decode(item) for item in value["$l"]]
        elif "$fs" in value:
            decoded = frozenset(self.decode(item) for item in value["$fs"])
        elif "$m" in value:
            decoded = {self.decode(k): self.decode(v) for k, v in value["$m"]}
        else:
            decoded = {key: self.decode(item) for key, item in value.items()}
        self.objects.append(decoded)
        return decoded


def loads(text: str):
    """The objects ``dumps`` wrote; StoredFormatError when the classes have changed since."""
    try:
        return _Decoder().decode(json.loads(text))
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise StoredFormatError(f"unreadable stored result: {error}") from error
