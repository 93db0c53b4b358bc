"""PAdES signing of brief PDFs with pyHanko.

B-B (no timestamp) by default, fully offline; B-T when a timestamp authority URL is
configured. Called only from synchronous code: pyHanko runs its own event loop.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers, timestamps

SIGNATURE_FIELD = "BriefSignature"


class SigningError(Exception):
    """The signing key could not be loaded or the PDF could not be signed."""


@dataclass(frozen=True)
class SigningConfig:
    pkcs12_path: Path
    passphrase: str
    signer_name: str
    location: str
    timestamp_url: str | None = None


@dataclass(frozen=True)
class SignatureRequest:
    reason: str
    contact_info: str = ""
    field_name: str = SIGNATURE_FIELD


def outside_event_loop(function, *args, **kwargs):
    """Call ``function`` where no asyncio loop runs: pyHanko's sync API starts its own loop,
    which fails inside a running one (an async view, Playwright's sync API in tests)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return function(*args, **kwargs)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args, **kwargs).result()


def load_signer(config: SigningConfig) -> signers.SimpleSigner:
    if not config.pkcs12_path.exists():
        raise SigningError(f"signing key not found: {config.pkcs12_path}")
    signer = signers.SimpleSigner.load_pkcs12(
        str(config.pkcs12_path), passphrase=config.passphrase.encode()
    )
    if signer is None:
        raise SigningError(f"could not open {config.pkcs12_path} (wrong passphrase?)")
    return signer


def sign_pdf(pdf: bytes, config: SigningConfig, request: SignatureRequest) -> bytes:
    """Return ``pdf`` with a PAdES signature appended as an incremental update."""
    return outside_event_loop(_sign_pdf, pdf, config, request)


def _sign_pdf(pdf: bytes, config: SigningConfig, request: SignatureRequest) -> bytes:
    signer = load_signer(config)
    metadata = signers.PdfSignatureMetadata(
        field_name=request.field_name,
        reason=request.reason,
        location=config.location,
        name=config.signer_name,
        contact_info=request.contact_info or None,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
    )
    timestamper = timestamps.HTTPTimeStamper(config.timestamp_url) if config.timestamp_url else None
    writer = IncrementalPdfFileWriter(BytesIO(pdf))
    output = signers.PdfSigner(metadata, signer=signer, timestamper=timestamper).sign_pdf(writer)
    return output.getvalue()
