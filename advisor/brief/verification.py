"""Verify an uploaded PDF and match it against our records (page and command share this).

The PDF is parsed and its signatures validated in a child process with hard limits (CPU time,
memory, a wall-clock deadline; advisor.brief.sandbox), at most ``VERIFY_SLOTS`` at once on a
host (file locks, shared by every web worker and command); the records are read here, by
SHA-256. docs/decisions/0019-verify-bounds.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from advisor.brief import sandbox
from advisor.brief.credentials import names_account
from advisor.brief.lifecycle import Glance, glance
from advisor.brief.models import Brief
from advisor.brief.signing import APPROVAL_FIELD
from advisor.brief.verify import (
    MAX_OBJECTS,
    MAX_SIGNATURES,
    SignatureReport,
    Tampering,
    VerificationReport,
    report_from_json,
    sha256_hex,
)
from advisor.security import client_ip

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
        """Intact, trusted and exactly a PDF we issued; an approval signature by the approver."""
        return (
            self.report.intact_and_trusted
            and self.on_record
            and self.approval_signer_is_approver is not False
        )

    @property
    def issuer_signatures(self) -> list[SignatureReport]:
        """The system's signatures (every one but the approver's own)."""
        return [s for s in self.report.signatures if s.field_name != APPROVAL_FIELD]

    @property
    def approval_signature(self) -> SignatureReport | None:
        """The approver's own signature over the system's (decision 0047), if any."""
        return next((s for s in self.report.signatures if s.field_name == APPROVAL_FIELD), None)

    @property
    def untrusted(self) -> bool:
        """Intact and unchanged, but the system's signature is made with a certificate that is
        not ours (the approval signature is judged on its own: ``approval_doubt``)."""
        report = self.report
        issuer = self.issuer_signatures
        return (
            report.tampering is Tampering.NONE
            and bool(report.signatures)
            and all(s.intact for s in report.signatures)
            and not (issuer and all(s.valid and s.trusted for s in issuer))
        )

    @property
    def approval_signer_is_approver(self) -> bool | None:
        """Whether the approval signature's certificate names the approver on record (by
        e-mail address or full name, as at registration); None when there is no approval
        signature or no recorded approver to compare with."""
        approval = self.approval_signature
        if approval is None or self.brief is None or self.brief.approved_by is None:
            return None
        return names_account(
            approval.signer_common_names, approval.signer_emails, self.brief.approved_by
        )

    @property
    def approval_trusted(self) -> bool:
        approval = self.approval_signature
        return approval is not None and approval.intact and approval.valid and approval.trusted

    @property
    def approval_doubt(self) -> bool:
        """An approval signature that does not vouch for the approver on record: its
        certificate is not trusted, or it names someone else."""
        return self.approval_signature is not None and (
            not self.approval_trusted or self.approval_signer_is_approver is False
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


# Owners (client addresses, users) are hashed into this many lock files: bounded on disk, and
# two owners sharing one merely take turns.
OWNER_LOCKS = 1024


def verify_owners(request) -> tuple[str, ...]:
    """Whose check this is, for fairness: the client's address (as the sign-in lockout reads
    it) and, when signed in or holding a token, the user."""
    owners = [f"address:{client_ip(None, request)}"]
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        owners.append(f"user:{user.pk}")
    return tuple(owners)


def _owner_file(directory: Path, owner: str) -> Path:
    bucket = int(hashlib.sha256(owner.encode()).hexdigest(), 16) % OWNER_LOCKS
    return directory / f"owner-{bucket}"


def _pause() -> None:
    """Between two tries for a lock: a waiting check polls (a lock frees when its check ends)."""
    time.sleep(0.1)


def _lock(path: Path, deadline: float) -> int:
    """An exclusive lock on ``path`` (its descriptor), waiting until ``deadline``;
    :class:`Busy` when it is not free by then."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise Busy from None
            _pause()


def _try_lock(path: Path) -> int | None:
    """An exclusive lock on ``path`` if it is free now (its descriptor), else None."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _free_slot(directory: Path) -> tuple[int, int] | None:
    for index in range(settings.VERIFY_SLOTS):
        fd = _try_lock(directory / f"slot-{index}")
        if fd is not None:
            return index, fd
    return None


def _first_free(paths: list[Path]) -> int:
    """A lock on the first of ``paths`` free now; :class:`Busy` when none is."""
    for path in paths:
        fd = _try_lock(path)
        if fd is not None:
            return fd
    raise Busy


@contextlib.contextmanager
def verification_slot(wait_s: float = 0.0, owners: tuple[str, ...] = ()):
    """Hold one of ``VERIFY_SLOTS`` slots (an exclusive lock on a file in
    ``VERIFY_SLOT_DIR``) while the check runs; :class:`Busy` when none frees within
    ``wait_s``. The kernel drops a lock when its process ends, so a killed worker holds none.

    Fair (docs/decisions/0122-fair-verification.md): each of ``owners`` (the client's address,
    the user) has one check in flight at a time and at most one more waiting for its turn:
    a further upload of the same owner is refused at once, so one client holds at most one
    slot and one waiting place however many uploads it sends. A check that cannot start at
    once waits, up to ``wait_s``, only in one of ``VERIFY_QUEUE_PLACES`` waiting places (each
    holds a web worker: they are few); with none free it is refused at once. Without owners
    (the command line) a check simply polls for a slot."""
    directory = Path(settings.VERIFY_SLOT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_s
    held: list[int] = []
    try:
        turns = sorted({_owner_file(directory, owner) for owner in owners})
        pending = []
        for path in turns:  # sorted: two owners' locks never cross
            fd = _try_lock(path)
            if fd is None:
                pending.append(path)
            else:
                held.append(fd)
        slot = None if pending else _free_slot(directory)
        place = None
        if slot is None and owners:
            if wait_s <= 0:
                raise Busy
            for path in pending:  # one waiting check per owner
                held.append(_first_free([path.with_name(path.name + "-waiting")]))
            place = _first_free(
                [directory / f"waiting-{i}" for i in range(settings.VERIFY_QUEUE_PLACES)]
            )
            for path in pending:
                held.append(_lock(path, deadline))
        while slot is None and (slot := _free_slot(directory)) is None:
            if time.monotonic() >= deadline:
                raise Busy
            _pause()
        if place is not None:
            os.close(place)  # the waiting place is free for the next one
            place = None
        index, fd = slot
        held.append(fd)
        yield index
    finally:
        if place is not None:
            os.close(place)
        for fd in reversed(held):
            os.close(fd)  # closing drops the lock


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


def verify_upload(
    data: bytes, *, wait_s: float = 0.0, owners: tuple[str, ...] = ()
) -> Verification:
    """Check ``data`` (bounded: size and visible counts here, then a child process under hard
    limits) and match it against our records.

    Raises :class:`NotAPdf`, or :class:`Busy` when no verification slot frees within
    ``wait_s`` (``owners``: whose check it is, one in flight each, ``verification_slot``).
    """
    check_pdf_bytes(data)
    with verification_slot(wait_s, owners):
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
