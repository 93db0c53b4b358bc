"""Verify an uploaded PDF and match it against our records (page and command share this)."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.brief.config import trust_roots
from advisor.brief.models import Brief
from advisor.brief.verify import Tampering, VerificationReport, sha256_hex, verify_pdf

MAX_PDF_BYTES = 20 * 1024 * 1024  # a full brief is well under 2 MiB; 20 MiB leaves room


class NotAPdf(ValueError):
    """The upload is empty, too large or does not start like a PDF."""


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


def verify_upload(data: bytes) -> Verification:
    check_pdf_bytes(data)
    report = verify_pdf(data, trust_roots())
    digest = sha256_hex(data)
    brief = Brief.objects.filter(sha256=digest).select_related("approved_by").first()
    stripped_from = draft_of = None
    if brief is None and report.tampering is Tampering.SIGNATURE_MISSING:
        stripped_from = Brief.objects.filter(unsigned_sha256=digest).first()
    if brief is None:
        draft_of = Brief.objects.filter(draft_sha256=digest).exclude(sha256=digest).first()
    return Verification(report, brief, stripped_from, draft_of)
