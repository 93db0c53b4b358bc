"""Targets for advisor.brief.sandbox in tests: each takes the payload (bytes), returns bytes."""

import time


def echo(payload: bytes) -> bytes:
    return payload[::-1]


def spin(payload: bytes) -> bytes:
    """Uses CPU until the kernel stops it (never returns)."""
    while True:
        sum(range(10_000))


def sleep(payload: bytes) -> bytes:
    """Uses no CPU and never answers in time: only the deadline stops it."""
    time.sleep(3600)
    return b""


def hog(payload: bytes) -> bytes:
    """Asks for far more memory than any allowance in these tests."""
    chunks = [bytearray(64 * 1024 * 1024) for _ in range(64)]
    return str(len(chunks)).encode()


def fail(payload: bytes) -> bytes:
    raise RuntimeError("a bug in the target")
