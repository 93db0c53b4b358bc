"""``manage.py verify_brief FILE``: the verify page's check, as one line.

The same path as the page (advisor.brief.verification.verify_upload): the visible counts, then a
child process under hard limits, one of the host's verification slots (waiting up to
``--wait`` seconds for one), and the records. Whatever happens, one line: the verdict on stdout
when the file is intact, trusted and on record (exit 0), otherwise on stderr (exit 1: not
verified or not checked; exit 2: not a PDF we accept).
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from advisor.brief.signing import APPROVAL_FIELD
from advisor.brief.verification import MAX_PDF_BYTES, Busy, NotAPdf, Verification, verify_upload
from advisor.brief.verify import Tampering

NOT_ACCEPTED = {
    "empty": "empty file",
    "too-large": f"larger than {MAX_PDF_BYTES // (1024 * 1024)} MB",
    "not-pdf": "not a PDF",
    "too-complex": "far more objects, form fields or signatures than any brief (not checked)",
    "stopped": "checking it needed more time or memory than allowed (stopped)",
    "failed": "the check failed on our side (see the log)",
}
NOT_VERIFIED = 1
NOT_ACCEPTED_STATUS = 2


def verdict(result: Verification) -> str:
    report = result.report
    if result.ok and result.superseded:
        return "intact, trusted and on record, but superseded (it no longer holds)"
    if result.ok:
        return "intact, trusted and on record"
    if report.tampering is Tampering.BYTES_CHANGED:
        return "changed after signing: signed bytes were altered"
    if report.tampering is Tampering.CONTENT_APPENDED:
        return "changed after signing: content appended after the signature"
    if result.stripped:
        return "signature removed"
    if report.tampering is Tampering.SIGNATURE_MISSING:
        return "no signature"
    if report.tampering is Tampering.UNREADABLE:
        return "unreadable as a PDF"
    if result.untrusted:
        return "not signed by us: the certificate does not chain to our trust roots"
    if not result.on_record:
        return "signature intact, but not in our records"
    if result.approval_doubt:
        return "issued by us, but the approval signature does not vouch for the approver on record"
    return "signature not trusted"


def signature_role(signature) -> str:
    """Whose signature: the approver's own (approval) or the issuing system's."""
    return "approver" if signature.field_name == APPROVAL_FIELD else "issuer"


def summary(pdf: Path, result: Verification) -> str:
    report = result.report
    parts = [f"{pdf}: {verdict(result)}", f"tampering: {report.tampering.value}"]
    for signature in report.signatures:
        parts.append(
            f"signature {signature.field_name!r} ({signature_role(signature)}): "
            f"intact={signature.intact} "
            f"valid={signature.valid} trusted={signature.trusted} signer={signature.signer!r} "
            f"time={signature.signing_time} chain={' > '.join(signature.chain) or '-'}"
        )
    if result.brief:
        approver = result.brief.approved_by.get_username() if result.brief.approved_by else "-"
        parts.append(
            f"on record: {result.brief.number} status={result.brief.status} approver={approver}"
        )
        if result.superseded:
            standing = result.standing
            parts.append(
                f"superseded since={standing.since.isoformat() if standing.since else '-'} "
                f"verdict when issued={standing.then_verdict} now={standing.now_verdict or 'gone'}"
            )
    elif result.superseded_draft_of:
        parts.append(f"superseded draft of brief {result.superseded_draft_of.number}")
    elif result.stripped_from:
        parts.append(f"signature stripped from brief {result.stripped_from.number}")
    else:
        parts.append("on record: no")
    parts.append(f"sha256: {report.sha256}")
    return "; ".join(parts)


class Command(BaseCommand):
    help = (
        "Verify a brief PDF: signature intact and trusted, unchanged since signing, and on "
        "record. Prints one line; exit status 0 only when all hold (1: not verified, 2: not a "
        "PDF we accept)."
    )

    def add_arguments(self, parser):
        parser.add_argument("pdf", type=Path)
        parser.add_argument(
            "--wait",
            type=float,
            default=30.0,
            help="seconds to wait for a free verification slot (default 30)",
        )

    def handle(self, *args, pdf: Path, wait: float, **options):
        try:
            data = pdf.read_bytes()
        except OSError as error:
            raise CommandError(
                f"{pdf}: cannot read the file ({error.strerror or error.__class__.__name__})",
                returncode=NOT_ACCEPTED_STATUS,
            ) from None
        try:
            result = verify_upload(data, wait_s=max(0.0, wait))
        except NotAPdf as error:
            raise CommandError(
                f"{pdf}: not a PDF we accept: {NOT_ACCEPTED[str(error)]}",
                returncode=NOT_ACCEPTED_STATUS,
            ) from None
        except Busy:
            raise CommandError(
                f"{pdf}: not checked: every verification slot stayed busy for {wait:g} s",
                returncode=NOT_VERIFIED,
            ) from None
        except DatabaseError as error:
            raise CommandError(
                f"{pdf}: checked, but the records cannot be read ({error.__class__.__name__})",
                returncode=NOT_VERIFIED,
            ) from None
        line = summary(pdf, result)
        if not result.ok:
            raise CommandError(line, returncode=NOT_VERIFIED)
        self.stdout.write(line)
