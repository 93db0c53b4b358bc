"""Each catalog query once per computation (docs/decisions/0035-catalog-reads-once.md).

Computing a recommendation reads the same catalog rows again and again: every server model's
offers at every site, every site's zone chain and tariffs. Inside ``catalog_reads()`` a selector
that asks :func:`memoized` for a key gets the rows the first call read; outside, it queries as
before. The memory lives only as long as the ``with`` block (one computation, in one thread or
task: a context variable), so a catalog edit is seen by the next computation, never half-way.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_MEMO: ContextVar[dict | None] = ContextVar("catalog_reads", default=None)


@contextmanager
def catalog_reads() -> Iterator[None]:
    """Within the block, each memoized catalog read is made once (nested blocks share it)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def memoized[T](key: Hashable, read: Callable[[], T]) -> T:
    """``read()``, made once per ``key`` inside ``catalog_reads()``; every time outside it."""
    memo = _MEMO.get()
    if memo is None:
        return read()
    if key not in memo:
        memo[key] = read()
    return memo[key]
