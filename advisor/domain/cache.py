"""Caches by identity and by key (pure Python classes; no module of the domain holds one: see
docs/architecture.md, "Caches").

Frozen records that many options share (a site's figures, a server's load) are worked on
again and again by one recommendation. ``PerObject`` caches what was worked out for an object
by the object's identity, ``PerObjects`` what was worked out for several objects together by
their identities; a recommendation holds its own (``PricingCache``, passed down like
``Sizings``) and drops them when it ends. ``Latest`` caches the values last used under plain keys
(a stored result's token), safe to share between threads.
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


class PerObject:
    """``make(obj)`` kept per object (its identity) and an extra hashable key.

    The object is kept alive beside its value, so its identity is not reused while the entry
    lives, and an entry serves only that very object (an equal copy is another object). The
    memory is emptied when it holds ``limit`` entries. ``make`` that raises keeps nothing.
    """

    def __init__(self, limit: int):
        self._limit = limit
        self._kept: dict[tuple, tuple] = {}

    def get(self, obj, make: Callable, extra: Hashable = None):
        key = (id(obj), extra)
        kept = self._kept.get(key)
        if kept is None or kept[0] is not obj:
            value = make(obj)
            if len(self._kept) >= self._limit:
                self._kept.clear()
            kept = self._kept[key] = (obj, value)
        return kept[1]


class PerObjects:
    """``make()`` kept per tuple of objects (their identities, in order) and an extra hashable
    key: what ``PerObject`` does for one object, for a value that reads several (a server's
    load at a site under the buyer's assumptions).

    Every object is kept alive beside the value and checked with ``is`` on lookup, so an entry
    serves only those very objects; emptied when it holds ``limit`` entries; a ``make`` that
    raises keeps nothing.
    """

    def __init__(self, limit: int):
        self._limit = limit
        self._kept: dict[tuple, tuple] = {}

    def get(self, objects: tuple, make: Callable, extra: Hashable = None):
        key = (*map(id, objects), extra)
        kept = self._kept.get(key)
        if kept is None or not all(map(operator.is_, kept[0], objects)):
            value = make()
            if len(self._kept) >= self._limit:
                self._kept.clear()
            kept = self._kept[key] = (objects, value)
        return kept[1]


class Latest:
    """The ``limit`` values last read or kept, by a hashable key; the least recently used goes
    first when one more is kept. One lock guards it, so a process's threads may share it."""

    def __init__(self, limit: int):
        self._limit = limit
        self._kept: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable):
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
            return value

    def put(self, key: Hashable, value) -> None:
        with self._lock:
            self._kept[key] = value
            self._kept.move_to_end(key)
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)
