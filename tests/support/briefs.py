"""Signed test PDFs and signing settings pointing at a throw-away development PKI."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import weasyprint

from advisor.brief.pki import create_dev_pki
from advisor.brief.signing import SignatureRequest, SigningConfig, sign_pdf
from advisor.brief.verify import sha256_hex

PASSPHRASE = "tests-only"


@dataclass(frozen=True)
class SignedPdf:
    number: str
    unsigned: bytes
    signed: bytes

    @property
    def sha256(self) -> str:
        return sha256_hex(self.signed)

    @property
    def unsigned_sha256(self) -> str:
        return sha256_hex(self.unsigned)


def signing_settings(directory: Path) -> dict:
    return {
        "PKCS12_PATH": directory / "dev-signer.p12",
        "PASSPHRASE": PASSPHRASE,
        "PASSPHRASE_FILE": directory / "none",
        "TRUST_ROOTS": [directory / "dev-ca.pem"],
        "SIGNER_NAME": "Test Signer",
        "ORGANISATION": "Test Org",
        "LOCATION": "Guiyang",
        "TIMESTAMP_URL": None,
    }


def make_pki(directory: Path):
    return create_dev_pki(directory, PASSPHRASE, "Test Org", "Test Signer")


def make_signed_pdf(directory: Path, number: str = "FT-2026-000007") -> SignedPdf:
    html = (
        f"<html lang='en'><head><title>Procurement brief {number}</title></head>"
        f"<body><h1>{number}</h1></body></html>"
    )
    unsigned = weasyprint.HTML(string=html).write_pdf(pdf_variant="pdf/a-3b")
    config = SigningConfig(directory / "dev-signer.p12", PASSPHRASE, "Test Signer", "Guiyang")
    signed = sign_pdf(unsigned, config, SignatureRequest(reason=f"Procurement brief {number}"))
    return SignedPdf(number, unsigned, signed)
