"""Check a PDF: is the signature intact, was the file changed after signing, who signed.

The result is plain data so that the verification page, the ``verify_brief`` command and
the audit log share one answer. Matching against our records (by SHA-256) is done by the
caller; this module only looks at the file.
"""

from __future__ import annotations

import enum
import hashlib
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from io import BytesIO

from advisor.brief.signing import LEVEL_B, LEVEL_LT, LEVEL_T, outside_event_loop

BRIEF_NUMBER = re.compile(rb"FT-\d{4}-\d{6}")

# Bounds on the document as parsed (docs/decisions/0019-verify-bounds.md), checked before
# pyHanko walks the form or validates a signature. A brief has a few hundred objects, two
# revisions, one form field and one signature; these leave a wide margin for any PDF we issue.
MAX_OBJECTS = 20_000  # cross-reference entries over all revisions, packed objects included
MAX_REVISIONS = 16  # incremental updates (each signature adds one)
MAX_FIELDS = 200  # form field and widget dictionaries, walked from /AcroForm /Fields
MAX_FIELD_DEPTH = 16  # /Kids levels below /Fields
MAX_SIGNATURES = 8  # filled signature fields (each one is validated)


class TooComplex(ValueError):
    """The document is beyond the bounds (``str()`` says which), or the time budget is spent."""


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
    # What was appended after this signature is at most further signatures and form filling
    # (an approver's signature over the system's), never content.
    only_signatures_after: bool = True
    # The certificate chain the signature was validated along, trust root first (empty when
    # no path to a trust root was found).
    chain: list[str] = field(default_factory=list)
    # Whom the signing certificate names: its common names and e-mail addresses (subject and
    # alternative names), to match an approval signature against the recorded approver.
    signer_common_names: list[str] = field(default_factory=list)
    signer_emails: list[str] = field(default_factory=list)
    level: str = ""  # PAdES B-B, B-T or B-LT, as the file shows it (decision 0117)
    # What follows the signature is only validation data (a B-LT signature's document
    # security store update), which pyHanko's modification analysis tells apart from content.
    only_validation_data_after: bool = False


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


def report_to_json(report: VerificationReport) -> dict:
    """The report as JSON-ready data (the child process sends it to the caller)."""
    data = asdict(report)
    data["tampering"] = report.tampering.value
    for signature in data["signatures"]:
        for key in ("signing_time", "timestamp_time"):
            if signature[key] is not None:
                signature[key] = signature[key].isoformat()
    return data


def report_from_json(data: dict) -> VerificationReport:
    signatures = []
    for signature in data["signatures"]:
        values = dict(signature)
        for key in ("signing_time", "timestamp_time"):
            if values[key] is not None:
                values[key] = datetime.fromisoformat(values[key])
        signatures.append(SignatureReport(**values))
    return VerificationReport(
        sha256=data["sha256"],
        tampering=Tampering(data["tampering"]),
        signatures=signatures,
        brief_numbers_seen=list(data["brief_numbers_seen"]),
    )


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _signer_name(status) -> str:
    cert = status.signing_cert
    return cert.subject.human_friendly if cert is not None else ""


def _as_list(value) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _signer_identity(status) -> tuple[list[str], list[str]]:
    """The signing certificate's common names and e-mail addresses."""
    cert = status.signing_cert
    if cert is None:
        return [], []
    subject = cert.subject.native
    emails = _as_list(subject.get("email_address"))
    for general_name in cert.subject_alt_name_value or ():
        if general_name.name == "rfc822_name":
            emails.append(str(general_name.native))
    return _as_list(subject.get("common_name")), emails


def signature_level(reader, status) -> str:
    """B-LT: a trusted-timestamped signature with revocation information in the document
    security store; B-T: timestamped; B-B otherwise."""
    if status.timestamp_validity is None:
        return LEVEL_B
    dss = _value(reader.root, "/DSS")
    if any(len(_value(dss, key, ()) or ()) for key in ("/CRLs", "/OCSPs")):
        return LEVEL_LT
    return LEVEL_T


def _report(embedded, status, level: str = "") -> SignatureReport:
    from pyhanko.sign.diff_analysis import ModificationLevel
    from pyhanko.sign.validation.status import SignatureCoverageLevel

    sig_object = embedded.sig_object
    timestamp = status.timestamp_validity
    common_names, emails = _signer_identity(status)
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
        only_signatures_after=status.modification_level is None
        or status.modification_level <= ModificationLevel.FORM_FILLING,
        chain=_chain(status),
        signer_common_names=common_names,
        signer_emails=emails,
        level=level,
        only_validation_data_after=status.modification_level is not None
        and status.modification_level <= ModificationLevel.LTA_UPDATES,
    )


def _chain(status) -> list[str]:
    path = getattr(status, "validation_path", None)
    if path is None:
        return []
    return [cert.subject.human_friendly for cert in path.iter_certs(include_root=True)]


def _tampering(reports: list[SignatureReport]) -> Tampering:
    if not reports:
        return Tampering.SIGNATURE_MISSING
    if not all(r.intact for r in reports):
        return Tampering.BYTES_CHANGED
    last = reports[-1]
    whole = last.covers_whole_file or last.only_validation_data_after
    if not whole or not all(r.only_signatures_after for r in reports):
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


def verify_pdf(pdf: bytes, trust_roots: list) -> VerificationReport:
    """Validate every signature in ``pdf`` against ``trust_roots`` (asn1crypto certificates).

    Raises :class:`TooComplex` when the parsed document is beyond the bounds (``check_bounds``).
    This runs in the calling process and cannot be interrupted: an upload from outside is
    checked in a child process with hard limits (``advisor.brief.verify_child``).
    """
    return outside_event_loop(_verify_pdf, pdf, trust_roots)


def check_bounds(reader) -> None:
    """Raise :class:`TooComplex` when the parsed document is beyond the bounds.

    Counted on what the reader resolved, not on the raw bytes: every cross-reference entry
    (objects packed in compressed object streams included, and each stream's own ``/N``), and
    the form fields walked from ``/AcroForm /Fields`` (iteratively, each object once) with a cap
    on their number, on the depth of ``/Kids`` and on filled signature fields. The walk stops
    at the first bound it passes, so it costs at most ``MAX_FIELDS`` object reads.
    """
    xrefs = reader.xrefs
    if xrefs.total_revisions > MAX_REVISIONS:
        raise TooComplex(f"more than {MAX_REVISIONS} revisions")
    objects = packed = 0
    for revision in range(xrefs.total_revisions):
        objects += len(xrefs.explicit_refs_in_revision(revision))
        for stream in xrefs.object_streams_used_in(revision):
            count = _value(stream.get_object(), "/N", 0)
            packed += count if isinstance(count, int) else MAX_OBJECTS + 1
        if objects > MAX_OBJECTS or packed > MAX_OBJECTS:
            raise TooComplex(f"more than {MAX_OBJECTS:,} objects")
    _check_fields(reader)


def _value(dictionary, key: str, default=None):
    """``dictionary[key]`` resolved (pyHanko's dictionaries resolve on ``[]``), or ``default``."""
    from pyhanko.pdf_utils import generic

    if not isinstance(dictionary, generic.DictionaryObject):
        return default
    try:
        return dictionary[key]
    except KeyError:
        return default


def _check_fields(reader) -> None:
    from pyhanko.pdf_utils import generic

    top = _value(_value(reader.root, "/AcroForm"), "/Fields")
    if not isinstance(top, generic.ArrayObject):
        return
    if len(top) > MAX_FIELDS:
        raise TooComplex(f"more than {MAX_FIELDS} form fields")
    pending = [(item, 1, None) for item in top.iterate()]
    seen: set[tuple[int, int]] = set()
    fields = signatures = 0
    while pending:
        item, depth, inherited_type = pending.pop()
        if isinstance(item, generic.IndirectObject):
            key = (item.reference.idnum, item.reference.generation)
            if key in seen:
                continue
            seen.add(key)
        node = item.get_object()
        fields += 1
        if fields > MAX_FIELDS:
            raise TooComplex(f"more than {MAX_FIELDS} form fields")
        if depth > MAX_FIELD_DEPTH:
            raise TooComplex(f"form fields nested more than {MAX_FIELD_DEPTH} deep")
        field_type = _value(node, "/FT", inherited_type)
        if field_type == "/Sig" and isinstance(_value(node, "/V"), generic.DictionaryObject):
            signatures += 1
            if signatures > MAX_SIGNATURES:
                raise TooComplex(f"more than {MAX_SIGNATURES} signatures")
        kids = _value(node, "/Kids")
        if isinstance(kids, generic.ArrayObject):
            if len(kids) > MAX_FIELDS:
                raise TooComplex(f"more than {MAX_FIELDS} form fields")
            pending.extend((kid, depth + 1, field_type) for kid in kids.iterate())


def _verify_pdf(pdf: bytes, trust_roots: list) -> VerificationReport:
    # pyHanko on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    digest = sha256_hex(pdf)
    numbers = {m.decode() for m in BRIEF_NUMBER.findall(pdf)}
    try:
        reader = PdfFileReader(BytesIO(pdf), strict=False)
    except Exception:  # noqa: BLE001 - any parse failure means "not a PDF we can read"
        return VerificationReport(digest, Tampering.UNREADABLE, [], sorted(numbers))
    try:
        check_bounds(reader)  # TooComplex goes to the caller
    except TooComplex:
        raise
    except Exception:  # noqa: BLE001 - an object the walk cannot read: not a PDF we can read
        return VerificationReport(digest, Tampering.UNREADABLE, [], sorted(numbers))
    try:
        embedded = list(reader.embedded_signatures)
        numbers |= _numbers_in_document_info(reader)
    except Exception:  # noqa: BLE001 - any parse failure means "not a PDF we can read"
        return VerificationReport(digest, Tampering.UNREADABLE, [], sorted(numbers))
    numbers = sorted(numbers)
    context = ValidationContext(trust_roots=trust_roots, allow_fetching=False)
    reports = []
    for signature in embedded:
        try:
            status = validate_pdf_signature(signature, signer_validation_context=context)
        except Exception:  # noqa: BLE001 - a signature that cannot be checked is broken
            reports.append(_broken_report(signature))
            continue
        reports.append(_report(signature, status, signature_level(reader, status)))
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
