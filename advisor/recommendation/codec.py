"""A computed recommendation as bytes and back: pickle read by a restricted unpickler
(docs/decisions/0076-stored-result-in-restricted-pickle.md; before it, JSON: decisions 0033
and 0058).

The domain's results are frozen dataclasses holding Decimals, dates, tuples, enums and nested
dataclasses. ``dumps`` writes them with the C pickler (protocol 5), so ``loads`` gives back
equal objects of the same types, shared as the computation shared them. The bytes are::

    4 bytes: n, the header's length (big-endian)
    n bytes: the header, JSON: {"module.Class": shape, …} for each domain class written
    the rest: the pickle

A class's shape is its field names in order (a dataclass) or its members' names and values
(an enum). Loading rebuilds only:

- dataclasses and enums defined in ``advisor.domain.*`` and ``vendors.choices`` (the catalog's
  choice enums that the domain's facts carry), named in the header with the shape the class
  has now: a class changed since the result was stored (a field added, removed, renamed or
  moved, even one with a default; a member added or gone) raises :class:`StoredFormatError`,
  checked once per class per load (the pickle names each class once);
- ``decimal.Decimal`` and ``datetime``'s date, datetime, timezone and timedelta.

Any other name in the pickle (``os.system``, ``builtins.eval``, any other class) is refused
before anything is called: a stored row cannot name code to run. Writing refuses what loading
would refuse, naming where it is (TypeError). Pure Python: no Django.
"""

from __future__ import annotations

import copyreg
import dataclasses
import enum
import functools
import importlib
import io
import json
import operator
import pickle
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

# Bump when the layout itself changes; class changes are detected class by class (the header).
# Format 1 (decisions 0033, 0051): a JSON object per value; format 2 (0058): compact tagged JSON.
FORMAT = 3
PROTOCOL = 5
# The domain's classes, and the catalog's choice enums that its facts carry (e.g. a source flag).
ALLOWED_MODULES = ("advisor.domain.", "vendors.choices.")
# The other classes a result holds (pickletools over the demo jobs' results: Decimal and date;
# datetime, with its timezone and that zone's offset, for a moment).
BUILTINS = {
    ("decimal", "Decimal"): Decimal,
    ("datetime", "date"): date,
    ("datetime", "datetime"): datetime,
    ("datetime", "timezone"): timezone,
    ("datetime", "timedelta"): timedelta,
}
_BUILTIN_TYPES = frozenset(BUILTINS.values())
_LENGTH = 4  # bytes of the header's length


class StoredFormatError(ValueError):
    """The stored bytes do not describe the current classes (written by older code), or are
    not a stored result at all."""


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# --- Writing ---------------------------------------------------------------------------------


def _is_domain_class(cls: type) -> bool:
    """A dataclass or enum of the domain that the loader can find again by its name."""
    return (
        _name(cls).startswith(ALLOWED_MODULES)
        and "<locals>" not in cls.__qualname__
        and (dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum))
    )


# What the C pickler does by default for an object of these classes, as a C call (no Python
# frame per object): the object's own __reduce_ex__.
_REDUCE = operator.methodcaller("__reduce_ex__", PROTOCOL)


def _fields_only(value):
    """The reduction of a dataclass that keeps derived values in its instances' dict
    (``functools.cached_property``, decision 0061): its fields only, as pickle writes an
    object's dict, so what is stored is what the header's shape names, and derived values are
    worked out again by the code that reads them."""
    state = value.__dict__
    return copyreg.__newobj__, (type(value),), {name: state[name] for name in _fields(type(value))}


@functools.cache
def _fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@functools.cache
def _reduction(cls: type):
    """How objects of ``cls`` are written: fields only when it caches derived values."""
    caches = any(
        isinstance(item, functools.cached_property)
        for base in cls.__mro__
        for item in vars(base).values()
    )
    return _fields_only if caches and dataclasses.is_dataclass(cls) else _REDUCE


@functools.cache
def _storable(cls: type):
    """How objects of ``cls`` are written; None for a class the loader would refuse (checked
    once per class and process: every ``dumps`` meets the same ~60 classes)."""
    if cls not in _BUILTIN_TYPES and not _is_domain_class(cls):
        return None
    return _reduction(cls)


class _Reductions(dict):
    """The pickler's dispatch table for one ``dumps``: consulted for each object whose class
    pickle does not write by itself (not str, int, float, tuple, list, dict, set…) and has not
    already written; a class is checked on its first object (``__missing__``), then found.

    The domain classes met are the header's. A class (an enum's, written by name with its
    member) falls through to pickle's own way (KeyError)."""

    def __missing__(self, cls: type):
        if issubclass(cls, type):
            raise KeyError(cls)
        reduction = _storable(cls)
        if reduction is None:
            raise _Unstorable(cls.__name__)
        self[cls] = reduction
        return reduction

    def header(self) -> bytes:
        shapes = [_shape_json(cls) for cls in self if cls not in _BUILTIN_TYPES]
        return b"{" + b",".join(shapes) + b"}"


class _Unstorable(TypeError):
    """A value of a class the loader would refuse; ``path`` says where it is."""

    def __init__(self, kind: str, path: str = ""):
        super().__init__(kind)
        self.kind = kind
        self.path = path

    def __str__(self):
        return f"cannot store {self.kind} at {self.path or 'the top'}"


def dumps(value) -> bytes:
    """The stored bytes for ``value`` (a dataclass tree); TypeError naming where a value of a
    class the loader would refuse is."""
    reductions = _Reductions()
    written = io.BytesIO()
    pickler = pickle.Pickler(written, protocol=PROTOCOL)
    pickler.dispatch_table = reductions
    try:
        pickler.dump(value)
    except (TypeError, pickle.PicklingError, AttributeError) as error:
        kind, path = _first_unstorable(value, "", set()) or (f"({error})", "")
        raise _Unstorable(kind, path) from error
    header = reductions.header()
    return len(header).to_bytes(_LENGTH, "big") + header + written.getvalue()


_PLAIN = (str, int, float, bool, type(None), bytes, bytearray)


def _first_unstorable(value, path: str, seen: set) -> tuple[str, str] | None:
    """The class and place of the first value that ``dumps`` refuses (walked only after the
    pickler has refused one, to name it)."""
    kind = type(value)
    if kind in _PLAIN or kind in _BUILTIN_TYPES or id(value) in seen:
        return None
    seen.add(id(value))
    if kind in (tuple, list):
        parts = ((f"[{index}]", item) for index, item in enumerate(value))
    elif kind in (set, frozenset):
        parts = (("{}", item) for item in value)
    elif kind is dict:
        parts = ((f"[{key!r}]", part) for key, item in value.items() for part in (key, item))
    elif not _is_domain_class(kind):
        return kind.__name__, path
    elif dataclasses.is_dataclass(kind):
        parts = ((f".{f.name}", getattr(value, f.name)) for f in dataclasses.fields(kind))
    else:
        return None  # an enum member
    for place, item in parts:
        found = _first_unstorable(item, path + place, seen)
        if found is not None:
            return found
    return None


# --- Class shapes ----------------------------------------------------------------------------


@functools.cache
def _shape(cls: type) -> list:
    """The class as the header records it, as JSON reads it back: a dataclass's field names in
    order, or an enum's members (aliases included) as ``[name, repr(value)]``."""
    if dataclasses.is_dataclass(cls):
        return list(_fields(cls))
    return [[name, repr(member.value)] for name, member in cls.__members__.items()]


@functools.cache
def _shape_json(cls: type) -> bytes:
    """The header's entry for ``cls`` (made once per process)."""
    return json.dumps({_name(cls): _shape(cls)}, ensure_ascii=False, separators=(",", ":"))[
        1:-1
    ].encode()


# --- Reading ---------------------------------------------------------------------------------


_CLASSES: dict[tuple[str, str], type] = {}  # (module, name) → a domain class found by it


def _domain_class(module: str, name: str) -> type:
    """The domain class ``module.name``: looked up in the module's and classes' own namespaces
    (no attribute hooks run) and kept; StoredFormatError for anything else."""
    found = _CLASSES.get((module, name))
    if found is None:
        found = _CLASSES[(module, name)] = _look_up(module, name)
    return found


def _look_up(module: str, name: str) -> type:
    full = f"{module}.{name}"
    if not full.startswith(ALLOWED_MODULES):
        raise StoredFormatError(f"{full} is not a class a stored result may hold")
    try:
        found = importlib.import_module(module)
    except (ImportError, ValueError, TypeError) as error:
        raise StoredFormatError(f"{full} no longer exists") from error
    for part in name.split("."):
        found = vars(found).get(part) if hasattr(found, "__dict__") else None
        if found is None:
            raise StoredFormatError(f"{full} no longer exists")
    if not isinstance(found, type) or _name(found) != full or not _is_domain_class(found):
        raise StoredFormatError(f"{full} is not a class a stored result may hold")
    return found


class _Unpickler(pickle.Unpickler):
    """Finds only the builtins above and the domain classes named in the header, each with the
    shape it has now. ``find_class`` runs once per class per load: the pickler names a class
    once and refers to it after (its memo)."""

    def __init__(self, file, shapes: dict):
        super().__init__(file)
        self.shapes = shapes

    def find_class(self, module, name):
        builtin = BUILTINS.get((module, name))
        if builtin is not None:
            return builtin
        cls = _domain_class(module, name)
        stored = self.shapes.get(f"{module}.{name}")
        if stored is None:
            raise StoredFormatError(f"{module}.{name} is not in the stored result's header")
        if stored != _shape(cls):
            raise StoredFormatError(f"{module}.{name} {_change(stored, _shape(cls))}")
        return cls


def _change(stored: list, current: list) -> str:
    """How a class's shape changed, in words (for the log)."""
    stored_names = [item if isinstance(item, str) else item[0] for item in stored]
    current_names = [item if isinstance(item, str) else item[0] for item in current]
    gone = [name for name in stored_names if name not in current_names]
    added = [name for name in current_names if name not in stored_names]
    said = []
    if gone:
        said.append(f"no longer has {', '.join(gone)}")
    if added:
        said.append(f"has {', '.join(added)} added since this result was stored")
    return "; ".join(said) or "has changed since this result was stored (order or values)"


# What reading bytes that are not a stored result of this format can raise.
_UNREADABLE = (
    pickle.UnpicklingError,
    EOFError,
    AttributeError,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    ImportError,
    OverflowError,
    MemoryError,
    RecursionError,
)


def loads(data: bytes):
    """The objects ``dumps`` wrote; StoredFormatError when the classes have changed since or
    the bytes are not a stored result."""
    try:
        start = _LENGTH + int.from_bytes(data[:_LENGTH], "big")
        shapes = json.loads(data[_LENGTH:start])
        if type(shapes) is not dict or len(data) <= start:
            raise ValueError("no header")
        stream = io.BytesIO(data)
        stream.seek(start)
        return _Unpickler(stream, shapes).load()
    except _UNREADABLE as error:
        if isinstance(error, StoredFormatError):
            raise
        raise StoredFormatError(f"unreadable stored result: {error!r}") from error
