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
(``vendors.choices``) are rebuilt, so a stored text can never name arbitrary code (unlike
pickle).
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
    numbers them in the same order. Each class's way of writing is looked up once (``_HOW``)."""

    def __init__(self):
        self.seen: dict[int, int] = {}
        self.keep: list = []  # holds every numbered object, so that no id() is reused
        self.by_value: dict[tuple[type, str], int] = {}  # SHARED_BY_VALUE: repr → number

    def number(self, value) -> None:
        self.seen[id(value)] = len(self.keep)
        self.keep.append(value)

    def encode(self, value):
        kind = type(value)
        if kind in _AS_IS:
            return value
        how = _HOW.get(kind) or _how(kind)
        return how(self, value)

    def scalar(self, value):
        return value

    def real(self, value):
        return value if math.isfinite(value) else {"$f": repr(value)}

    def enum_member(self, value):
        return {"$e": _name(type(value)), "v": self.encode(value.value)}

    def decimal(self, value):
        return {"$d": str(value)}

    def moment(self, value):
        return {"$dt": value.isoformat()}

    def day(self, value):
        return {"$date": value.isoformat()}

    def dataclass(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return {"$r": shared}
        kind = type(value)
        if kind in _SHARED_CLASSES:
            # By repr, then equality: equal values with another repr (Decimal 1.0 and 1.00)
            # stay apart.
            key = (kind, repr(value))
            earlier = self.by_value.get(key)
            if earlier is not None and self.keep[earlier] == value:
                return {"$r": earlier}
            self.by_value[key] = len(self.keep)
        self.number(value)
        encode = self.encode
        values = {}
        for name in _field_names(kind):
            try:
                values[name] = encode(getattr(value, name))
            except _Unstorable as error:
                error.path = f".{name}{error.path}"
                raise
        return {"$c": _name(kind), "f": values}

    def sequence(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return {"$r": shared}
        encode = self.encode
        items = []
        for index, item in enumerate(value):
            try:
                items.append(encode(item))
            except _Unstorable as error:
                error.path = f"[{index}]{error.path}"
                raise
        self.number(value)
        return {"$t" if isinstance(value, tuple) else "$l": items}

    def set_of(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return {"$r": shared}
        items = []
        for item in value:
            try:
                items.append(self.encode(item))
            except _Unstorable as error:
                error.path = "{}" + error.path
                raise
        self.number(value)
        return {"$fs": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}

    def mapping(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return {"$r": shared}
        encode = self.encode
        plain = all(type(key) is str and not key.startswith("$") for key in value)
        pairs = {} if plain else []
        for key, item in value.items():
            written_key = key if plain else encode(key)  # the decoder reads keys first
            try:
                encoded = encode(item)
            except _Unstorable as error:
                error.path = f"[{key!r}]{error.path}"
                raise
            if plain:
                pairs[key] = encoded
            else:
                pairs.append([written_key, encoded])
        self.number(value)
        return pairs if plain else {"$m": pairs}

    def unknown(self, value):
        raise _Unstorable(type(value).__name__)


_AS_IS = frozenset({str, int, bool, type(None)})
_SHARED_CLASSES: set[type] = set()  # the classes named in SHARED_BY_VALUE, as they are met
_HOW: dict[type, object] = {}  # class → the _Encoder method that writes its values


def _how(kind: type):
    """The encoder method for values of ``kind``: the first check that holds, in this order."""
    if issubclass(kind, enum.Enum):
        how = _Encoder.enum_member
    elif issubclass(kind, (bool, int, str)):
        how = _Encoder.scalar
    elif issubclass(kind, float):
        how = _Encoder.real
    elif issubclass(kind, Decimal):
        how = _Encoder.decimal
    elif issubclass(kind, datetime):
        how = _Encoder.moment
    elif issubclass(kind, date):
        how = _Encoder.day
    elif dataclasses.is_dataclass(kind):
        how = _Encoder.dataclass
        if _name(kind) in SHARED_BY_VALUE:
            _SHARED_CLASSES.add(kind)
    elif issubclass(kind, (tuple, list)):
        how = _Encoder.sequence
    elif issubclass(kind, frozenset):
        how = _Encoder.set_of
    elif issubclass(kind, Mapping):
        how = _Encoder.mapping
    else:
        how = _Encoder.unknown
    _HOW[kind] = how
    return how


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
    if not name.startswith(ALLOWED_MODULES):
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
