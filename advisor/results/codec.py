"""A computed recommendation as JSON text and back (docs/decisions/0033-stored-recommendation.md).

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
shared object          ``{"$r": n}``: the n-th object written, written once (findings
                       and assumptions: once per distinct value, ``SHARED_BY_VALUE``)
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
import functools
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
# Written once per distinct value, not per object: every option evaluates every rule and states
# its assumptions, so most findings and assumptions of a result repeat another option's (867
# findings, 85 distinct, in the standard two-site job). Equal values decode as one object; they
# are frozen, so nothing can tell.
SHARED_BY_VALUE = frozenset(
    {"advisor.domain.compliance.base.Finding", "advisor.domain.economics.inputs.Assumption"}
)


class StoredFormatError(ValueError):
    """The stored text does not describe the current classes (written by older code)."""


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _Unstorable(TypeError):
    """A value of a type the codec does not know; ``path`` grows as the error unwinds."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind
        self.path = ""

    def __str__(self):
        return f"cannot store {self.kind} at {self.path or 'the top'}"


class _Encoder:
    """Writes each shared object once: a second reference is ``{"$r": n}``, the n-th object
    written (an option's hardware and site are shared by many options, as pickle shares them).
    Dataclasses are numbered before their fields, containers after their items; the decoder
    numbers them in the same order."""

    def __init__(self):
        self.seen: dict[int, int] = {}
        self.keep: list = []  # holds every numbered object, so that no id() is reused
        self.by_value: dict[tuple[type, str], int] = {}  # SHARED_BY_VALUE: repr → number

    def number(self, value) -> None:
        self.seen[id(value)] = len(self.keep)
        self.keep.append(value)

    def item(self, value, segment):
        """``encode(value)``, naming ``segment`` (a callable giving text) if it cannot."""
        try:
            return self.encode(value)
        except _Unstorable as error:
            error.path = segment() + error.path
            raise

    def encode(self, value):
        kind = type(value)
        if value is None or kind is str or kind is int or kind is bool:
            return value
        if kind is float:
            return value if math.isfinite(value) else {"$f": repr(value)}
        if isinstance(value, enum.Enum):
            return {"$e": _name(kind), "v": self.encode(value.value)}
        if isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, Decimal):
            return {"$d": str(value)}
        if isinstance(value, datetime):
            return {"$dt": value.isoformat()}
        if isinstance(value, date):
            return {"$date": value.isoformat()}
        shared = self.seen.get(id(value))
        if shared is not None:
            return {"$r": shared}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            by_value = (kind, repr(value)) if _name(kind) in SHARED_BY_VALUE else None
            if by_value is not None:
                earlier = self.by_value.get(by_value)
                if earlier is not None and self.keep[earlier] == value:
                    return {"$r": earlier}
                self.by_value[by_value] = len(self.keep)
            self.number(value)
            values = {}
            for name in _field_names(kind):
                values[name] = self.item(getattr(value, name), lambda name=name: f".{name}")
            return {"$c": _name(kind), "f": values}
        if isinstance(value, (tuple, list)):
            items = [self.item(v, lambda i=i: f"[{i}]") for i, v in enumerate(value)]
            encoded = {"$t" if isinstance(value, tuple) else "$l": items}
        elif isinstance(value, frozenset):
            items = [self.item(v, lambda: "{}") for v in value]
            encoded = {"$fs": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
        elif isinstance(value, Mapping):
            if all(type(key) is str and not key.startswith("$") for key in value):
                encoded = {
                    key: self.item(item, lambda key=key: f"[{key!r}]")
                    for key, item in value.items()
                }
            else:
                encoded = {
                    "$m": [
                        [self.encode(k), self.item(v, lambda k=k: f"[{k!r}]")]
                        for k, v in value.items()
                    ]
                }
        else:
            raise _Unstorable(kind.__name__)
        self.number(value)
        return encoded


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def dumps(value) -> str:
    """JSON text for ``value`` (a dataclass tree); TypeError naming where an unknown type is."""
    return json.dumps(_Encoder().encode(value), ensure_ascii=False, separators=(",", ":"))


def _class(name: str) -> type:
    found = _CLASSES.get(name)
    if found is None:
        found = _CLASSES[name] = _find_class(name)
    return found


_CLASSES: dict[str, type] = {}


def _find_class(name: str) -> type:
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
    if not isinstance(found, type):
        raise StoredFormatError(f"{name} is no longer a class")
    return found


_MISSING = object()


@functools.cache
def _plan(cls: type) -> tuple[frozenset, tuple]:
    """The field names of ``cls``, and per field how to fill it when the text lacks it."""
    plan = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            plan.append((f.name, f.default, None))
        elif f.default_factory is not dataclasses.MISSING:
            plan.append((f.name, _MISSING, f.default_factory))
        else:
            plan.append((f.name, _MISSING, None))
    return frozenset(name for name, *_ in plan), tuple(plan)


class _Decoder:
    def __init__(self):
        self.objects: list = []  # numbered as the encoder numbered them

    def dataclass(self, name: str, values: dict):
        cls = _class(name)
        if not dataclasses.is_dataclass(cls):
            raise StoredFormatError(f"{name} is no longer a dataclass")
        names, plan = _plan(cls)
        if not names.issuperset(values):
            unknown = ", ".join(sorted(set(values) - names))
            raise StoredFormatError(f"{name} no longer has {unknown}")
        instance = object.__new__(cls)  # as pickle does: the stored values, no __init__ checks
        self.objects.append(instance)
        decode = self.decode
        for field_name, default, factory in plan:
            if field_name in values:
                value = decode(values[field_name])
            elif default is not _MISSING:
                value = default
            elif factory is not None:
                value = factory()
            else:
                raise StoredFormatError(
                    f"{name}.{field_name} was added since this result was stored"
                )
            object.__setattr__(instance, field_name, value)
        return instance

    def decode(self, value):
        if type(value) is not dict:
            return value
        if "$r" in value:
            return self.objects[value["$r"]]
        if "$c" in value:
            return self.dataclass(value["$c"], value["f"])
        if "$d" in value:
            return Decimal(value["$d"])
        if "$e" in value:
            cls = _class(value["$e"])
            try:
                return cls(self.decode(value["v"]))
            except (TypeError, ValueError) as error:
                raise StoredFormatError(f"{value['$e']} has no member {value['v']!r}") from error
        if "$date" in value:
            return date.fromisoformat(value["$date"])
        if "$dt" in value:
            return datetime.fromisoformat(value["$dt"])
        if "$f" in value:
            return float(value["$f"])
        decode = self.decode
        if "$t" in value:
            decoded = tuple([decode(item) for item in value["$t"]])
        elif "$l" in value:
            decoded = [decode(item) for item in value["$l"]]
        elif "$fs" in value:
            decoded = frozenset([decode(item) for item in value["$fs"]])
        elif "$m" in value:
            decoded = {decode(k): decode(v) for k, v in value["$m"]}
        else:
            decoded = {key: decode(item) for key, item in value.items()}
        self.objects.append(decoded)
        return decoded


def loads(text: str):
    """The objects ``dumps`` wrote; StoredFormatError when the classes have changed since."""
    try:
        return _Decoder().decode(json.loads(text))
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise StoredFormatError(f"unreadable stored result: {error}") from error
