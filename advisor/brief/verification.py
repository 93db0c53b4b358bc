"""Verify an uploaded PDF and match it against our records (page and command share this).

The PDF is parsed and its signatures validated in a child process with hard limits (CPU time,
memory, a wall-clock deadline; advisor.brief.sandbox), at most ``VERIFY_SLOTS`` at once on a
host (file locks, shared by every web worker and command); the records are read here, by
SHA-256. docs/decisions/0019-verify-bounds.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from advisor.brief import sandbox
from advisor.brief.lifecycle import Glance, glance
from advisor.brief.models import Brief
from advisor.brief.verify import (
    MAX_OBJECTS,
    MAX_SIGNATURES,
    Tampering,
    VerificationReport,
    report_from_json,
    sha256_hex,
)

logger = logging.getLogger(__name__)

MAX_PDF_BYTES = 20 * 1024 * 1024  # a full brief is well under 2 MiB; 20 MiB leaves room
# A first sieve over the raw bytes, before any child starts: files that declare far more
# objects or signatures than any brief in plain sight. It sees nothing inside compressed
# object streams; the bounds that decide are counted on the parsed document, in the child
# (advisor.brief.verify.check_bounds).
_OBJECT = re.compile(rb"\d+\s+\d+\s+obj\b")
_OBJECT_STREAM_COUNT = re.compile(
    rb"/Type\s*/ObjStm\b[^>]{0,200}?/N\s+(\d{1,9})|/N\s+(\d{1,9})[^>]{0,200}?/Type\s*/ObjStm\b"
)
_SIGNATURE = re.compile(rb"/FT\s*/Sig\b|/Type\s*/Sig\b")


class NotAPdf(ValueError):
    """The upload is empty, too large, does not start like a PDF, or could not be checked.

    ``str()`` is the reason's key: empty, too-large, not-pdf, too-complex (beyond the bounds),
    stopped (the child used up its CPU time, memory or time) or failed (the child crashed).
    """


class Busy(Exception):
    """Every verification slot is taken; try again in ``retry_after`` seconds."""

    retry_after = 10


@dataclass(frozen=True)
class Verification:
    report: VerificationReport
    brief: Brief | None  # the brief whose current signed PDF this is, byte for byte
    stripped_from: Brief | None  # the brief whose unsigned rendering this is (signature removed)
    superseded_draft_of: Brief | None = None  # the signed draft of a brief since approved
    # What the brief on record says now: superseded (since when, why) when its option's verdict
    # changed after issue or the option is gone (advisor.brief.lifecycle)
    standing: Glance | None = None

    @property
    def superseded(self) -> bool:
        return self.standing is not None and self.standing.superseded

    @property
    def on_record(self) -> bool:
        return self.brief is not None

    @property
    def ok(self) -> bool:
        """Intact, trusted and exactly a PDF we issued."""
        return self.report.intact_and_trusted and self.on_record

    @property
    def untrusted(self) -> bool:
        """Intact and unchanged, but signed with a certificate that is not ours."""
        report = self.report
        return (
            report.tampering is Tampering.NONE
            and bool(report.signatures)
            and all(s.intact for s in report.signatures)
            and not all(s.valid and s.trusted for s in report.signatures)
        )

    @property
    def stripped(self) -> bool:
        return self.report.tampering is Tampering.SIGNATURE_MISSING and (
            self.stripped_from is not None or bool(self.report.brief_numbers_seen)
        )


def check_pdf_bytes(data: bytes) -> None:
    if not data:
        raise NotAPdf("empty")
    if len(data) > MAX_PDF_BYTES:
        raise NotAPdf("too-large")
    if not data.lstrip()[:5] == b"%PDF-":
        raise NotAPdf("not-pdf")
    check_structure(data)


def object_count(data: bytes) -> int:
    """Objects in the raw bytes: top-level ones plus those packed into object streams
    whose ``/N`` is in plain sight (a first sieve only)."""
    packed = sum(int(a or b) for a, b in _OBJECT_STREAM_COUNT.findall(data))
    return sum(1 for _ in _OBJECT.finditer(data)) + packed


def check_structure(data: bytes) -> None:
    """Refuse a file whose visible object or signature counts no brief comes near."""
    if len(_SIGNATURE.findall(data)) > MAX_SIGNATURES * 2 or object_count(data) > MAX_OBJECTS:
        raise NotAPdf("too-complex")


def limits() -> sandbox.Limits:
    return sandbox.Limits(
        cpu_s=settings.VERIFY_CPU_S,
        memory_bytes=settings.VERIFY_MEMORY_MB * 1024 * 1024,
        wall_s=settings.VERIFY_BUDGET_S,
    )


@contextlib.contextmanager
def verification_slot(wait_s: float = 0.0):
    """Hold one of ``VERIFY_SLOTS`` slots (an exclusive lock on a file in
    ``VERIFY_SLOT_DIR``) while the check runs; :class:`Busy` when none frees within
    ``wait_s``. The kernel drops a lock when its process ends, so a killed worker holds none."""
    directory = Path(settings.VERIFY_SLOT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_s
    while True:
        for index in range(settings.VERIFY_SLOTS):
            fd = os.open(directory / f"slot-{index}", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield index
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
            return
        if time.monotonic() >= deadline:
            raise Busy
        time.sleep(0.2)  # a command waiting for a slot polls; the page never waits


def check_in_child(data: bytes) -> VerificationReport:
    """The report on ``data``, from a child process under ``limits()``; :class:`NotAPdf`
    (too-complex, stopped, failed) when it gives none."""
    import advisor.brief.verify_child as verify_child  # pyHanko, before a fork (decision 0037)

    roots = [str(path) for path in settings.BRIEF_SIGNING["TRUST_ROOTS"]]
    started = time.monotonic()
    try:
        output = sandbox.run(verify_child.TARGET, verify_child.payload(data, roots), limits())
    except sandbox.Stopped as stopped:
        seconds = time.monotonic() - started
        if stopped.reason == "crashed":
            logger.error("verification failed: the check crashed (%s)", stopped.detail)
            raise NotAPdf("failed") from None
        logger.warning("verification stopped: %s after %.1f s", stopped, seconds)
        raise NotAPdf("stopped") from None
    result = json.loads(output)
    if "refused" in result:
        logger.info("verification refused: %s", result["why"])
        raise NotAPdf(result["refused"])
    return report_from_json(result["report"])


def verify_upload(data: bytes, *, wait_s: float = 0.0) -> Verification:
    """Check ``data`` (bounded: size and visible counts here, then a child process under hard
    limits) and match it against our records.

    Raises :class:`NotAPdf`, or :class:`Busy` when no verification slot frees within ``wait_s``.
    """
    check_pdf_bytes(data)
    with verification_slot(wait_s):
        report = check_in_child(data)
    digest = sha256_hex(data)  # the records are matched on what this process hashed
    brief = Brief.objects.filter(sha256=digest).select_related("approved_by").first()
    stripped_from = draft_of = None
    if brief is None and report.tampering is Tampering.SIGNATURE_MISSING:
        stripped_from = Brief.objects.filter(unsigned_sha256=digest).first()
    if brief is None:
        draft_of = Brief.objects.filter(draft_sha256=digest).exclude(sha256=digest).first()
    standing = glance(brief) if brief is not None else None
    return Verification(report, brief, stripped_from, draft_of, standing)
