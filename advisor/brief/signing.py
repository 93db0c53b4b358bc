"""PAdES signing of brief PDFs with pyHanko.

The level follows the configuration (docs/decisions/0117-long-term-signatures.md): B-LT when a
timestamp authority is configured and the validation data (the certificates' chains and their
revocation information: CRLs or OCSP responses, from files the operator supplies or fetched)
can be had for every signer and the timestamp authority; B-T with a timestamp only; B-B
without one. A level that cannot be reached when signing raises :class:`LevelUnavailable`,
and the caller signs again one level lower, stating that level in the document. Called only
from synchronous code: pyHanko runs its own event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import textwrap
import threading
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
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


class LevelUnavailable(SigningError):
    """The timestamp or the validation data a signature level needs could not be had."""


# PAdES baseline levels (ETSI EN 319 142-1), highest first.
LEVEL_LT = "B-LT"  # timestamp + validation data (certificates, revocation information) in the DSS
LEVEL_T = "B-T"  # a trusted timestamp over the signature
LEVEL_B = "B-B"  # the signature alone: its time is the signer's own claim
LEVELS = (LEVEL_LT, LEVEL_T, LEVEL_B)


@dataclass(frozen=True)
class ValidationSources:
    """Where the validation data of a B-LT signature come from."""

    trust_roots: tuple[Path, ...]
    revocation_files: tuple[Path, ...] = ()  # CRLs (DER or PEM) an offline CA publishes
    fetch: bool = False  # fetch CRLs and OCSP responses from the certificates' addresses


@dataclass(frozen=True)
class TokenKey:
    """A signing key held on a PKCS#11 token (an HSM, a smart card), used in place of a PKCS#12
    file (docs/decisions/0137): the token's module, its label, the key's label and/or id (the
    certificate stored beside it under the same label/id) and the user PIN."""

    module_path: Path
    token_label: str
    key_label: str | None
    key_id: bytes | None
    pin: str = field(repr=False)

    def __str__(self) -> str:
        key = self.key_label or (self.key_id or b"").hex()
        return f"PKCS#11 token {self.token_label!r} key {key!r} ({self.module_path})"


@dataclass(frozen=True)
class SigningConfig:
    pkcs12_path: Path | None
    passphrase: str
    signer_name: str | None
    location: str
    timestamp_url: str | None = None
    refuse_development: bool = False  # production: a development CA's signer is refused
    validation: ValidationSources | None = None  # B-LT's validation data, with a timestamp
    # A pyHanko TimeStamper used instead of ``timestamp_url`` (a local test authority).
    timestamper: object | None = field(default=None, compare=False)
    token: TokenKey | None = None  # set: the key is on this token, ``pkcs12_path`` unused

    @property
    def key_name(self) -> str:
        """Where the key is, for the operator's log."""
        return str(self.token) if self.token is not None else str(self.pkcs12_path)

    @property
    def timestamped(self) -> bool:
        return bool(self.timestamp_url or self.timestamper)


def planned_level(config: SigningConfig) -> str:
    """The highest level ``config`` can sign at."""
    if not config.timestamped:
        return LEVEL_B
    return LEVEL_LT if config.validation is not None else LEVEL_T


def levels_from(level: str) -> tuple[str, ...]:
    """``level`` and the levels below it, the order a signature falls back in."""
    return LEVELS[LEVELS.index(level) :]


def _timestamper(config: SigningConfig, level: str):
    if level == LEVEL_B:
        return None
    if config.timestamper is not None:
        return config.timestamper
    from pyhanko.sign import timestamps  # on first use (docs/decisions/0037)

    return timestamps.HTTPTimeStamper(config.timestamp_url)


def _revocation_data(path: Path) -> bytes:
    """A CRL file's DER bytes (the file DER or PEM)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    data = path.read_bytes()
    if data.lstrip().startswith(b"-----BEGIN"):
        return x509.load_pem_x509_crl(data).public_bytes(Encoding.DER)
    return data


def validation_context(sources: ValidationSources):
    """The context B-LT signing gathers validation data with: the trust roots, the operator's
    CRLs and, if allowed, fetching; revocation information is required for every certificate
    below a trust root (a signature without it is not B-LT)."""
    from pyhanko.keys import load_cert_from_pemder
    from pyhanko_certvalidator import ValidationContext

    return ValidationContext(
        trust_roots=[load_cert_from_pemder(str(path)) for path in sources.trust_roots],
        crls=[_revocation_data(path) for path in sources.revocation_files],
        allow_fetching=sources.fetch,
        revocation_mode="require",
    )


def _signing_metadata(request, location, name, level, config: SigningConfig):
    from pyhanko.sign import fields, signers

    long_term = level == LEVEL_LT and config.validation is not None
    return signers.PdfSignatureMetadata(
        field_name=request.field_name,
        reason=request.reason,
        location=location,
        name=name,
        contact_info=request.contact_info or None,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
        embed_validation_info=long_term,
        validation_context=validation_context(config.validation) if long_term else None,
    )


def _sign_at(pdf: bytes, signer, metadata, timestamper, level: str, visible=None) -> bytes:
    """Sign; a failure of what only a higher level needs (the timestamp, validation data)
    raises LevelUnavailable. ``visible``: a function of the writer giving the signer's
    ``stamp_style``, ``new_field_spec`` and the stamp's text parameters (or None)."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers

    writer = IncrementalPdfFileWriter(BytesIO(pdf))
    appearance = visible(writer) if visible is not None else None
    options, params = appearance if appearance else ({}, None)
    try:
        return (
            signers.PdfSigner(metadata, signer=signer, timestamper=timestamper, **options)
            .sign_pdf(writer, appearance_text_params=params)
            .getvalue()
        )
    except Exception as error:
        if level == LEVEL_B or isinstance(error, KeyUnavailable):
            raise
        raise LevelUnavailable(f"{level} signature not possible: {error!r}") from error


async def async_sign_at(pdf: bytes, signer, metadata, timestamper, level: str, visible=None):
    """:func:`_sign_at` in a running event loop, for a signer that needs it (the remote signing
    service's, whose HTTP session belongs to the loop)."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers

    writer = IncrementalPdfFileWriter(BytesIO(pdf))
    appearance = visible(writer) if visible is not None else None
    options, params = appearance if appearance else ({}, None)
    try:
        signing = signers.PdfSigner(metadata, signer=signer, timestamper=timestamper, **options)
        output = await signing.async_sign_pdf(writer, appearance_text_params=params)
        return output.getvalue()
    except Exception as error:
        if level == LEVEL_B or isinstance(error, KeyUnavailable):
            raise
        raise LevelUnavailable(f"{level} signature not possible: {error!r}") from error


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


def sign_pdf(
    pdf: bytes, config: SigningConfig, request: SignatureRequest, level: str | None = None
) -> bytes:
    """Return ``pdf`` with a PAdES signature appended as an incremental update, at ``level``
    (default: the highest ``config`` can reach); LevelUnavailable when that level cannot be
    reached now."""
    return outside_event_loop(_sign_pdf, pdf, config, request, level or planned_level(config))


@contextlib.contextmanager
def token_signer(token: TokenKey):
    """pyHanko's signer for the key on ``token``, its session open for the ``with`` block (one
    session per signature: nothing of the token is kept across processes or signatures)."""
    from pyhanko.config.pkcs11 import PKCS11SignatureConfig, TokenCriteria
    from pyhanko.sign.pkcs11 import PKCS11SigningContext  # on first use (docs/decisions/0037)

    pkcs11_config = PKCS11SignatureConfig(
        module_path=str(token.module_path),
        token_criteria=TokenCriteria(label=token.token_label),
        key_label=token.key_label,
        key_id=token.key_id,
        cert_label=token.key_label,
        cert_id=token.key_id,
        user_pin=token.pin,
    )
    with contextlib.ExitStack() as stack:
        try:
            signer = stack.enter_context(PKCS11SigningContext(pkcs11_config))
            signer.signing_cert  # noqa: B018 (finds the key and certificate now)
        except Exception as error:
            raise KeyUnavailable(
                f"cannot use the {token}: {error!r}", token_fault(error)
            ) from error
        yield signer


class KeyUnavailable(SigningError):
    """An approver's key on a PKCS#11 token or at a remote signing service could not be used;
    ``fault`` says why in one word: "pin" (the PIN or code is wrong, locked or malformed),
    "token" (no token with that label, or the module cannot be loaded), "key" (no key or
    certificate under that label/id on the token; no such credential at the service) or
    "service" (the signing service cannot be reached or failed). Never a reason to sign again
    one level lower (a wrong PIN tried again can lock the key)."""

    def __init__(self, message: str, fault: str):
        super().__init__(message)
        self.fault = fault


PIN_FAULTS = ("PinIncorrect", "PinInvalid", "PinLenRange", "PinLocked", "PinExpired")


def token_fault(error: BaseException) -> str:
    """Why a token could not be used (``KeyUnavailable.fault``), from pyHanko's and
    python-pkcs11's exceptions (pyHanko wraps the latter; a missing object is a plain
    ``PKCS11Error`` naming it)."""
    seen = error
    while seen is not None:
        if type(seen).__name__ in PIN_FAULTS:
            return "pin"
        text = str(seen)
        if "Could not find" in text:
            return "key"
        seen = seen.__cause__ or seen.__context__
    return "token"


def token_certificate(token: TokenKey):
    """The certificate stored with the key on ``token`` (asn1crypto); SigningError if the
    token, the key or the certificate cannot be had."""
    with token_signer(token) as signer:
        return signer.signing_cert


def _sign_pdf(pdf: bytes, config: SigningConfig, request: SignatureRequest, level: str) -> bytes:
    if config.token is not None:
        with token_signer(config.token) as signer:
            return _sign_with(pdf, signer, config, request, level)
    return _sign_with(pdf, load_signer(config), config, request, level)


def _sign_with(pdf: bytes, signer, config: SigningConfig, request, level: str) -> bytes:
    if config.refuse_development:
        issuer = signer.signing_cert.issuer.native.get("common_name", "")
        if is_development_ca(issuer):
            raise SigningError(
                f"refused the development signer {config.key_name} (issued by {issuer!r}) "
                "in production: set BRIEF_SIGNING_PKCS12 to the organisation's own key"
            )
    metadata = _signing_metadata(request, config.location, config.signer_name, level, config)
    return _sign_at(pdf, signer, metadata, _timestamper(config, level), level)


APPROVAL_FIELD = "ApprovalSignature"


def sign_pdf_as(
    pdf: bytes,
    pkcs12_data: bytes,
    passphrase: str,
    request: SignatureRequest,
    location: str,
    config: SigningConfig | None = None,
    level: str = LEVEL_B,
) -> bytes:
    """``pdf`` with a further signature by the holder of ``pkcs12_data`` (an approver's own
    certificate), appended as an incremental update: an approval signature over the earlier
    ones, which stay valid. At ``level`` with ``config``'s timestamp authority and validation
    data; LevelUnavailable when that level cannot be reached now."""
    return outside_event_loop(
        _sign_pdf_as, pdf, pkcs12_data, passphrase, request, location, config, level
    )


def sign_pdf_with_token_as(
    pdf: bytes,
    token: TokenKey,
    request: SignatureRequest,
    location: str,
    config: SigningConfig | None = None,
    level: str = LEVEL_B,
) -> bytes:
    """As :func:`sign_pdf_as`, with the approver's key on their PKCS#11 token (decision 0149):
    the token signs; KeyUnavailable when it cannot be used (wrong PIN, token or key absent)."""
    return outside_event_loop(_sign_with_token_as, pdf, token, request, location, config, level)


def _sign_with_token_as(pdf, token, request, location, config, level) -> bytes:
    with token_signer(token) as signer:
        return _approval_with(pdf, signer, request, location, config, level)


def _sign_pdf_as(pdf, pkcs12_data, passphrase, request, location, config, level) -> bytes:
    # pyHanko on first use (docs/decisions/0037-pdf-libraries-on-first-use.md)
    from pyhanko.sign import signers

    signer = signers.SimpleSigner.load_pkcs12_data(
        pkcs12_data, other_certs=(), passphrase=passphrase.encode("utf-8")
    )
    if signer is None:
        raise SigningError("the approver's certificate could not be opened")
    return _approval_with(pdf, signer, request, location, config, level)


def approval_parts(signer, request, location, config, level):
    """What an approval signature by ``signer`` is made with: its metadata, timestamper and
    visible stamp (in the sign-off table), at the approver's own location (their
    certificate's) or ``location``, and its level (B-B without ``config``)."""
    if config is None:
        level = LEVEL_B
        config = SigningConfig(Path(), "", None, location)
    location = certificate_location(signer.signing_cert) or location
    metadata = _signing_metadata(request, location, None, level, config)

    def visible(writer):
        return approval_appearance(writer, request, signer.signing_cert, location)

    return metadata, _timestamper(config, level), level, visible


def _approval_with(pdf, signer, request, location, config, level) -> bytes:
    """The approval signature by ``signer`` (whatever holds the key), visible in the sign-off
    table."""
    metadata, timestamper, level, visible = approval_parts(signer, request, location, config, level)
    return _sign_at(pdf, signer, metadata, timestamper, level, visible)


# Where the approval signature shows: the element of the sign-off table with this id (WeasyPrint
# writes it as a named destination at its top left), and the box's size in points (the
# template gives the element the same size, brief/pdf.css ``.signature-box``: 34 × 20 mm).
APPROVAL_ANCHOR = "approval-signature"
APPROVAL_BOX_PT = (34 * 72 / 25.4, 20 * 72 / 25.4)
STAMP_LINE_CHARS = 30  # a reason or location longer than this wraps
STAMP_FONT = Path(__file__).resolve().parent / "fonts" / "BriefSans-Regular.otf"


def certificate_location(certificate) -> str:
    """Where the certificate's holder is, from its subject (locality, province, country)."""
    subject = certificate.subject.native
    parts = [
        subject.get(key)
        for key in ("locality_name", "state_or_province_name", "country_name")
        if subject.get(key)
    ]
    return ", ".join(str(p) for p in parts)


def named_destination(reader, name: str) -> tuple[int, float, float] | None:
    """The page index and top-left point of the named destination ``name``, or None."""
    names = _resolved(reader.root, "/Names")
    pending = [_resolved(names, "/Dests")] if names is not None else []
    target = None
    while pending and target is None:
        node = pending.pop()
        if node is None:
            continue
        pairs = list(_resolved(node, "/Names") or ())
        for key, value in zip(pairs[::2], pairs[1::2], strict=False):
            if str(key) == name:
                target = value.get_object()
                break
        pending.extend(kid.get_object() for kid in _resolved(node, "/Kids") or ())
    if target is None or len(target) < 4:
        return None
    first = target.raw_get(0)  # the page, unresolved (pyHanko's arrays resolve on [])
    page_ref = first.reference if hasattr(first, "reference") else None
    count = int(reader.root["/Pages"]["/Count"])
    for index in range(count):
        ref, _resources = reader.find_page_for_modification(index)
        if page_ref is not None and ref.idnum == page_ref.idnum:
            return index, float(target[2]), float(target[3])
    return None


def _resolved(dictionary, key):
    try:
        return dictionary[key]  # pyHanko's dictionaries resolve on []
    except (KeyError, TypeError):
        return None


def stamp_lines(text: str) -> str:
    """``text`` wrapped for the stamp: at spaces within STAMP_LINE_CHARS columns, and a run of
    Chinese (two columns a character, no spaces) cut where it reaches them."""
    lines = []
    for line in textwrap.wrap(text, STAMP_LINE_CHARS):
        current, width = "", 0
        for char in line:
            step = 2 if unicodedata.east_asian_width(char) in "WF" else 1
            if width + step > STAMP_LINE_CHARS:
                lines.append(current.rstrip())
                current, width = "", 0
            current += char
            width += step
        lines.append(current)
    return "\n".join(line for line in lines if line)


def approval_appearance(writer, request: SignatureRequest, certificate, location: str):
    """The approval signature's visible stamp over the sign-off table's approver cell: the
    signer's name, the time, the reason and the signer's location; None without the anchor."""
    from pyhanko import stamp
    from pyhanko.pdf_utils.font.opentype import GlyphAccumulatorFactory
    from pyhanko.pdf_utils.text import TextBoxStyle
    from pyhanko.sign import fields

    found = named_destination(writer.prev, APPROVAL_ANCHOR)
    if found is None:
        return None
    page, left, top = found
    width, height = APPROVAL_BOX_PT
    spec = fields.SigFieldSpec(
        sig_field_name=request.field_name,
        on_page=page,
        box=(round(left), round(top - height), round(left + width), round(top)),
    )
    style = stamp.TextStampStyle(
        stamp_text="%(signer)s\n%(ts)s\n%(reason)s\n%(location)s",
        text_box_style=TextBoxStyle(
            font=GlyphAccumulatorFactory(str(STAMP_FONT), font_size=7), leading=10
        ),
        border_width=1,
        timestamp_format="%Y-%m-%d %H:%M %Z",
    )
    params = {
        "reason": stamp_lines(request.reason),
        "location": stamp_lines(location),
    }
    return {"stamp_style": style, "new_field_spec": spec}, params
