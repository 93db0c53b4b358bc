"""A computed recommendation as JSON text and back (docs/decisions/0033-stored-recommendation.md,
compact form: docs/decisions/0058-compact-stored-result.md).

The domain's results are frozen dataclasses holding Decimals, dates, tuples, enums and
nested dataclasses. ``dumps`` writes them as JSON, so ``loads`` gives back equal objects of
the same types. The text is ``[classes, value]``: ``classes`` names each dataclass and enum
once (``[name, [field, …]]``, ``[name, null]`` for an enum) and ``value`` refers to them by
their place in that list. A JSON array is a tagged value, its first item the tag:

=====================  ===========================================================
value                  JSON
=====================  ===========================================================
dataclass              ``[c, value, …]``: c ≥ 0 its class, then its fields in order
enum member            ``[-3, c, value]``
Decimal                ``[-2, "12.50"]``
date / datetime        ``[-4, "2026-12-01"]`` / ``[-5, "2026-12-01T08:00:00+08:00"]``
tuple, list, frozenset ``[-6, …]``, ``[-7, …]``, ``[-8, …]``
shared object          ``[-1, n]``: the n-th object written, written once (findings
                       and assumptions: once per distinct value, ``SHARED_BY_VALUE``)
dict, text keys        a JSON object (``[-9, key, value, …]`` for any other keys)
float inf / nan        ``[-10, "inf"]``
=====================  ===========================================================

Only dataclasses and enums of the domain (``advisor.domain.*``), the catalog's choice enums
(``vendors.choices``) are rebuilt, so a stored text can never name arbitrary code (unlike
pickle).
A stored result written by an older version of the code whose classes have changed (a field
removed, renamed or added without a default, a class moved) raises :class:`StoredFormatError`;
the caller then computes it again. The class list is checked once per text, not per object.
Pure Python: no Django.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import json
import math
import operator
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal

# Bump when the tagging itself changes; class changes are detected field by field. Format 1
# (decisions 0033, 0051) tagged every value with a JSON object naming its class and fields.
FORMAT = 2
# The domain's classes, and the catalog's choice enums that its facts carry (e.g. a source flag).
ALLOWED_MODULES = ("advisor.domain.", "vendors.choices.")
# Written once per distinct value, not per object: every option evaluates every rule and states
# its assumptions, so most findings and assumptions of a result repeat another option's (867
# findings, 85 distinct, in the standard two-site job). Equal values decode as one object; they
# are frozen, so nothing can tell.
SHARED_BY_VALUE = frozenset(
    {"advisor.domain.compliance.base.Finding", "advisor.domain.economics.inputs.Assumption"}
)

REF, DECIMAL, ENUM, DAY, MOMENT, TUPLE, LIST, SET, MAPPING, REAL = range(-1, -11, -1)


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
    """Writes each shared object once: a second reference is ``[-1, n]``, the n-th object
    written (an option's hardware and site are shared by many options, as pickle shares them).
    Dataclasses are numbered before their fields, containers after their items; the decoder
    numbers them in the same order. Each class's way of writing is looked up once (``_HOW``)."""

    def __init__(self):
        self.seen: dict[int, int] = {}
        self.keep: list = []  # holds every numbered object, so that no id() is reused
        self.aliases: list = []  # objects written as a reference to an equal one, held alike
        self.by_value: dict[tuple[type, str], int] = {}  # SHARED_BY_VALUE: repr → number
        self.classes: dict[type, int] = {}  # class → its place in the written class list

    def class_list(self) -> list:
        return [
            [_name(kind), None if issubclass(kind, enum.Enum) else list(_field_names(kind))]
            for kind in self.classes
        ]

    def class_number(self, kind: type) -> int:
        number = self.classes.get(kind)
        if number is None:
            number = self.classes[kind] = len(self.classes)
        return number

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
        return value if math.isfinite(value) else [REAL, repr(value)]

    def enum_member(self, value):
        return [ENUM, self.class_number(type(value)), self.encode(value.value)]

    def decimal(self, value):
        return [DECIMAL, str(value)]

    def moment(self, value):
        return [MOMENT, value.isoformat()]

    def day(self, value):
        return [DAY, value.isoformat()]

    def dataclass(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return [REF, shared]
        kind = type(value)
        if kind in _SHARED_CLASSES:
            # By repr, then equality: equal values with another repr (Decimal 1.0 and 1.00)
            # stay apart.
            key = (kind, repr(value))
            earlier = self.by_value.get(key)
            if earlier is not None and self.keep[earlier] == value:
                self.seen[id(value)] = earlier  # met again (another path): no second repr
                self.aliases.append(value)  # so that its id() is not reused
                return [REF, earlier]
            self.by_value[key] = len(self.keep)
        self.number(value)
        encode = self.encode
        fields = _fields_of(kind)(value)
        try:
            return [
                self.class_number(kind),
                *[item if type(item) in _AS_IS else encode(item) for item in fields],
            ]
        except _Unstorable as error:
            error.path = f".{_failing(_field_names(kind), fields)}{error.path}"
            raise

    def sequence(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return [REF, shared]
        encode = self.encode
        try:
            written = [
                TUPLE if isinstance(value, tuple) else LIST,
                *[item if type(item) in _AS_IS else encode(item) for item in value],
            ]
        except _Unstorable as error:
            error.path = f"[{_failing(range(len(value)), value)}]{error.path}"
            raise
        self.number(value)
        return written

    def set_of(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return [REF, shared]
        try:
            items = [self.encode(item) for item in value]
        except _Unstorable as error:
            error.path = "{}" + error.path
            raise
        self.number(value)
        return [SET, *sorted(items, key=lambda item: json.dumps(item, sort_keys=True))]

    def mapping(self, value):
        shared = self.seen.get(id(value))
        if shared is not None:
            return [REF, shared]
        if all(type(key) is str for key in value):
            written = self.text_keyed(value)
        else:
            written = self.any_keyed(value)
        self.number(value)
        return written

    def text_keyed(self, value) -> dict:
        encode = self.encode
        written = {}
        key = None
        try:
            for key, item in value.items():
                written[key] = encode(item)
        except _Unstorable as error:
            error.path = f"[{key!r}]{error.path}"
            raise
        return written

    def any_keyed(self, value) -> list:
        encode = self.encode
        written = [MAPPING]
        for key, item in value.items():
            written.append(encode(key))  # the decoder reads keys first
            try:
                written.append(encode(item))
            except _Unstorable as error:
                error.path = f"[{key!r}]{error.path}"
                raise
        return written

    def unknown(self, value):
        raise _Unstorable(type(value).__name__)


def _failing(names, values):
    """The name of the first value that cannot be stored (to name the place of the error)."""
    for name, value in zip(names, values, strict=True):
        try:
            _Encoder().encode(value)
        except _Unstorable:
            return name
    return "?"


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


@functools.cache
def _fields_of(cls: type):
    """A function giving the values of ``cls``'s fields, in order, as one tuple."""
    names = _field_names(cls)
    if len(names) == 1:
        only = operator.attrgetter(names[0])
        return lambda value: (only(value),)
    return operator.attrgetter(*names) if names else lambda value: ()


def dumps(value) -> str:
    """JSON text for ``value`` (a dataclass tree); TypeError naming where an unknown type is."""
    encoder = _Encoder()
    written = encoder.encode(value)
    return json.dumps([encoder.class_list(), written], ensure_ascii=False, separators=(",", ":"))


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


class _Kind:
    """A class of the stored text, checked against the current code once per text: the
    stored fields in their written order, and how to fill the fields added since."""

    def __init__(self, name: str, stored_fields: list | None):
        self.cls = _class(name)
        self.name = name
        if stored_fields is None:
            if not issubclass(self.cls, enum.Enum):
                raise StoredFormatError(f"{name} is no longer an enum")
            return
        if not dataclasses.is_dataclass(self.cls):
            raise StoredFormatError(f"{name} is no longer a dataclass")
        self.fields = tuple(stored_fields)
        self.added = _added_fields(self.cls, self.fields)
        # Frozen: fields are written past __setattr__, into the instance's dict when it has one.
        self.in_dict = not any("__slots__" in vars(base) for base in self.cls.__mro__[:-1])

    def member(self, value):
        try:
            return self.cls(value)
        except (TypeError, ValueError) as error:
            raise StoredFormatError(f"{self.name} has no member {value!r}") from error


def _added_fields(cls: type, stored: tuple) -> tuple:
    """The fields of ``cls`` the stored text lacks, each with its default or default factory;
    StoredFormatError for a stored field the class no longer has or one added without a
    default."""
    current = {f.name: f for f in dataclasses.fields(cls)}
    gone = sorted(set(stored) - set(current))
    if gone:
        raise StoredFormatError(f"{_name(cls)} no longer has {', '.join(gone)}")
    added = []
    for name, f in current.items():
        if name in stored:
            continue
        if f.default is not dataclasses.MISSING:
            added.append((name, f.default, None))
        elif f.default_factory is not dataclasses.MISSING:
            added.append((name, None, f.default_factory))
        else:
            raise StoredFormatError(f"{_name(cls)}.{name} was added since this result was stored")
    return tuple(added)


class _Decoder:
    def __init__(self, classes: list):
        self.kinds = [_Kind(name, fields) for name, fields in classes]
        self.objects: list = []  # numbered as the encoder numbered them

    def decode(self, value):
        kind = type(value)
        if kind is list:
            tag = value[0]
            if tag >= 0:
                return self.dataclass(self.kinds[tag], value)
            return _TAGGED[tag](self, value)
        if kind is dict:
            decode = self.decode
            decoded = {key: decode(item) for key, item in value.items()}
            self.objects.append(decoded)
            return decoded
        return value

    def dataclass(self, kind: _Kind, value: list):
        instance = object.__new__(kind.cls)  # as pickle does: the stored values, no __init__
        self.objects.append(instance)
        decode = self.decode
        values = {
            name: decode(item) if type(item) in _TREES else item
            for name, item in zip(kind.fields, value[1:], strict=True)
        }
        for name, default, factory in kind.added:
            values[name] = default if factory is None else factory()
        if kind.in_dict:
            instance.__dict__.update(values)
        else:
            for name, item in values.items():
                object.__setattr__(instance, name, item)
        return instance

    def ref(self, value):
        return self.objects[value[1]]

    def decimal(self, value):
        return Decimal(value[1])

    def enum_member(self, value):
        return self.kinds[value[1]].member(self.decode(value[2]))

    def day(self, value):
        return date.fromisoformat(value[1])

    def moment(self, value):
        return datetime.fromisoformat(value[1])

    def real(self, value):
        return float(value[1])

    def items(self, value) -> list:
        decode = self.decode
        return [decode(item) if type(item) in _TREES else item for item in value[1:]]

    def sequence(self, value):
        decoded = tuple(self.items(value)) if value[0] == TUPLE else self.items(value)
        self.objects.append(decoded)
        return decoded

    def set_of(self, value):
        decoded = frozenset(self.items(value))
        self.objects.append(decoded)
        return decoded

    def mapping(self, value):
        decode = self.decode
        decoded = {}
        for index in range(1, len(value), 2):
            key = decode(value[index])
            decoded[key] = decode(value[index + 1])
        self.objects.append(decoded)
        return decoded


_TREES = (list, dict)  # what JSON gives that is not a plain value
_TAGGED = {
    REF: _Decoder.ref,
    DECIMAL: _Decoder.decimal,
    ENUM: _Decoder.enum_member,
    DAY: _Decoder.day,
    MOMENT: _Decoder.moment,
    TUPLE: _Decoder.sequence,
    LIST: _Decoder.sequence,
    SET: _Decoder.set_of,
    MAPPING: _Decoder.mapping,
    REAL: _Decoder.real,
}


def loads(text: str):
    """The objects ``dumps`` wrote; StoredFormatError when the classes have changed since."""
    try:
        classes, value = json.loads(text)
        return _Decoder(classes).decode(value)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
        if isinstance(error, StoredFormatError):
            raise
        raise StoredFormatError(f"unreadable stored result: {error}") from error
