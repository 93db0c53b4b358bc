"""PAdES signing of brief PDFs with pyHanko.

B-B (no timestamp) by default, fully offline; B-T when a timestamp authority URL is
configured. Called only from synchronous code: pyHanko runs its own event loop.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyhanko.sign import signers

SIGNATURE_FIELD = "BriefSignature"
# The development CA (advisor.brief.pki, `manage.py make_dev_signing_cert`) is named
# "<organisation> Development CA"; production refuses any signer it issued.
DEVELOPMENT_CA_SUFFIX = "Development CA"


def is_development_ca(common_name: str) -> bool:
    """Whether a CA's common name is that of a development CA made by advisor.brief.pki."""
    return str(common_name).strip().endswith(DEVELOPMENT_CA_SUFFIX)


class SigningError(Exception):
    """The signing key could not be loaded or the PDF could not be signed.

    The message is for the operator's log (it may name files); never show it to a buyer."""


@dataclass(frozen=True)
class SigningConfig:
    pkcs12_path: Path
    passphrase: str
    signer_name: str | None
    location: str
    timestamp_url: str | None = None
    refuse_development: bool = False  # production: a development CA's signer is refused


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


# Opening the PKCS#12 file (key derivation and RSA key parsing) took about 0.25 s of the 1.3 s a
# brief's render and signature take (bench/brief_render.py), on every signature. The signer is
# kept per process and read again when the file changes (a rotated key: new size or mtime) or
# another passphrase is configured; one entry per key file.
_signers: dict[str, tuple[tuple, signers.SimpleSigner]] = {}
_signers_lock = threading.Lock()


def _key_file_state(config: SigningConfig) -> tuple:
    try:
        stat = config.pkcs12_path.stat()
    except FileNotFoundError:
        raise SigningError(f"signing key not found: {config.pkcs12_path}") from None
    passphrase = hashlib.sha256(config.passphrase.encode()).hexdigest()
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino, passphrase)


@functools.cache
def _kept_key_signer_class() -> type:
    # pyHanko and cryptography on first use (docs/decisions/0037)
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ec import ECDSA
    from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
    from pyhanko.sign import signers
    from pyhanko_certvalidator.util import get_pyca_cryptography_hash, process_pss_params

    class KeptKeySigner(signers.SimpleSigner):
        """pyHanko's SimpleSigner that parses its private key once, not at every signature.

        pyHanko parses the key from DER (and OpenSSL checks an RSA key) at each raw signature,
        twice per PDF (a dry run sizes the signature first): 158 ms each for our 3072-bit RSA
        key, 410 ms for a 4096-bit one, most of a brief's signing time. The parsed key is kept
        with the signer (itself kept per process, ``load_signer``). RSA (PKCS#1 v1.5 and PSS)
        and ECDSA are signed here; any other mechanism goes to pyHanko's own code."""

        _parsed_key = None

        def _private_key(self):
            if self._parsed_key is None:
                der = self.signing_key.dump()
                self._parsed_key = serialization.load_der_private_key(der, password=None)
            return self._parsed_key

        def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
            mechanism = self.get_signature_mechanism_for_digest(digest_algorithm)
            try:
                algorithm = mechanism.signature_algo
            except ValueError:
                algorithm = mechanism["algorithm"].native
            if algorithm == "rsassa_pkcs1v15":
                hash_algorithm = get_pyca_cryptography_hash(digest_algorithm)
                return self._private_key().sign(data, PKCS1v15(), hash_algorithm)
            if algorithm == "rsassa_pss":
                padding, hash_algorithm = process_pss_params(mechanism["parameters"])
                return self._private_key().sign(data, padding, hash_algorithm)
            if algorithm == "ecdsa":
                hash_algorithm = get_pyca_cryptography_hash(digest_algorithm)
                return self._private_key().sign(data, ECDSA(hash_algorithm))
            return super().sign_raw(data, digest_algorithm)

    return KeptKeySigner


def load_signer(config: SigningConfig) -> signers.SimpleSigner:
    """The signer for ``config``'s key file, read once per process and again when it changes."""
    path = str(config.pkcs12_path.resolve())
    state = _key_file_state(config)
    with _signers_lock:
        cached = _signers.get(path)
        if cached is not None and cached[0] == state:
            return cached[1]
    from pyhanko.sign import signers  # on first use (docs/decisions/0037)

    loaded = signers.SimpleSigner.load_pkcs12(path, passphrase=config.passphrase.encode())
    if loaded is None:
        raise SigningError(f"could not open {config.pkcs12_path} (wrong passphrase?)")
    signer = _kept_key_signer_class()(
        signing_cert=loaded.signing_cert,
        signing_key=loaded.signing_key,
        cert_registry=loaded.cert_registry,
    )
    with _signers_lock:
        _signers[path] = (state, signer)
    return signer


def sign_pdf(pdf: bytes, config: SigningConfig, request: SignatureRequest) -> bytes:
    """Return ``pdf`` with a PAdES signature appended as an incremental update."""
    return outside_event_loop(_sign_pdf, pdf, config, request)


def _sign_pdf(pdf: bytes, config: SigningConfig, request: SignatureRequest) -> bytes:
    # pyHanko on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers, timestamps

    signer = load_signer(config)
    if config.refuse_development:
        issuer = signer.signing_cert.issuer.native.get("common_name", "")
        if is_development_ca(issuer):
            raise SigningError(
                f"refused the development signer {config.pkcs12_path} (issued by {issuer!r}) "
                "in production: set BRIEF_SIGNING_PKCS12 to the organisation's own key"
            )
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


APPROVAL_FIELD = "ApprovalSignature"


def sign_pdf_as(
    pdf: bytes, pkcs12_data: bytes, passphrase: str, request: SignatureRequest, location: str
) -> bytes:
    """``pdf`` with a further signature by the holder of ``pkcs12_data`` (an approver's own
    certificate), appended as an incremental update: an approval signature over the earlier
    ones, which stay valid."""
    return outside_event_loop(_sign_pdf_as, pdf, pkcs12_data, passphrase, request, location)


def _sign_pdf_as(pdf, pkcs12_data, passphrase, request, location) -> bytes:
    # pyHanko on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers

    signer = signers.SimpleSigner.load_pkcs12_data(
        pkcs12_data, other_certs=(), passphrase=passphrase.encode("utf-8")
    )
    if signer is None:
        raise SigningError("the approver's certificate could not be opened")
    metadata = signers.PdfSignatureMetadata(
        field_name=request.field_name,
        reason=request.reason,
        location=location,
        contact_info=request.contact_info or None,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
    )
    writer = IncrementalPdfFileWriter(BytesIO(pdf))
    return signers.PdfSigner(metadata, signer=signer).sign_pdf(writer).getvalue()
