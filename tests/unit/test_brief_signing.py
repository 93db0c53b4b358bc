"""Signing and verifying PDFs: intact, byte flip, appended page, stripped signature, trust."""

import shutil
import subprocess
from io import BytesIO

import pytest
import weasyprint
from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

from advisor.brief.pki import create_dev_pki
from advisor.brief.signing import (
    SignatureRequest,
    SigningConfig,
    SigningError,
    load_signer,
    sign_pdf,
)
from advisor.brief.verify import Tampering, verify_pdf

REASON = "Procurement brief FT-2026-000042"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return create_dev_pki(
        tmp_path_factory.mktemp("pki"), "test-pass", "Test Org", "Test Brief Signer"
    )


@pytest.fixture(scope="module")
def config(pki):
    return SigningConfig(pki.signer_pkcs12_path, "test-pass", "Test Brief Signer", "Guiyang")


@pytest.fixture(scope="module")
def unsigned():
    html = "<html lang='zh-Hans'><h1>采购简报 FT-2026-000042</h1><p>Procurement brief</p></html>"
    return weasyprint.HTML(string=html).write_pdf(pdf_variant="pdf/a-3b")


@pytest.fixture(scope="module")
def signed(unsigned, config):
    return sign_pdf(unsigned, config, SignatureRequest(reason=REASON))


@pytest.fixture(scope="module")
def root(pki):
    return load_cert_from_pemder(str(pki.ca_cert_path))


def test_signed_pdf_is_intact_trusted_and_names_signer(signed, root):
    report = verify_pdf(signed, [root])
    assert report.tampering is Tampering.NONE
    assert report.intact_and_trusted
    (signature,) = report.signatures
    assert "Test Brief Signer" in signature.signer
    assert signature.reason == REASON
    assert signature.location == "Guiyang"
    assert signature.signing_time is not None


def test_signing_keeps_pdf_17_for_pdf_a(signed):
    assert signed.startswith(b"%PDF-1.7")


def test_byte_flip_is_reported_as_changed_bytes(signed, unsigned, root):
    flipped = bytearray(signed)
    flipped[len(unsigned) // 2] ^= 0x01
    report = verify_pdf(bytes(flipped), [root])
    assert report.tampering is Tampering.BYTES_CHANGED
    assert not report.intact_and_trusted


def test_appended_page_is_reported(signed, root):
    writer = IncrementalPdfFileWriter(BytesIO(signed))
    page = generic.DictionaryObject(
        {
            generic.pdf_name("/Type"): generic.pdf_name("/Page"),
            generic.pdf_name("/MediaBox"): generic.ArrayObject(
                [generic.NumberObject(v) for v in (0, 0, 595, 842)]
            ),
            generic.pdf_name("/Resources"): generic.DictionaryObject(),
        }
    )
    writer.insert_page(page)
    out = BytesIO()
    writer.write(out)
    report = verify_pdf(out.getvalue(), [root])
    assert report.tampering is Tampering.CONTENT_APPENDED
    assert report.signatures[0].intact
    assert not report.intact_and_trusted


def test_stripped_signature_is_reported_missing(unsigned, root):
    report = verify_pdf(unsigned, [root])
    assert report.tampering is Tampering.SIGNATURE_MISSING
    assert not report.intact_and_trusted


def test_untrusted_root_is_not_trusted(signed, tmp_path):
    other = create_dev_pki(tmp_path, "x", "Other Org", "Other Signer")
    report = verify_pdf(signed, [load_cert_from_pemder(str(other.ca_cert_path))])
    assert report.signatures[0].intact
    assert not report.signatures[0].trusted
    assert not report.intact_and_trusted


def test_garbage_is_unreadable(root):
    assert verify_pdf(b"not a pdf at all", [root]).tampering is Tampering.UNREADABLE


def test_wrong_passphrase_is_a_signing_error(unsigned, pki):
    bad = SigningConfig(pki.signer_pkcs12_path, "wrong", "x", "y")
    with pytest.raises(SigningError):
        sign_pdf(unsigned, bad, SignatureRequest(reason=REASON))


def test_poppler_pdfsig_reports_valid_and_trusted(signed, pki, tmp_path):
    for tool in ("pdfsig", "certutil"):
        assert shutil.which(tool), f"{tool} is missing: scripts/setup --test installs it"
    nss = tmp_path / "nss"
    nss.mkdir()
    subprocess.run(["certutil", "-N", "-d", f"sql:{nss}", "--empty-password"], check=True)
    subprocess.run(
        ["certutil", "-A", "-n", "dev-ca", "-t", "CT,C,C", "-i", str(pki.ca_cert_path)]
        + ["-d", f"sql:{nss}"],
        check=True,
    )
    path = tmp_path / "signed.pdf"
    path.write_bytes(signed)
    result = subprocess.run(
        ["pdfsig", "-nssdir", f"sql:{nss}", str(path)], capture_output=True, text=True
    )
    assert "Signature is Valid." in result.stdout, result.stdout
    assert "Certificate is Trusted." in result.stdout, result.stdout


def test_timestamped_signature_with_a_local_tsa(unsigned, pki, root, tmp_path):
    from tests.support.tsa import local_tsa

    with local_tsa(tmp_path) as tsa:
        config = SigningConfig(
            pki.signer_pkcs12_path, "test-pass", "Test Brief Signer", "Guiyang", tsa.url
        )
        signed = sign_pdf(unsigned, config, SignatureRequest(reason=REASON))
        tsa_root = load_cert_from_pemder(str(tsa.ca_cert_path))
    report = verify_pdf(signed, [root, tsa_root])
    assert report.intact_and_trusted
    (signature,) = report.signatures
    assert signature.timestamp_time is not None
    assert signature.timestamp_trusted
    # Without the TSA's root the timestamp is still there but not trusted.
    untrusted = verify_pdf(signed, [root]).signatures[0]
    assert untrusted.timestamp_time is not None and not untrusted.timestamp_trusted


def test_unsigned_timestamp_is_absent_in_b_b(signed, root):
    (signature,) = verify_pdf(signed, [root]).signatures
    assert signature.timestamp_time is None


def test_signing_and_verifying_work_inside_a_running_event_loop(unsigned, config, root):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    async def inside_loop():
        signed = sign_pdf(unsigned, config, SignatureRequest(reason=REASON))
        return verify_pdf(signed, [root])

    # A thread of its own, so the test also runs where the browser tests' loop is running.
    with ThreadPoolExecutor(max_workers=1) as pool:
        report = pool.submit(asyncio.run, inside_loop()).result()
    assert report.intact_and_trusted


def test_the_signer_is_read_once_and_again_when_the_key_file_changes(pki, tmp_path):
    key = tmp_path / "signer.p12"
    shutil.copy(pki.signer_pkcs12_path, key)
    config = SigningConfig(key, "test-pass", "Test Brief Signer", "Guiyang")
    first = load_signer(config)
    assert load_signer(config) is first
    # A rotated key (the file replaced) is read again.
    replacement = tmp_path / "new.p12"
    shutil.copy(pki.signer_pkcs12_path, replacement)
    replacement.replace(key)
    assert load_signer(config) is not first
    # Another passphrase is never answered from the cache.
    with pytest.raises(SigningError):
        load_signer(SigningConfig(key, "wrong-pass", "Test Brief Signer", "Guiyang"))
    key.unlink()
    with pytest.raises(SigningError, match="not found"):
        load_signer(config)


def _pkcs12_for(private_key, path, passphrase=b"test-pass"):
    """A PKCS#12 file holding ``private_key`` and a self-signed certificate for it."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12
    from cryptography.x509.oid import NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Key Type Test")])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .sign(
            private_key,
            None if isinstance(private_key, ed25519.Ed25519PrivateKey) else hashes.SHA256(),
        )
    )
    path.write_bytes(
        pkcs12.serialize_key_and_certificates(
            b"signer", private_key, certificate, None, BestAvailableEncryption(passphrase)
        )
    )
    return SigningConfig(path, passphrase.decode(), "Key Type Test", "Guiyang")


def _verify_raw(signer, public_key, signature, data):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
    from pyhanko_certvalidator.util import process_pss_params

    mechanism = signer.get_signature_mechanism_for_digest("sha256")
    if isinstance(public_key, rsa.RSAPublicKey):
        if mechanism.signature_algo == "rsassa_pss":
            pss, hash_algorithm = process_pss_params(mechanism["parameters"])
            public_key.verify(signature, data, pss, hash_algorithm)
        else:
            public_key.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
    elif isinstance(public_key, ec.EllipticCurvePublicKey):
        public_key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
    else:
        assert isinstance(public_key, ed25519.Ed25519PublicKey)
        public_key.verify(signature, data)


@pytest.mark.parametrize("kind", ["rsa", "rsa-pss", "ecdsa", "ed25519"])
def test_every_key_type_signs_with_the_key_parsed_once(kind, tmp_path, monkeypatch):
    """The signer parses its private key once (pyHanko would parse it at every raw signature,
    twice per PDF: 158 ms each for a 3072-bit RSA key); RSA (PKCS#1 v1.5, PSS) and ECDSA are
    signed by our code, Ed25519 by pyHanko's; every raw signature verifies with the public key,
    and a whole PDF signed with an RSA or EC key is intact."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    private_key = {
        "rsa": lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048),
        "rsa-pss": lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048),
        "ecdsa": lambda: ec.generate_private_key(ec.SECP256R1()),
        "ed25519": ed25519.Ed25519PrivateKey.generate,
    }[kind]()
    config = _pkcs12_for(private_key, tmp_path / f"{kind}.p12")
    signer = load_signer(config)
    if kind == "rsa-pss":
        signer.prefer_pss = True

    parsed = []
    real_load = serialization.load_der_private_key
    monkeypatch.setattr(
        serialization,
        "load_der_private_key",
        lambda *args, **kwargs: parsed.append(1) or real_load(*args, **kwargs),
    )
    for data in (b"first brief", b"second brief"):
        _verify_raw(signer, private_key.public_key(), signer.sign_raw(data, "sha256"), data)
    if kind == "ed25519":
        assert len(parsed) == 2  # pyHanko's own code: parsed per signature
    else:
        assert len(parsed) == 1

    monkeypatch.undo()
    # A PSS preference is set on this signer object only; our PDFs are signed with SHA-256,
    # which Ed25519 signatures in PDF do not use (they imply SHA-512).
    if kind in ("rsa", "ecdsa"):
        report = verify_pdf(sign_pdf(_pdf(), config, SignatureRequest(reason=REASON)), [])
        assert report.tampering is Tampering.NONE


def _pdf():
    return weasyprint.HTML(string="<p>key types</p>").write_pdf()
