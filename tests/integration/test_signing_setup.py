import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from advisor.brief.config import signing_config, trust_roots
from advisor.brief.signing import SignatureRequest, SigningError, sign_pdf
from advisor.brief.verify import verify_pdf

MINIMAL_PDF_HTML = "<p>FT-2026-000001</p>"


def signing_settings(directory):
    return {
        "PKCS12_PATH": directory / "dev-signer.p12",
        "PASSPHRASE": None,
        "PASSPHRASE_FILE": directory / "dev-signer.passphrase",
        "TRUST_ROOTS": [directory / "dev-ca.pem"],
        "SIGNER_NAME": "Dev Signer",
        "ORGANISATION": "Dev Org",
        "LOCATION": "Guiyang",
        "TIMESTAMP_URL": None,
    }


def test_dev_certificate_command_makes_a_working_signer(tmp_path):
    import weasyprint

    with override_settings(PRODUCTION=False, BRIEF_SIGNING=signing_settings(tmp_path)):
        call_command("make_dev_signing_cert", directory=tmp_path)
        first = (tmp_path / "dev-signer.p12").read_bytes()
        call_command("make_dev_signing_cert", directory=tmp_path, if_missing=True)
        assert (tmp_path / "dev-signer.p12").read_bytes() == first  # kept, not replaced
        pdf = weasyprint.HTML(string=MINIMAL_PDF_HTML).write_pdf()
        signed = sign_pdf(pdf, signing_config(), SignatureRequest(reason="test"))
        assert verify_pdf(signed, trust_roots()).intact_and_trusted


def test_missing_passphrase_is_a_clear_error(tmp_path):
    with (
        override_settings(BRIEF_SIGNING=signing_settings(tmp_path)),
        pytest.raises(SigningError, match="BRIEF_SIGNING_PASSPHRASE"),
    ):
        signing_config()


def test_no_development_certificate_in_production(tmp_path):
    with (
        override_settings(PRODUCTION=True, BRIEF_SIGNING=signing_settings(tmp_path)),
        pytest.raises(CommandError),
    ):
        call_command("make_dev_signing_cert", directory=tmp_path)
