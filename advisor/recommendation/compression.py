"""The stored recommendation's bytes, compressed: Zstandard, reading zlib too
(docs/decisions/0081-stored-result-in-zstandard.md).

A stored row written before decision 0081 holds zlib streams (decision 0058); its bytes are
told apart by their first four bytes (a Zstandard frame's magic number), so such a row reads as
it always did and is never computed again for its compression alone.
"""

from __future__ import annotations

import zlib

import zstandard

# Zstandard's level 1: ~4x zlib level 1's speed on a stored result, for a smaller output.
LEVEL = 1
_MAGIC = b"\x28\xb5\x2f\xfd"  # every Zstandard frame starts with it (RFC 8878, section 3.1.1)


class Unreadable(ValueError):
    """Neither a Zstandard frame nor a zlib stream (or a damaged one)."""


def compress(data: bytes) -> bytes:
    """``data`` as one Zstandard frame (its size written in the frame's header)."""
    return zstandard.compress(data, LEVEL)


def decompress(data: bytes | memoryview) -> bytes:
    """The bytes :func:`compress` (or zlib, before decision 0081) made; raises Unreadable."""
    data = bytes(data)
    try:
        if data[:4] == _MAGIC:
            return zstandard.decompress(data)
        return zlib.decompress(data)
    except (zstandard.ZstdError, zlib.error) as error:
        raise Unreadable(str(error)) from error
