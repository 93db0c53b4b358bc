"""Webhooks for brief events, signed as Standard Webhooks: a receiver in the test checks every
signature; a receiver that is down gets retries, and the delivery log shows each attempt."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from advisor.brief import services
from advisor.brief.models import Brief
from advisor.recommendation.services import assessment_results, recompute
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from advisor.webhooks import delivery, signing
from advisor.webhooks.models import (
    DeliveryStatus,
    EventType,
    WebhookEndpoint,
    WebhookMessage,
    new_secret,
)
from config import urls  # noqa: F401 - registers the admin modules
from tests.support import webhook_receiver
from tests.support.assessments import finished_assessment
from tests.support.users import make_user, signed_in_client
from vendors.models import Offer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready", "one_page_briefs")]


@pytest.fixture(autouse=True)
def local_receivers(settings):
    """The tests' receivers listen on 127.0.0.1, which only an allow-list opens (decision 0123)."""
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]


@pytest.fixture
def receiver():
    secret = new_secret()
    receiver, server = webhook_receiver.start(secret)
    WebhookEndpoint.objects.create(name="purchase requests", url=receiver.url, secret=secret)
    yield receiver
    server.shutdown()
    server.server_close()


@pytest.fixture
def people():
    return make_user("buyer", PROCUREMENT_STAFF), make_user("boss", APPROVER)


def issue(buyer, capture, assessment=None):
    assessment = assessment or finished_assessment(buyer)
    option = assessment_results(assessment).recommendation.rankings["recommended"][0]
    with capture(execute=True):
        brief = services.issue_for_assessment(
            user=buyer, assessment=assessment, option_key=option.key, language="en"
        )
    brief.refresh_from_db()
    return brief


def test_every_brief_event_reaches_the_receiver_signed(
    receiver, people, django_capture_on_commit_callbacks
):
    buyer, boss = people
    capture = django_capture_on_commit_callbacks
    approved = issue(buyer, capture)
    with capture(execute=True):
        services.approve(approved, boss, comment="ok", acknowledged=True)
    sent_back = issue(buyer, capture)
    with capture(execute=True):
        services.send_back(sent_back, boss, "Ask for a second quote")
    # The catalog changes (the chosen cloud offer runs outside mainland China) and the buyer
    # computes the options again: the approved brief's option no longer has its verdict.
    chosen = approved.snapshot["options"][0]
    assert chosen["mode"] == "cloud", "the standard job's rank 1 is a cloud instance"
    offer = chosen["key"].split("@cloud:")[1]
    assert Offer.objects.filter(key=offer).update(region_in_mainland_china=False) == 1
    with capture(execute=True):
        recompute(approved.assessment)
    with capture(execute=True):
        recompute(approved.assessment)  # told once only

    seen = [(r.event["type"], r.event["data"]["number"]) for r in receiver.received]
    assert seen == [
        ("brief.issued", approved.number),
        ("brief.approved", approved.number),
        ("brief.issued", sent_back.number),
        ("brief.sent_back", sent_back.number),
        ("brief.superseded", approved.number),
    ]
    assert all(r.verified for r in receiver.received)
    # Told it was issued, a receiver can download the PDF: the draft is stored by then.
    assert receiver.received[0].event["data"]["status"] == "awaiting_approval"
    superseded = receiver.received[-1].event["data"]
    assert superseded["superseded"] and superseded["status"] == "approved"
    assert receiver.received[3].event["data"]["review_comment"] == "Ask for a second quote"
    ids = [r.headers["webhook-id"] for r in receiver.received]
    assert len(set(ids)) == len(ids) and all(i.startswith("msg_") for i in ids)
    assert set(WebhookMessage.objects.values_list("status", flat=True)) == {"delivered"}


def test_a_result_stored_for_an_assessment_without_briefs_reads_no_brief(
    people, django_capture_on_commit_callbacks, django_assert_num_queries
):
    """The superseded check of a new stored result is one plain query when no brief is in play
    (a first view of results pays for it)."""
    assessment = finished_assessment(people[0])
    with django_capture_on_commit_callbacks() as callbacks:
        recompute(assessment)
    assert len(callbacks) == 1
    with django_assert_num_queries(1) as captured:
        callbacks[0]()
    assert "JOIN" not in captured.captured_queries[0]["sql"]
    assert not WebhookMessage.objects.exists()


def test_a_tampered_body_or_a_wrong_secret_fails_the_check():
    secret = new_secret()
    headers = signing.headers(secret, "msg_1", 1_700_000_000, '{"type":"brief.issued"}')
    signing.verify(secret, headers, '{"type":"brief.issued"}', now=1_700_000_100)
    with pytest.raises(signing.InvalidSignature):
        signing.verify(secret, headers, '{"type":"brief.approved"}', now=1_700_000_100)
    with pytest.raises(signing.InvalidSignature):
        signing.verify(new_secret(), headers, '{"type":"brief.issued"}', now=1_700_000_100)
    with pytest.raises(signing.InvalidSignature):  # replayed an hour later
        signing.verify(secret, headers, '{"type":"brief.issued"}', now=1_700_003_600)
    receiver = webhook_receiver.Receiver(secret)
    assert receiver.check(headers | {"webhook-timestamp": str(10**10)}, b"{}") is False


def test_a_receiver_that_is_down_gets_every_retry_and_the_log_shows_them(
    people, django_capture_on_commit_callbacks, settings
):
    settings.WEBHOOK_TIMEOUT_S = 2
    endpoint = WebhookEndpoint.objects.create(name="down", url=webhook_receiver.closed_port_url())
    brief = issue(people[0], django_capture_on_commit_callbacks)
    message = WebhookMessage.objects.get(endpoint=endpoint)
    # The test's task backend runs a retry at once; the database worker runs it at its time.
    assert message.status == DeliveryStatus.FAILED
    log = list(message.attempt_log.order_by("number"))
    assert [a.number for a in log] == list(range(1, len(delivery.RETRY_DELAYS_S) + 2))
    assert all(a.status_code is None and "ConnectionError" in a.error for a in log)
    assert message.brief_number == brief.number
    superuser = make_user("root", is_staff=True, is_superuser=True)
    page = signed_in_client(superuser).get(
        reverse("admin:webhooks_webhookmessage_change", args=[message.pk]),
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('class="field-error"') == len(log)  # one row per attempt
    assert "Failed (no retries left)" in html


def test_a_receiver_that_comes_back_gets_the_message_with_the_same_id(
    people, django_capture_on_commit_callbacks
):
    secret = new_secret()
    receiver, server = webhook_receiver.start(secret, answers=[503, 500])
    try:
        WebhookEndpoint.objects.create(
            name="flaky", url=receiver.url, secret=secret, events=[EventType.ISSUED]
        )
        issue(people[0], django_capture_on_commit_callbacks)
    finally:
        server.shutdown()
        server.server_close()
    message = WebhookMessage.objects.get()
    assert message.status == DeliveryStatus.DELIVERED and message.attempts == 3
    assert [a.status_code for a in message.attempt_log.order_by("number")] == [503, 500, 204]
    assert len({r.headers["webhook-id"] for r in receiver.received}) == 1
    assert all(r.verified for r in receiver.received)


def test_retries_wait_longer_each_time_on_the_database_worker(people):
    endpoint = WebhookEndpoint.objects.create(name="down", url=webhook_receiver.closed_port_url())
    message = WebhookMessage.objects.create(
        endpoint=endpoint, event_type=EventType.ISSUED, brief_number="FT-1", body="{}"
    )
    waits = []
    for _ in delivery.RETRY_DELAYS_S:
        delivered = delivery.deliver(message.pk)
        assert delivered.status == DeliveryStatus.RETRYING
        waits.append(
            round((delivered.next_attempt_at - delivered.attempt_log.last().at).total_seconds())
        )
    assert waits == list(delivery.RETRY_DELAYS_S)
    assert delivery.deliver(message.pk).status == DeliveryStatus.FAILED
    assert delivery.deliver(message.pk) is None  # nothing more to do


def test_an_endpoint_only_gets_the_events_it_subscribes_to(
    receiver, people, django_capture_on_commit_callbacks
):
    WebhookEndpoint.objects.update(events=[EventType.APPROVED])
    issue(people[0], django_capture_on_commit_callbacks)
    assert receiver.received == [] and not Brief.objects.filter(status="failed").exists()
    assert admin.site.is_registered(WebhookEndpoint)


# --- Chat robots (DingTalk, Feishu, WeCom) -----------------------------------------------------


def dingtalk_signature(secret: str, timestamp: str) -> str:
    """DingTalk's "加签": base64 HMAC-SHA256 of "timestamp\\nsecret", keyed with the secret."""
    signed = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(secret.encode(), signed, hashlib.sha256).digest()).decode()


def feishu_signature(secret: str, timestamp: str) -> str:
    """Feishu's signature: base64 HMAC-SHA256 of nothing, keyed with "timestamp\\nsecret"."""
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


@pytest.mark.parametrize("kind", ["dingtalk", "feishu", "wecom"])
def test_a_chat_robot_gets_a_message_people_read_signed_its_way(
    kind, people, django_capture_on_commit_callbacks
):
    robot_secret = "SEC0123456789abcdef" if kind != "wecom" else ""
    ok = {"errcode": 0, "errmsg": "ok"} if kind != "feishu" else {"code": 0, "msg": "success"}
    refused = {"errcode": 310000, "errmsg": "sign not match"}
    receiver, server = webhook_receiver.start("whsec_AAAA", answers=[(200, refused), (200, ok)])
    try:
        WebhookEndpoint.objects.create(
            name=kind,
            format=kind,
            url=receiver.url + "?access_token=robot",
            secret=robot_secret,
            events=[EventType.ISSUED],
        )
        brief = issue(people[0], django_capture_on_commit_callbacks)
    finally:
        server.shutdown()
        server.server_close()
    message = WebhookMessage.objects.get()
    log = list(message.attempt_log.order_by("number"))
    assert "refused by the robot: 310000 sign not match" in log[0].error
    assert message.status == DeliveryStatus.DELIVERED and message.attempts == 2
    delivered = receiver.received[-1]
    body = json.loads(delivered.body)
    query = parse_qs(urlsplit(delivered.path).query)
    assert query["access_token"] == ["robot"]
    if kind == "dingtalk":
        words = body["markdown"]["text"]
        (stamp,) = query["timestamp"]
        assert query["sign"] == [dingtalk_signature(robot_secret, stamp)]
    elif kind == "feishu":
        words = body["content"]["text"]
        assert body["sign"] == feishu_signature(robot_secret, body["timestamp"])
    else:
        words = body["markdown"]["content"]
    assert words.splitlines()[0] == f"简报已出具: {brief.number}"


def test_a_brief_whose_generation_fails_is_not_announced_until_it_is_ready(
    receiver, people, django_capture_on_commit_callbacks, monkeypatch
):
    from advisor.brief import generation

    buyer, _boss = people
    real = generation.signed_pdf

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(generation, "signed_pdf", broken)
    brief = issue(buyer, django_capture_on_commit_callbacks)
    assert brief.status == "failed" and receiver.received == []
    assert not WebhookMessage.objects.exists()

    monkeypatch.setattr(generation, "signed_pdf", real)
    with django_capture_on_commit_callbacks(execute=True):
        services.retry(brief, buyer)
    brief.refresh_from_db()
    assert brief.status == "awaiting_approval"
    assert [r.event["type"] for r in receiver.received] == ["brief.issued"]
    assert receiver.received[0].event["data"]["number"] == brief.number


# --- A lane of their own, public addresses only, deactivation stops (decision 0123) -------------

DATABASE_TASKS = {
    "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "webhooks"]}
}


def run_queue(queue: str, capture) -> list[str]:
    """What ``db_worker --queue-name <queue>`` does for each waiting task, in this process (as
    tests/integration/test_requeue_stuck_briefs.py runs it); the tasks' names."""
    from django_tasks_db.management.commands.db_worker import Worker
    from django_tasks_db.models import DBTaskResult

    worker = Worker(
        queue_names=[queue],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=f"test-{queue}",
        excluded_queue_names=[],
    )
    ran = []
    for row in DBTaskResult.objects.ready().filter(queue_name=queue):
        row.claim(worker.worker_id)
        with capture(execute=True):
            worker.run_task(row)
        ran.append(row.task_path.rsplit(".", 1)[-1])
    return ran


def test_a_slow_receiver_does_not_delay_a_brief(
    people, settings, django_capture_on_commit_callbacks
):
    """Briefs and webhooks are in separate queues: the brief worker makes the brief and never
    calls the receiver; the webhook worker calls it, and gives up at the read timeout."""
    settings.TASKS = DATABASE_TASKS
    settings.WEBHOOK_TIMEOUT_S = 1
    buyer, _boss = people
    with webhook_receiver.silent_url() as url:
        endpoint = WebhookEndpoint.objects.create(name="never answers", url=url)
        brief = issue(buyer, django_capture_on_commit_callbacks)
        assert brief.status == "generating"

        assert run_queue("default", django_capture_on_commit_callbacks) == ["generate_brief"]
        brief.refresh_from_db()
        assert brief.status == "awaiting_approval"  # made, signed, announced...
        message = WebhookMessage.objects.get(endpoint=endpoint)
        assert message.status == DeliveryStatus.PENDING and message.attempts == 0  # ...not sent

        assert run_queue("webhooks", django_capture_on_commit_callbacks) == ["deliver_webhook"]
    message.refresh_from_db()
    (logged,) = message.attempt_log.all()
    assert message.status == DeliveryStatus.RETRYING
    assert logged.status_code is None and logged.error.startswith("ReadTimeout")
    assert logged.duration_ms < 5000  # the connect and read timeouts, not the receiver's will


FORBIDDEN = [
    "http://127.0.0.1:9/hooks",
    "http://10.0.0.1/hooks",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",  # Alibaba Cloud's metadata service
    "http://[::1]/hooks",
    "http://[::ffff:127.0.0.1]/hooks",
    "http://[fd00:ec2::254]/hooks",
    "http://192.168.1.10:8080/hooks",
    "http://localhost/hooks",
]


@pytest.mark.parametrize("url", FORBIDDEN)
def test_a_webhook_to_a_loopback_private_or_metadata_address_is_refused_at_save_and_at_send(
    url, settings
):
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    endpoint = WebhookEndpoint(name="inside", url=url)
    with pytest.raises(ValidationError) as refused, translation.override("en"):
        endpoint.full_clean()
    assert "Webhooks may not be sent there" in str(refused.value.message_dict["url"])
    # Saved around the form (or its address changed since): refused at send, nothing sent.
    endpoint.save()
    message = WebhookMessage.objects.create(
        endpoint=endpoint, event_type=EventType.ISSUED, brief_number="FT-1", body="{}"
    )
    delivery.deliver(message.pk)
    (logged,) = message.attempt_log.all()
    assert logged.status_code is None and logged.error.startswith("Refused:")


def test_an_allow_listed_network_may_be_called(settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.0.0.0/8"]
    WebhookEndpoint(name="intranet", url="http://10.0.0.1/hooks").full_clean()
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    secret = new_secret()
    receiver, server = webhook_receiver.start(secret)
    try:
        endpoint = WebhookEndpoint.objects.create(name="local", url=receiver.url, secret=secret)
        endpoint.full_clean()
        message = WebhookMessage.objects.create(
            endpoint=endpoint, event_type=EventType.ISSUED, brief_number="FT-1", body="{}"
        )
        assert delivery.deliver(message.pk).status == DeliveryStatus.DELIVERED
    finally:
        server.shutdown()
        server.server_close()
    assert receiver.received[0].verified
    # Only the status and the reason phrase are kept of the answer.
    assert message.attempt_log.get().response == "No Content"


def test_the_admin_form_refuses_a_metadata_address(settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    superuser = make_user("root", is_staff=True, is_superuser=True)
    page = signed_in_client(superuser).post(
        reverse("admin:webhooks_webhookendpoint_add"),
        {
            "name": "metadata",
            "format": "standard",
            "url": "http://169.254.169.254/latest/meta-data/",
            "events": ["brief.issued"],  # a checkbox each (decision 0143)
            "active": "on",
            "secret": new_secret(),
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert page.status_code == 200
    assert "169.254.169.254 is a link-local address" in page.content.decode()
    assert not WebhookEndpoint.objects.exists()


def test_deactivating_an_endpoint_stops_its_retries(people):
    endpoint = WebhookEndpoint.objects.create(name="down", url=webhook_receiver.closed_port_url())
    message = WebhookMessage.objects.create(
        endpoint=endpoint, event_type=EventType.ISSUED, brief_number="FT-1", body="{}"
    )
    assert delivery.deliver(message.pk).status == DeliveryStatus.RETRYING
    endpoint.active = False
    endpoint.save()
    message.refresh_from_db()
    assert message.status == DeliveryStatus.CANCELLED and message.next_attempt_at is None
    assert delivery.deliver(message.pk) is None  # the retry already queued does nothing
    assert message.attempt_log.count() == 1
    # A retry queued while the endpoint was deactivated without save() (a bulk update) stops
    # at send.
    other = WebhookMessage.objects.create(
        endpoint=endpoint, event_type=EventType.APPROVED, brief_number="FT-2", body="{}"
    )
    assert delivery.deliver(other.pk).status == DeliveryStatus.CANCELLED
    assert other.attempt_log.count() == 0


def _tls_receiver(tmp_path, host: str):
    """An HTTPS receiver on 127.0.0.1 with a certificate for ``host`` (its CA file, the server,
    and what it saw: the SNI name and the Host header)."""
    import datetime as dt
    import ssl
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "receiver.pem", tmp_path / "receiver-key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    seen = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            seen["host"] = self.headers["Host"]
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(202)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)

    def sni(sock, server_name, ctx):
        seen.setdefault("sni", server_name)  # returns None: go on with the handshake

    context.sni_callback = sni
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return cert_file, server, seen


def test_https_connects_to_the_checked_address_and_checks_the_urls_name(tmp_path, monkeypatch):
    """The name is resolved once, checked, and that address is connected to; TLS still names
    and checks the URL's host (SNI, certificate, Host header)."""
    import socket

    from advisor.webhooks import addresses

    cert_file, server, seen = _tls_receiver(tmp_path, "hooks.example.test")
    port = server.server_address[1]
    lookups = []

    def resolve(host, port_, *args, **kwargs):  # the receiver's DNS answer
        lookups.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port_))]

    monkeypatch.setattr(addresses.socket, "getaddrinfo", resolve)
    monkeypatch.setattr(delivery.certifi, "where", lambda: str(cert_file))
    try:
        url = f"https://hooks.example.test:{port}/hooks"
        assert delivery.post(url, b"{}", {}, robot=False) == (202, "Accepted", "")
        # The name is looked up once (the check); the connection is made to the address
        # literal it found, never to the name again.
        assert lookups == ["hooks.example.test", "127.0.0.1"]
        assert seen == {"sni": "hooks.example.test", "host": f"hooks.example.test:{port}"}
        status, _reason, error = delivery.post(
            f"https://other.example.test:{port}/hooks", b"{}", {}, robot=False
        )
        assert status is None and error.startswith("SSLError") and "other.example.test" in error
    finally:
        server.shutdown()
        server.server_close()
