"""The catalog cache: catalog reads made once (docs/decisions/0035, 0050 and 0087).

Computing a recommendation reads the same catalog rows again and again: every server model's
offers at every site, every site's zone chain and tariffs. Inside ``catalog_reads()`` a selector
that asks :func:`memoized` for a key gets the rows the first call read; outside, it queries as
before.

Without a stamp the memory lives only as long as the ``with`` block (one computation, in one
thread or task: a context variable). With the catalog stamp (``advisor.catalog.stamp``: it
changes whenever a catalog row or rule parameter is saved, added or deleted) the reads are kept
in the process for the next computations on the same stamp, and dropped at the first
computation that sees another stamp: a catalog edit is seen by the next computation, never
half-way, and a recommendation on an unchanged catalog reads nothing but the stamp.

What is kept is shared between computations and threads: it is never changed in place (code
that wants to change a row for one site copies it first, as ``declared.overlaid`` does).
Reads keyed by the buyer's inputs as well (:func:`memoized_for_inputs`) are kept for the most
recent few hundred keys only.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

INPUT_KEYS_KEPT = 512


@dataclass
class _Reads:
    stamp: str | None = None  # the catalog stamp the reads are kept for (None: one block)
    by_key: dict = field(default_factory=dict)
    by_input: OrderedDict = field(default_factory=OrderedDict)


_MEMO: ContextVar[_Reads | None] = ContextVar("catalog_reads", default=None)
_CACHE_LOCK = threading.Lock()
_cached: dict[str, _Reads] = {}  # at most one stamp: the latest seen


@contextmanager
def catalog_reads(stamp: str | None = None) -> Iterator[None]:
    """Within the block, each memoized catalog read is made once (nested blocks share it).

    ``stamp``: the catalog stamp read for this computation; the reads are then kept for the
    next computations on the same stamp. A block inside another one shares its reads, unless
    both name a stamp and they differ (the catalog changed between the two stamp reads): the
    inner block then reads what its own stamp says.
    """
    outer = _MEMO.get()
    if outer is not None and not (stamp and outer.stamp and stamp != outer.stamp):
        yield
        return
    token = _MEMO.set(_cached_for(stamp) if stamp else _Reads())
    try:
        yield
    finally:
        _MEMO.reset(token)


def _cached_for(stamp: str) -> _Reads:
    with _CACHE_LOCK:
        reads = _cached.get(stamp)
        if reads is None:
            _cached.clear()  # another stamp: the catalog changed, nothing read before holds
            reads = _cached[stamp] = _Reads(stamp)
        return reads


def cached_stamp() -> str | None:
    """The catalog stamp the enclosing ``catalog_reads`` block keeps its reads for (None outside
    one, or in a block without a stamp)."""
    memo = _MEMO.get()
    return memo.stamp if memo is not None else None


def forget() -> None:
    """Drop every kept read (tests start from nothing)."""
    with _CACHE_LOCK:
        _cached.clear()


def memoized[T](key: Hashable, read: Callable[[], T]) -> T:
    """``read()``, made once per ``key`` inside ``catalog_reads()``; every time outside it."""
    memo = _MEMO.get()
    if memo is None:
        return read()
    try:
        return memo.by_key[key]
    except KeyError:
        value = memo.by_key[key] = read()
        return value


def memoized_for_inputs[T](key: Hashable, read: Callable[[], T]) -> T:
    """As :func:`memoized`, for a read that depends on the buyer's inputs as well as the
    catalog (``key`` names both): only the most recently used keys are kept."""
    memo = _MEMO.get()
    if memo is None:
        return read()
    kept = memo.by_input
    try:
        value = kept[key]
    except KeyError:
        value = read()
        with _CACHE_LOCK:
            kept[key] = value
            while len(kept) > INPUT_KEYS_KEPT:
                kept.popitem(last=False)
        return value
    with _CACHE_LOCK:
        if key in kept:
            kept.move_to_end(key)
    return value


def inputs_key(*inputs) -> str:
    """The buyer's inputs a kept read depends on, as one comparable text."""
    return json.dumps(inputs, sort_keys=True, default=repr, ensure_ascii=False)
