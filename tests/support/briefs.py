"""Signed test PDFs and signing settings pointing at a throw-away development PKI."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import weasyprint

from advisor.brief.pki import create_pki
from advisor.brief.signing import SignatureRequest, SigningConfig, sign_pdf
from advisor.brief.verify import sha256_hex

PASSPHRASE = "tests-only"
# The test PKI stands in for an organisation's own (production refuses a development CA's
# signer): "Test Org CA" and its signer, in these files.
SIGNER_FILE = "signer.p12"
CA_FILE = "ca.pem"


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
        "PKCS12_PATH": directory / SIGNER_FILE,
        "PASSPHRASE": PASSPHRASE,
        "PASSPHRASE_FILE": None,
        "TRUST_ROOTS": [directory / CA_FILE],
        "SIGNER_NAME": "Test Signer",
        "ORGANISATION": "Test Org",
        "LOCATION": "Guiyang",
        "TIMESTAMP_URL": None,
    }


def make_pki(directory: Path):
    return create_pki(directory, PASSPHRASE, "Test Org", "Test Signer", development=False)


def signer_env(directory: Path) -> dict:
    """The production start's signing variables for the test PKI in ``directory`` (the
    passphrase from a secret file the deployment names, as a production would)."""
    return {
        "BRIEF_SIGNING_PKCS12": str(directory / SIGNER_FILE),
        "BRIEF_SIGNING_PASSPHRASE_FILE": str(directory / "signer.passphrase"),
        "BRIEF_SIGNING_TRUST_ROOTS": str(directory / CA_FILE),
        "BRIEF_SIGNING_ORGANISATION": "Test Org",
    }


def make_signed_pdf(directory: Path, number: str = "FT-2026-000007") -> SignedPdf:
    html = (
        f"<html lang='en'><head><title>Procurement brief {number}</title></head>"
        f"<body><h1>{number}</h1></body></html>"
    )
    unsigned = weasyprint.HTML(string=html).write_pdf(pdf_variant="pdf/a-3b")
    config = SigningConfig(directory / SIGNER_FILE, PASSPHRASE, "Test Signer", "Guiyang")
    signed = sign_pdf(unsigned, config, SignatureRequest(reason=f"Procurement brief {number}"))
    return SignedPdf(number, unsigned, signed)


def one_page_brief(snapshot: dict, meta) -> bytes:
    """The brief as one real page, for tests of what happens *to* a brief (issuing, approving,
    sending back, races, access, storage, recovery), not of what it says.

    Made by the product's ``brief_pdf`` like the real one (PDF/A-3b, the snapshot attached as
    ``brief.json``), from one page of HTML: the brief number in its title and keywords, its
    status and draft mark. It is
    signed, stored, hashed and verified by the product's own code. The brief's ten pages take
    ~1.3 s of CPU to lay out; the tests of their content (test_brief_issue.py,
    test_brief_reading.py, the site and hardware names, the questionnaire, the browser walk to
    an approved brief) render them (docs/decisions/0027-test-stages.md).
    """
    from html import escape

    from advisor.brief.render import brief_pdf

    number = escape(meta.number)
    draft = "" if meta.approved else "<p>Draft — not approved</p>"
    html = (
        f"<html lang='en'><head><meta charset='utf-8'><title>Procurement brief {number}</title>"
        f"<meta name='keywords' content='{number}'></head><body><h1>{number}</h1>"
        f"<p>{escape(str(meta.status_label))}</p>{draft}</body></html>"
    )
    return brief_pdf(html, snapshot, meta)


def issue_through_the_page(client, buyer, capture_on_commit, *, language: str = "en"):
    """A finished assessment of ``buyer`` whose top recommended option is issued as a brief
    through the page, the worker running on commit as in production; the ``Brief``.

    ``capture_on_commit``: pytest-django's ``django_capture_on_commit_callbacks`` fixture."""
    from django.urls import reverse

    from advisor.brief.models import Brief
    from advisor.recommendation.services import assessment_results
    from tests.support.assessments import finished_assessment

    assessment = finished_assessment(buyer)
    option = assessment_results(assessment).recommendation.rankings["recommended"][0]
    client.force_login(buyer)
    with capture_on_commit(execute=True):
        client.post(
            reverse("brief:issue"),
            {"assessment": assessment.pk, "option": option.key, "language": language},
        )
    return Brief.objects.get()
