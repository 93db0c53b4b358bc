"""A purchase-request system can act on a brief event as it arrives (issue 48): the event says
what is bought, for how much, whether it may be, who prepared and approved it (and whether the
approver's own signature is on the PDF), where the brief came from and where to fetch and check
its PDF. Received over HTTP and checked with the ``standardwebhooks`` package, a client we did
not write."""

from __future__ import annotations

import hashlib
import io
import json
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse
from standardwebhooks.webhooks import Webhook

from advisor.brief import services
from advisor.brief.models import Brief
from advisor.brief.pki import create_pki
from advisor.recommendation.services import assessment_results
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from advisor.webhooks.models import WebhookEndpoint, new_secret
from tests.support import webhook_receiver
from tests.support.api import api_client
from tests.support.assessments import finished_assessment
from tests.support.scenarios import QWEN_7B_LORA
from tests.support.users import make_user, signed_in_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready", "one_page_briefs")]

SITE = "https://advisor.example.cn"
PASSPHRASE = "wang-fang approves 2026"


@pytest.fixture
def receiver(settings):
    settings.SITE_URL = SITE
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]  # the receiver listens on loopback (0123)
    secret = new_secret()
    receiver, server = webhook_receiver.start(secret)
    WebhookEndpoint.objects.create(name="purchase requests", url=receiver.url, secret=secret)
    yield receiver
    server.shutdown()
    server.server_close()


def checked(receiver, received) -> dict:
    """The event as ``standardwebhooks`` reads it: it raises unless the signature is right."""
    return Webhook(receiver.secret).verify(received.body, received.headers)


def test_issued_and_approved_carry_what_a_purchase_request_needs(
    receiver, django_capture_on_commit_callbacks, tmp_path, settings
):
    buyer = make_user("buyer", PROCUREMENT_STAFF, first_name="Li", last_name="Wei")
    boss = make_user("boss", APPROVER, first_name="Fang", last_name="Wang")
    pki = create_pki(
        tmp_path / "approver", PASSPHRASE, "Approver Org", "Wang Fang", development=False
    )
    signing = dict(settings.BRIEF_SIGNING)  # the approver's CA is one the site trusts (0121)
    signing["TRUST_ROOTS"] = [*signing["TRUST_ROOTS"], pki.ca_cert_path]
    settings.BRIEF_SIGNING = signing
    services.register_certificate(boss, pki.signer_pkcs12_path.read_bytes(), PASSPHRASE)
    assessment = finished_assessment(buyer, title="Qwen2.5 7B LoRA, Q1 programme")
    option = assessment_results(assessment).recommendation.rankings["recommended"][0]
    with django_capture_on_commit_callbacks(execute=True):
        brief = services.issue_for_assessment(
            user=buyer, assessment=assessment, option_key=option.key, language="en"
        )
    brief.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        services.approve(brief, boss, comment="ok", acknowledged=True, passphrase=PASSPHRASE)
    brief.refresh_from_db()

    issued, approved = (checked(receiver, r) for r in receiver.received)
    assert (issued["type"], approved["type"]) == ("brief.issued", "brief.approved")
    first, data = issued["data"], approved["data"]
    for event in (first, data):
        assert event["number"] == brief.number and event["id"] == brief.pk
        assert event["title"] == "Qwen2.5 7B LoRA, Q1 programme"
        assert event["origin"] == "page" and event["assessment"] == assessment.pk
        assert event["option"] == option.key and event["mode"] == str(option.mode)
        assert " × " in event["option_label"] and event["option_label"].count(" · ") >= 2
        assert event["currency"] == "CNY"
        assert Decimal(event["cash_out"]) == option.cash_out_cny
        assert event["verdict"] == str(option.compliance.verdict)
        assert event["open_vetoes"] == len(event["open_veto_checks"])
        assert all(v["rule"] and v["title"] for v in event["open_veto_checks"])
        assert event["prepared_by"] == "buyer" and event["prepared_by_name"] == "Li Wei"
        assert event["links"] == {
            "page": f"{SITE}/brief/{brief.pk}/",
            "pdf": f"{SITE}/api/v1/briefs/{brief.pk}/pdf",
            "api": f"{SITE}/api/v1/briefs/{brief.pk}",
            "verify": f"{SITE}/brief/verify/",
        }
    # Issued: the signed draft is stored, its hash is the file's; nobody has approved yet.
    assert first["status"] == "awaiting_approval" and first["approved_by"] is None
    assert first["sha256"] == brief.draft_sha256 and first["approver_signed"] is False
    # Approved: the re-signed PDF, the approver, and their own signature on it.
    assert data["status"] == "approved" and data["approved_by"] == "boss"
    assert data["approved_by_name"] == "Fang Wang" and data["approver_signed"] is True
    assert data["sha256"] == hashlib.sha256(brief.pdf.read()).hexdigest() == brief.sha256
    assert data["approved_at"] and data["review_comment"] == "ok"


def test_a_brief_from_the_command_line_says_so_and_has_no_assessment(
    receiver, tmp_path, django_capture_on_commit_callbacks
):
    make_user("buyer", PROCUREMENT_STAFF)
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({**QWEN_7B_LORA, "site": {"data_centers": ["example-guian"]}}))
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "issue_brief",
            "--input",
            str(scenario),
            "--user",
            "buyer",
            "--language",
            "zh-hans",
            "--output",
            str(tmp_path / "brief.pdf"),
            stdout=io.StringIO(),
        )
    (received,) = receiver.received
    data = checked(receiver, received)["data"]
    brief = Brief.objects.get()
    assert data["origin"] == "command_line" and data["assessment"] is None
    assert data["title"] == QWEN_7B_LORA["model"]["name"]
    assert data["number"] == brief.number and data["sha256"]
    assert "×" in data["option_label"] and data["currency"] == "CNY"


def test_the_origin_tells_the_page_from_the_api_from_the_command_line(
    receiver, tmp_path, django_capture_on_commit_callbacks
):
    """Each way a brief is issued says so in every event about it, and in the audit trail."""
    buyer = make_user("buyer", PROCUREMENT_STAFF)
    on_page, through_api = finished_assessment(buyer), finished_assessment(buyer)
    with django_capture_on_commit_callbacks(execute=True):
        option = assessment_results(on_page).recommendation.rankings["recommended"][0].key
        page = signed_in_client(buyer).post(
            reverse("brief:issue"), {"assessment": on_page.pk, "option": option, "language": "en"}
        )
    assert page.status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        option = assessment_results(through_api).recommendation.rankings["recommended"][0].key
        api = api_client(buyer).post(
            f"/api/v1/assessments/{through_api.pk}/briefs",
            {"option": option, "language": "en"},
            content_type="application/json",
        )
    assert api.status_code == 202, api.content
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({**QWEN_7B_LORA, "site": {"data_centers": ["example-guian"]}}))
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "issue_brief",
            *("--input", str(scenario), "--user", "buyer", "--language", "en"),
            *("--output", str(tmp_path / "brief.pdf")),
            stdout=io.StringIO(),
        )
    told = {
        checked(receiver, r)["data"]["number"]: checked(receiver, r)["data"]
        for r in receiver.received
    }
    by_origin = {brief.origin: brief for brief in Brief.objects.all()}
    assert set(by_origin) == {"page", "api", "command_line"}
    assert by_origin["page"].assessment == on_page and by_origin["api"].assessment == through_api
    for origin, brief in by_origin.items():
        assert told[brief.number]["origin"] == origin
        issued = brief.audit_events.get(action="brief_issued")
        assert issued.detail["origin"] == origin
        # The API's brief says it too, so a webhook's reader who fetches the brief sees the same.
        fetched = api_client(buyer).get(f"/api/v1/briefs/{brief.pk}")
        assert fetched.status_code == 200 and fetched.json()["origin"] == origin
