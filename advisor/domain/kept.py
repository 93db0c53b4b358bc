"""Values worked out once per object for as long as a process lives (pure Python).

Frozen records that many options share (a site's figures, a server's load) are worked on
again and again by a recommendation, and by the next ones on the same catalog. ``PerObject``
keeps what was worked out for an object by the object's identity.
"""

from __future__ import annotations

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
