"""The system's signing key on a PKCS#11 token instead of a PKCS#12 file (docs/decisions/0137).

A SoftHSM token (tests.support.softhsm) holds the test signer's key and certificate; a brief
generated the normal way is signed on the token, and pyHanko finds its signature intact and
trusted, and with a local timestamp authority and CRL it is B-LT. The key is found by label or
by id, the PIN comes from the settings or a file; production refuses a development CA's signer
on a token; the production deploy check accepts the token (no "no PKCS#12"), and names a
development signer on it or a wrong PIN."""

from __future__ import annotations

import os
import subprocess
from io import BytesIO

import pytest
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from advisor.brief import services
from advisor.brief.config import signing_config, trust_roots
from advisor.brief.models import BriefStatus
from advisor.brief.pki import create_dev_pki
from advisor.brief.signing import (
    LEVEL_LT,
    SIGNATURE_FIELD,
    SignatureRequest,
    SigningError,
    outside_event_loop,
    planned_level,
    sign_pdf,
)
from advisor.brief.verify import verify_pdf
from advisor.roles import PROCUREMENT_STAFF
from tests.integration.test_long_term_signatures import long_term_validation
from tests.support.briefs import CA_FILE, PASSPHRASE, SIGNER_FILE, signing_settings
from tests.support.long_term import LocalTimestampAuthority, create_long_term_pki
from tests.support.pdf import pdf_bytes
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from tests.support.servers import PYTHON, ROOT, production_env
from tests.support.softhsm import DEV_LABEL, LT_LABEL, make_token, token_settings
from tests.support.users import make_user

MINIMAL_PDF_HTML = "<p>FT-2026-000001</p>"


# SoftHSM's token folder is made once per test process (the session fixture ``softhsm`` in
# tests/conftest.py, which says why), with every token this and other modules use.


@pytest.fixture(scope="session")
def token(softhsm, pki_dir):
    """A SoftHSM token with the test signer's key and certificate."""
    return make_token(pki_dir / SIGNER_FILE, PASSPHRASE)


@pytest.fixture(scope="session")
def development_token(softhsm, tmp_path_factory):
    """A token holding a development CA's signer (what `make_dev_signing_cert` makes)."""
    directory = tmp_path_factory.mktemp("dev-signing")
    create_dev_pki(directory, "dev-only", "Procurement Advisor Dev", "Procurement Advisor")
    return make_token(directory / "dev-signer.p12", "dev-only", label=DEV_LABEL), directory


@pytest.fixture(scope="session")
def long_term(softhsm, tmp_path_factory):
    """The long-term test PKI (a CA with a CRL, a timestamp authority) and a token holding its
    system signer."""
    pki = create_long_term_pki(tmp_path_factory.mktemp("long-term-pki"))
    return pki, make_token(pki.signer_path, pki.passphrase, label=LT_LABEL)


def use_token(settings, token, pki_dir, **options):
    """Sign with ``token``; the PKCS#12 settings point at no file, so only the token can sign."""
    settings.BRIEF_SIGNING = {
        **signing_settings(pki_dir),
        "PKCS12_PATH": pki_dir / "absent.p12",
        "PASSPHRASE": None,
        "PKCS11": token_settings(token, **options),
    }


def pyhanko_status(pdf: bytes, pki_dir):
    from pyhanko.keys import load_cert_from_pemder

    reader = PdfFileReader(BytesIO(pdf))
    (signature,) = reader.embedded_signatures
    context = ValidationContext(trust_roots=[load_cert_from_pemder(str(pki_dir / CA_FILE))])
    # pyHanko's sync API runs its own loop: outside the browser tests' loop in this worker.
    status = outside_event_loop(
        validate_pdf_signature, signature, signer_validation_context=context
    )
    return signature, status


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_ready", "one_page_briefs")
def test_a_brief_is_signed_with_the_key_on_the_token(
    settings, token, pki_dir, django_capture_on_commit_callbacks
):
    use_token(settings, token, pki_dir)
    buyer = make_user("buyer-token", PROCUREMENT_STAFF)
    with django_capture_on_commit_callbacks(execute=True):
        brief = services.issue_brief(user=buyer, document=SCENARIO, language="en")
    brief.refresh_from_db()
    assert brief.status != BriefStatus.FAILED, brief.failure
    assert brief.pdf
    signed = pdf_bytes(brief)
    signature, status = pyhanko_status(signed, pki_dir)
    assert status.intact and status.valid and status.trusted and status.bottom_line
    assert status.signing_cert.subject.native["common_name"] == "Test Signer"
    assert signature.field_name == SIGNATURE_FIELD
    assert verify_pdf(signed, trust_roots()).intact_and_trusted


def test_the_key_is_found_by_its_id_with_the_pin_in_a_file(settings, token, pki_dir, tmp_path):
    import weasyprint

    use_token(settings, token, pki_dir, by_id=True, pin_file=tmp_path / "pin")
    config = signing_config()
    assert config.token.key_id == token.key_id and config.token.key_label is None
    assert token.pin not in repr(config)  # the PIN stays out of logs and tracebacks
    pdf = weasyprint.HTML(string=MINIMAL_PDF_HTML).write_pdf()
    signed = outside_event_loop(sign_pdf, pdf, config, SignatureRequest(reason="token by id"))
    _signature, status = pyhanko_status(signed, pki_dir)
    assert status.bottom_line


def test_a_wrong_pin_is_a_signing_error_naming_the_token(settings, token, pki_dir):
    import weasyprint

    use_token(settings, token, pki_dir)
    settings.BRIEF_SIGNING["PKCS11"]["PIN"] = "000000"
    pdf = weasyprint.HTML(string=MINIMAL_PDF_HTML).write_pdf()
    with pytest.raises(SigningError, match="advisor-test") as raised:
        outside_event_loop(sign_pdf, pdf, signing_config(), SignatureRequest(reason="wrong pin"))
    assert "000000" not in str(raised.value)


def test_a_token_signature_is_long_term_with_a_timestamp_authority(settings, long_term):
    """B-LT (decision 0117) with the key on a token: timestamped, the validation data in the
    file, both judged by pyHanko from the file alone."""
    import weasyprint

    pki, lt_token = long_term
    with LocalTimestampAuthority(pki) as authority:
        settings.BRIEF_SIGNING = {
            **signing_settings(pki.ca_path.parent),
            "PKCS12_PATH": None,
            "TRUST_ROOTS": [pki.ca_path],
            "TIMESTAMP_URL": authority.url,
            "REVOCATION_FILES": [pki.crl_path],
            "REVOCATION_FETCH": False,
            "PKCS11": token_settings(lt_token),
        }
        config = signing_config()
        assert planned_level(config) == LEVEL_LT
        pdf = weasyprint.HTML(string=MINIMAL_PDF_HTML).write_pdf()
        signed = outside_event_loop(
            sign_pdf, pdf, config, SignatureRequest(reason="long term on a token")
        )
    ((_name, status),) = outside_event_loop(long_term_validation, signed, pki)
    assert status.intact and status.valid and status.trusted
    assert status.timestamp_validity is not None and status.timestamp_validity.trusted


def test_production_refuses_a_development_signer_on_a_token(settings, development_token):
    import weasyprint

    dev_token, directory = development_token
    settings.PRODUCTION = True
    settings.BRIEF_SIGNING = {
        **signing_settings(directory),
        "PKCS12_PATH": None,
        "PKCS11": token_settings(dev_token),
    }
    pdf = weasyprint.HTML(string=MINIMAL_PDF_HTML).write_pdf()
    with pytest.raises(SigningError, match="refused the development signer PKCS#11 token"):
        outside_event_loop(sign_pdf, pdf, signing_config(), SignatureRequest(reason="development"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"KEY_LABEL": "", "KEY_ID": ""}, "BRIEF_SIGNING_PKCS11_KEY_LABEL"),
        ({"KEY_LABEL": "", "KEY_ID": "zz"}, "not hexadecimal"),
        ({"TOKEN_LABEL": ""}, "BRIEF_SIGNING_PKCS11_TOKEN"),
        ({"PIN": None, "PIN_FILE": None}, "BRIEF_SIGNING_PKCS11_PIN"),
    ],
    ids=["no-key-named", "bad-id", "no-token-label", "no-pin"],
)
def test_an_incomplete_token_configuration_is_a_clear_error(
    settings, token, pki_dir, change, message
):
    use_token(settings, token, pki_dir)
    settings.BRIEF_SIGNING["PKCS11"].update(change)
    with pytest.raises(SigningError, match=message):
        signing_config()


def check_deploy(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PYTHON), "manage.py", "check", "--deploy", "--fail-level", "ERROR"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def token_env(tmp_path, pki_dir, token, pin: str) -> dict:
    pin_file = tmp_path / "token.pin"
    pin_file.write_text(pin)
    return production_env(
        tmp_path / "var",
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        ADVISOR_SITE_URL="https://advisor.example.cn",
        BRIEF_SIGNING_TRUST_ROOTS=str(pki_dir / CA_FILE),
        BRIEF_SIGNING_ORGANISATION="Test Org",
        BRIEF_SIGNING_PKCS11_MODULE=str(token.module),
        BRIEF_SIGNING_PKCS11_TOKEN=token.label,
        BRIEF_SIGNING_PKCS11_KEY_LABEL=token.key_label,
        BRIEF_SIGNING_PKCS11_PIN_FILE=str(pin_file),
        SOFTHSM2_CONF=os.environ["SOFTHSM2_CONF"],
    )


def test_the_deploy_check_accepts_a_signer_on_a_token(tmp_path, pki_dir, token):
    result = check_deploy(token_env(tmp_path, pki_dir, token, token.pin))
    assert result.returncode == 0, result.stderr
    assert "advisor.E010" not in result.stderr


def test_the_deploy_check_refuses_a_development_signer_on_a_token(
    tmp_path, pki_dir, development_token
):
    dev_token, _directory = development_token
    env = token_env(tmp_path, pki_dir, dev_token, dev_token.pin)
    result = check_deploy(env)
    assert result.returncode != 0
    assert "advisor.E011" in result.stderr and "dev-token" in result.stderr
    assert "Procurement Advisor Dev Development CA" in result.stderr


def test_the_deploy_check_names_a_token_it_cannot_open(tmp_path, pki_dir, token):
    result = check_deploy(token_env(tmp_path, pki_dir, token, "000000"))
    assert result.returncode != 0
    assert "advisor.E012" in result.stderr and "advisor-test" in result.stderr
    assert "advisor.E010" not in result.stderr
