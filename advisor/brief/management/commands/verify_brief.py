from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from advisor.brief.verification import NotAPdf, verify_upload


class Command(BaseCommand):
    help = (
        "Verify a brief PDF: signature intact and trusted, unchanged since signing, and on "
        "record. Exit status 0 only when all hold."
    )

    def add_arguments(self, parser):
        parser.add_argument("pdf", type=Path)

    def handle(self, *args, pdf: Path, **options):
        if not pdf.is_file():
            raise CommandError(f"{pdf}: no such file")
        try:
            result = verify_upload(pdf.read_bytes())
        except NotAPdf as error:
            raise CommandError(f"{pdf}: not a PDF we accept ({error})") from error
        report = result.report
        lines = [f"sha256: {report.sha256}", f"tampering: {report.tampering.value}"]
        for signature in report.signatures:
            lines.append(
                f"signature {signature.field_name}: intact={signature.intact} "
                f"valid={signature.valid} trusted={signature.trusted} signer={signature.signer!r} "
                f"time={signature.signing_time}"
            )
        if result.brief:
            approver = result.brief.approved_by.get_username() if result.brief.approved_by else "-"
            lines.append(
                f"on record: {result.brief.number} status={result.brief.status} approver={approver}"
            )
        elif result.superseded_draft_of:
            lines.append(f"superseded draft of brief {result.superseded_draft_of.number}")
        elif result.stripped_from:
            lines.append(f"signature stripped from brief {result.stripped_from.number}")
        else:
            lines.append("on record: no")
        self.stdout.write("\n".join(lines))
        if not result.ok:
            raise CommandError("verification failed", returncode=1)
