"""Check a PDF: is the signature intact, was the file changed after signing, who signed.

The result is plain data so that the verification page, the ``verify_brief`` command and
the audit log share one answer. Matching against our records (by SHA-256) is done by the
caller; this module only looks at the file.
"""

from __future__ import annotations

import enum
import hashlib
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from io import BytesIO

from advisor.brief.signing import outside_event_loop

BRIEF_NUMBER = re.compile(rb"FT-\d{4}-\d{6}")


class TooComplex(ValueError):
    """Checking the file would take longer than the time budget allows."""


class Tampering(enum.StrEnum):
    NONE = "none"
    BYTES_CHANGED = "bytes-changed"  # signed bytes no longer hash to the signed digest
    CONTENT_APPENDED = "content-appended"  # an incremental update (e.g. a page) after signing
    SIGNATURE_MISSING = "signature-missing"  # no signature at all (never signed or stripped)
    UNREADABLE = "unreadable"  # not a PDF we can parse


@dataclass(frozen=True)
class SignatureReport:
    field_name: str
    signer: str
    signing_time: datetime | None
    intact: bool
    valid: bool
    trusted: bool
    covers_whole_file: bool
    reason: str | None
    location: str | None
    timestamp_time: datetime | None = None  # from a trusted timestamp authority (PAdES B-T)
    timestamp_trusted: bool = False


@dataclass(frozen=True)
class VerificationReport:
    sha256: str
    tampering: Tampering
    signatures: list[SignatureReport] = field(default_factory=list)
    brief_numbers_seen: list[str] = field(default_factory=list)

    @property
    def intact_and_trusted(self) -> bool:
        return (
            self.tampering is Tampering.NONE
            and bool(self.signatures)
            and all(s.intact and s.valid and s.trusted for s in self.signatures)
        )


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _signer_name(status) -> str:
    cert = status.signing_cert
    return cert.subject.human_friendly if cert is not None else ""


def _report(embedded, status) -> SignatureReport:
    from pyhanko.sign.validation.status import SignatureCoverageLevel

    sig_object = embedded.sig_object
    timestamp = status.timestamp_validity
    return SignatureReport(
        field_name=embedded.field_name,
        signer=_signer_name(status),
        signing_time=embedded.self_reported_timestamp,
        intact=bool(status.intact),
        valid=bool(status.valid),
        trusted=bool(status.trusted),
        covers_whole_file=status.coverage == SignatureCoverageLevel.ENTIRE_FILE,
        reason=str(sig_object["/Reason"]) if "/Reason" in sig_object else None,
        location=str(sig_object["/Location"]) if "/Location" in sig_object else None,
        timestamp_time=timestamp.timestamp if timestamp is not None else None,
        timestamp_trusted=bool(timestamp is not None and timestamp.trusted),
    )


def _tampering(reports: list[SignatureReport]) -> Tampering:
    if not reports:
        return Tampering.SIGNATURE_MISSING
    if not all(r.intact for r in reports):
        return Tampering.BYTES_CHANGED
    if not reports[-1].covers_whole_file:
        return Tampering.CONTENT_APPENDED
    return Tampering.NONE


def _numbers_in_document_info(reader) -> set[str]:
    """Brief numbers in the title, subject or keywords (streams may be compressed)."""
    info = reader.trailer_view.get("/Info")
    if info is None:
        return set()
    info = info.get_object()
    text = " ".join(str(info.get(key, "")) for key in ("/Title", "/Subject", "/Keywords"))
    return {m.decode() for m in BRIEF_NUMBER.findall(text.encode("utf-8", "ignore"))}


def verify_pdf(
    pdf: bytes, trust_roots: list, *, budget_s: float | None = None
) -> VerificationReport:
    """Validate every signature in ``pdf`` against ``trust_roots`` (asn1crypto certificates).

    With ``budget_s``, :class:`TooComplex` is raised once that many seconds have passed,
    checked after parsing and before each signature (the caller bounds the file's size and
    object counts first, so that parsing itself stays short).
    """
    deadline = None if budget_s is None else time.monotonic() + budget_s
    return outside_event_loop(_verify_pdf, pdf, trust_roots, deadline)


def _in_budget(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise TooComplex("time budget spent")


def _verify_pdf(pdf: bytes, trust_roots: list, deadline: float | None = None) -> VerificationReport:
    # pyHanko on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.errors import SignatureValidationError
    from pyhanko_certvalidator import ValidationContext

    digest = sha256_hex(pdf)
    numbers = {m.decode() for m in BRIEF_NUMBER.findall(pdf)}
    try:
        reader = PdfFileReader(BytesIO(pdf), strict=False)
        embedded = list(reader.embedded_signatures)
        numbers |= _numbers_in_document_info(reader)
    except Exception:  # noqa: BLE001 - any parse failure means "not a PDF we can read"
        return VerificationReport(digest, Tampering.UNREADABLE, [], sorted(numbers))
    _in_budget(deadline)
    numbers = sorted(numbers)
    context = ValidationContext(trust_roots=trust_roots, allow_fetching=False)
    reports = []
    for signature in embedded:
        _in_budget(deadline)
        try:
            status = validate_pdf_signature(signature, signer_validation_context=context)
        except (SignatureValidationError, ValueError):
            reports.append(_broken_report(signature))
            continue
        reports.append(_report(signature, status))
    return VerificationReport(digest, _tampering(reports), reports, numbers)


def _broken_report(embedded) -> SignatureReport:
    return SignatureReport(
        field_name=embedded.field_name,
        signer="",
        signing_time=None,
        intact=False,
        valid=False,
        trusted=False,
        covers_whole_file=False,
        reason=None,
        location=None,
    )
