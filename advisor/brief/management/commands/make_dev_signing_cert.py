import secrets
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from advisor.brief.pki import create_dev_pki


class Command(BaseCommand):
    help = (
        "Create a development CA and brief-signing certificate (PKCS#12) under var/signing/. "
        "Never use it in production: configure BRIEF_SIGNING_PKCS12 instead."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-missing", action="store_true", help="Do nothing when the files already exist."
        )
        parser.add_argument("--directory", type=Path, default=settings.SIGNING_DIR)

    def handle(self, *args, if_missing=False, directory=None, **options):
        if settings.PRODUCTION:
            raise CommandError("Development signing certificates are not made in production mode.")
        target = directory / "dev-signer.p12"
        if if_missing and target.exists():
            self.stdout.write(f"Development signing certificate present: {target}")
            return
        signing = settings.BRIEF_SIGNING
        pki = create_dev_pki(
            directory,
            passphrase=secrets.token_urlsafe(24),
            organisation=signing["ORGANISATION"],
            signer_name=signing["SIGNER_NAME"],
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Development CA {pki.ca_cert_path} and signer {pki.signer_pkcs12_path} created."
            )
        )
