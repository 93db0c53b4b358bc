"""Verify an uploaded PDF and match it against our records (page and command share this)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.brief.config import trust_roots
from advisor.brief.models import Brief
from advisor.brief.verify import (
    Tampering,
    TooComplex,
    VerificationReport,
    sha256_hex,
    verify_pdf,
)

MAX_PDF_BYTES = 20 * 1024 * 1024  # a full brief is well under 2 MiB; 20 MiB leaves room
# Counted in the raw bytes before the PDF is parsed (a probe's 19.9 MB file with 200,000 empty
# signature fields kept a worker busy for 30-50 s and grew it to ~750 MB). A brief has a few
# hundred objects and one signature; these limits leave a wide margin for any PDF we issue.
MAX_OBJECTS = 20_000
MAX_SIGNATURES = 8
# Seconds the full check may take (parsing and each signature's validation); a brief takes
# well under one.
VERIFY_BUDGET_S = 10.0

_OBJECT = re.compile(rb"\d+\s+\d+\s+obj\b")
_OBJECT_STREAM_COUNT = re.compile(
    rb"/Type\s*/ObjStm\b[^>]{0,200}?/N\s+(\d{1,9})|/N\s+(\d{1,9})[^>]{0,200}?/Type\s*/ObjStm\b"
)
_SIGNATURE = re.compile(rb"/FT\s*/Sig\b|/Type\s*/Sig\b")


class NotAPdf(ValueError):
    """The upload is empty, too large, does not start like a PDF, or is too complex to check.

    ``str()`` is the reason's key: empty, too-large, not-pdf or too-complex.
    """


@dataclass(frozen=True)
class Verification:
    report: VerificationReport
    brief: Brief | None  # the brief whose current signed PDF this is, byte for byte
    stripped_from: Brief | None  # the brief whose unsigned rendering this is (signature removed)
    superseded_draft_of: Brief | None = None  # the signed draft of a brief since approved

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
    """Objects in the file: top-level ones plus those packed into object streams."""
    packed = sum(int(a or b) for a, b in _OBJECT_STREAM_COUNT.findall(data))
    return sum(1 for _ in _OBJECT.finditer(data)) + packed


def check_structure(data: bytes) -> None:
    """Refuse a file whose object or signature counts no brief comes near, before parsing."""
    if len(_SIGNATURE.findall(data)) > MAX_SIGNATURES * 2 or object_count(data) > MAX_OBJECTS:
        raise NotAPdf("too-complex")


def verify_upload(data: bytes, *, budget_s: float | None = VERIFY_BUDGET_S) -> Verification:
    """Check ``data`` (bounded: size and counts first, then a time budget) against our records.

    Raises :class:`NotAPdf` (``too-complex`` when the budget is spent).
    """
    check_pdf_bytes(data)
    try:
        report = verify_pdf(data, trust_roots(), budget_s=budget_s)
    except TooComplex as error:
        raise NotAPdf("too-complex") from error
    digest = sha256_hex(data)
    brief = Brief.objects.filter(sha256=digest).select_related("approved_by").first()
    stripped_from = draft_of = None
    if brief is None and report.tampering is Tampering.SIGNATURE_MISSING:
        stripped_from = Brief.objects.filter(unsigned_sha256=digest).first()
    if brief is None:
        draft_of = Brief.objects.filter(draft_sha256=digest).exclude(sha256=digest).first()
    return Verification(report, brief, stripped_from, draft_of)
