"""Fixtures shared by the brief tests: a development PKI and a brief-ready environment."""

import pytest
from django.core.management import call_command

from tests.support.briefs import make_pki, signing_settings


@pytest.fixture(scope="session")
def pki_dir(tmp_path_factory):
    """A throw-away CA and signer, made once per test session (RSA key generation is slow)."""
    directory = tmp_path_factory.mktemp("pki")
    make_pki(directory)
    return directory


@pytest.fixture
def brief_ready(pki_dir, tmp_path, settings):
    """The seeded catalog, signing with the test PKI, and stored PDFs under tmp_path."""
    call_command("load_catalog")
    settings.BRIEF_SIGNING = signing_settings(pki_dir)
    settings.MEDIA_ROOT = tmp_path / "media"
