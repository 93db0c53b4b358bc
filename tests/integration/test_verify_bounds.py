"""The public verify page is bounded, and names an untrusted signer for what it is.

Findings: six anonymous uploads of a 19.9 MB PDF with 200,000 empty signature fields kept all
web workers busy for 33-48 s each (no rate limit); a brief re-signed with a look-alike,
untrusted certificate was headed "Signature intact, but this document is not in our records".
Then (issue 33): form fields packed in compressed object streams, invisible to the raw-byte
counts, kept a worker parsing for 60 s (a 500); a padding key hid an object stream's /N.
Now the PDF is parsed in a child process under hard limits, with the bounds counted on the
parsed document, and at most VERIFY_SLOTS checks run at once.
"""

import io
import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from advisor.brief import verification as verification_module
from advisor.brief import verify_child
from advisor.brief.models import AuditAction, AuditEvent
from advisor.brief.verification import (
    Busy,
    NotAPdf,
    check_in_child,
    check_structure,
    object_count,
    verification_slot,
    verify_upload,
)
from advisor.brief.verify import MAX_FIELDS, MAX_OBJECTS, MAX_SIGNATURES, TooComplex, verify_pdf
from tests.support.bench import load_bench
from tests.support.briefs import CA_FILE, make_pki, make_signed_pdf, signing_settings

hostile = load_bench("_hostile_pdfs")

pytestmark = pytest.mark.django_db

NOT_ON_RECORD = "Signature intact, but this document is not in our records"
NOT_OURS = "Not signed by us"


@pytest.fixture(autouse=True)
def signing(pki_dir):
    with override_settings(BRIEF_SIGNING=signing_settings(pki_dir)):
        yield


@pytest.fixture(scope="module")
def ours(pki_dir):
    return make_signed_pdf(pki_dir, "FT-2026-000101")


@pytest.fixture(scope="module")
def look_alike(tmp_path_factory):
    """Signed by a certificate with the very same names, from a CA we do not trust."""
    directory = tmp_path_factory.mktemp("look-alike-pki")
    make_pki(directory)  # same organisation and signer names as the test PKI
    return make_signed_pdf(directory, "FT-2026-000101")


def upload(client, data: bytes, **extra):
    return client.post(
        reverse("brief:verify"),
        {"pdf": SimpleUploadedFile("brief.pdf", data, content_type="application/pdf")},
        HTTP_ACCEPT_LANGUAGE="en",
        **extra,
    )


def headline(response) -> str:
    html = response.content.decode()
    start = html.index('<h2 id="verdict">') + len('<h2 id="verdict">')
    return " ".join(html[start : html.index("</h2>", start)].split())


# --- Headline: untrusted signer, distinct from tampering and from "not on record" -----------


def test_a_look_alike_signer_gets_its_own_headline(client, look_alike):
    response = upload(client, look_alike.signed)
    assert response.status_code == 200
    assert headline(response).startswith(NOT_OURS)
    html = response.content.decode()
    assert "does not chain to our signing authority" in html
    assert "Test Signer" in html and "not a trusted signer" in html


def test_our_signature_not_on_record_keeps_its_headline(client, ours):
    assert headline(upload(client, ours.signed)) == NOT_ON_RECORD


def test_tampering_with_a_look_alike_is_still_tampering(client, look_alike):
    changed = bytearray(look_alike.signed)
    changed[len(look_alike.unsigned) // 2] ^= 0x01  # inside the signed bytes
    assert headline(upload(client, bytes(changed))).startswith("The document was changed")


def test_the_command_refuses_a_look_alike(look_alike, tmp_path):
    result = verify_upload(look_alike.signed)
    assert result.untrusted and not result.ok


def test_the_command_says_so_in_one_line_without_a_traceback(look_alike, tmp_path, capfd):
    path = tmp_path / "look-alike.pdf"
    path.write_bytes(look_alike.signed)
    with pytest.raises(CommandError) as refused:
        call_command("verify_brief", str(path))
    assert refused.value.returncode == 1
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: not signed by us")
    assert "trusted=False" in message and "on record: no" in message
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "PathValidationError" not in out + err


# --- Bounds: a first sieve over the raw bytes ---------------------------------------------------


def many_fields(count: int) -> bytes:
    body = b"".join(
        b"%d 0 obj\n<< /FT /Sig /T (f%d) >>\nendobj\n" % (i, i) for i in range(1, count + 1)
    )
    return b"%PDF-1.7\n" + body + b"trailer\n<< /Size 1 >>\n%%EOF\n"


def packed_objects(count: int) -> bytes:
    return (
        b"%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N "
        + str(count).encode()
        + b" /First 4 /Length 0 >>\nstream\n\nendstream\nendobj\n%%EOF\n"
    )


@pytest.mark.parametrize(
    "data",
    [
        many_fields(200_000),
        many_fields(20),  # more signature fields than any brief has
        packed_objects(50_000),
        many_fields(10) + packed_objects(25_000),
    ],
    ids=["200k-fields", "20-signatures", "object-stream", "mixed"],
)
def test_hostile_structure_is_refused_before_parsing(client, monkeypatch, data):
    def must_not_parse(*args, **kwargs):
        raise AssertionError("the PDF was parsed")

    monkeypatch.setattr(verification_module, "check_in_child", must_not_parse)
    response = upload(client, data)
    assert response.status_code == 422
    assert "too complex to check here" in response.content.decode()
    assert not AuditEvent.objects.filter(action=AuditAction.BRIEF_VERIFIED).exists()


def test_a_real_brief_is_far_inside_the_bounds(ours, look_alike, pki_dir):
    roots = [load_root(pki_dir)]
    for pdf in (ours.signed, look_alike.signed, ours.unsigned):
        check_structure(pdf)
        assert object_count(pdf) < MAX_OBJECTS // 20
        verify_pdf(pdf, roots)  # the bounds on the parsed document pass


def load_root(pki_dir):
    from pyhanko.keys import load_cert_from_pemder

    return load_cert_from_pemder(str(pki_dir / CA_FILE))


# --- Bounds counted on the parsed document, in a child process ---------------------------------


@pytest.fixture(scope="module")
def crafted(ours):
    """The probe's files: weight where a byte scan does not see it (bench/_hostile_pdfs.py)."""
    contents = hostile.signature_contents(ours.signed)
    return {
        "fields-in-object-streams": hostile.fields_in_object_streams(5_000),
        "hidden-object-count": hostile.hidden_object_count(20_000),
        "deep-kids": hostile.deep_kids(5_000),
        "many-signatures": hostile.many_signatures(3_000, contents),
        "signatures-under-the-field-cap": hostile.many_signatures(MAX_FIELDS // 4, contents),
    }


BOUND = {
    "fields-in-object-streams": f"more than {MAX_FIELDS} form fields",
    "hidden-object-count": f"more than {MAX_OBJECTS:,} objects",
    "deep-kids": "form fields nested more than",
    "many-signatures": f"more than {MAX_FIELDS} form fields",
    "signatures-under-the-field-cap": f"more than {MAX_SIGNATURES} signatures",
}


@pytest.mark.parametrize("name", sorted(BOUND))
def test_crafted_files_pass_the_byte_sieve_and_meet_a_bound_when_parsed(name, crafted, pki_dir):
    data = crafted[name]
    check_structure(data)  # invisible to the raw counts: the parsed document decides
    with pytest.raises(TooComplex, match=BOUND[name]):
        verify_pdf(data, [load_root(pki_dir)])


@pytest.mark.parametrize("name", sorted(BOUND))
def test_crafted_files_get_a_clear_answer_within_five_seconds(client, name, crafted, settings):
    assert settings.VERIFY_BUDGET_S < 5  # the child is killed by then, whatever it does
    started = time.monotonic()
    response = upload(client, crafted[name])
    elapsed = time.monotonic() - started
    assert response.status_code == 422, response.content.decode()[:500]
    html = response.content.decode()
    assert "too complex to check here" in html or "the check was stopped" in html
    assert elapsed < 5, f"{name}: {elapsed:.1f} s"
    assert not AuditEvent.objects.filter(action=AuditAction.BRIEF_VERIFIED).exists()


def test_the_refusal_comes_from_the_bounds_not_the_deadline(crafted, settings):
    settings.VERIFY_BUDGET_S = 120  # an upper bound for a busy machine, not a wait
    for name in BOUND:
        with pytest.raises(NotAPdf, match="too-complex"):
            check_in_child(crafted[name])


# --- Hard limits: what the bounds do not foresee is stopped ---------------------------------


@pytest.mark.parametrize(
    ("target", "limit"),
    [("sleep", {"VERIFY_BUDGET_S": 0.5}), ("spin", {"VERIFY_CPU_S": 1}), ("hog", {})],
)
def test_a_check_that_runs_away_is_stopped(client, ours, settings, monkeypatch, target, limit):
    """A child that sleeps meets the deadline, one that spins its CPU limit, one that
    allocates its memory limit; the page answers 422 with a plain message."""
    monkeypatch.setattr(verify_child, "TARGET", f"tests.support.sandbox_targets:{target}")
    settings.VERIFY_BUDGET_S = 60  # upper bounds, not waits
    settings.VERIFY_MEMORY_MB = 128
    for key, value in limit.items():
        setattr(settings, key, value)
    response = upload(client, ours.signed)
    assert response.status_code == 422
    assert "the check was stopped" in response.content.decode()


def test_a_crash_in_the_check_is_a_plain_message_and_an_operator_log(
    client, ours, monkeypatch, caplog
):
    monkeypatch.setattr(verify_child, "TARGET", "tests.support.sandbox_targets:fail")
    response = upload(client, ours.signed)
    assert response.status_code == 422
    html = response.content.decode()
    assert "could not be checked because of a fault on our side" in html
    assert "RuntimeError" not in html and "Traceback" not in html
    assert "verification failed: the check crashed" in caplog.text


# --- At most VERIFY_SLOTS checks at once, across processes ------------------------------------


@pytest.fixture
def one_slot(settings, tmp_path):
    settings.VERIFY_SLOTS = 1
    settings.VERIFY_SLOT_DIR = tmp_path / "slots"
    settings.VERIFY_QUEUE_S = 0  # no wait for a turn: the excess is answered at once


@pytest.mark.usefixtures("one_slot")
@pytest.mark.parametrize(
    ("language", "headline"),
    [("en", "Too many checks are running"), ("zh-hans", None)],
)
def test_the_excess_gets_503_with_retry_after(client, ours, language, headline):
    with translation.override(language):
        headline = headline or translation.gettext("Too many checks are running")
    with verification_slot():  # another worker's check holds the only slot
        response = client.post(
            reverse("brief:verify"),
            {"pdf": SimpleUploadedFile("b.pdf", ours.signed, content_type="application/pdf")},
            HTTP_ACCEPT_LANGUAGE=language,
        )
    assert response.status_code == 503
    assert response["Retry-After"] == "10"
    assert headline in response.content.decode()
    assert language == "en" or headline != "Too many checks are running"
    # The slot is free again: the next check runs.
    assert upload(client, ours.signed).status_code == 200


@pytest.mark.usefixtures("one_slot")
def test_the_command_waits_for_a_slot_then_says_so_in_one_line(ours, tmp_path):
    path = tmp_path / "brief.pdf"
    path.write_bytes(ours.signed)
    with verification_slot(), pytest.raises(CommandError) as busy:
        call_command("verify_brief", str(path), "--wait", "0", stdout=io.StringIO())
    assert str(busy.value) == f"{path}: not checked: every verification slot stayed busy for 0 s"


# --- Fair shares: one check in flight per client address and per user (decision 0122) ---------


@pytest.fixture
def two_slots(settings, tmp_path):
    settings.VERIFY_SLOTS = 2
    settings.VERIFY_SLOT_DIR = tmp_path / "slots"
    settings.VERIFY_QUEUE_S = 0


ATTACKER = ("address:203.0.113.66",)


@pytest.mark.usefixtures("two_slots")
def test_one_clients_crafted_uploads_do_not_fail_another_clients_genuine_check(client, ours):
    """The attacker's first crafted upload is being checked (it holds a slot and its address's
    turn); its further uploads wait for that turn instead of taking the other slot, so a
    genuine check from another address finds it free."""
    with verification_slot(0, ATTACKER):
        for _ in range(3):  # more uploads from the same address: none takes the free slot
            with pytest.raises(Busy), verification_slot(0, ATTACKER):
                pass
        page = client.post(
            reverse("brief:verify"),
            {"pdf": SimpleUploadedFile("b.pdf", ours.signed, content_type="application/pdf")},
            REMOTE_ADDR="198.51.100.7",
            HTTP_ACCEPT_LANGUAGE="en",
        )
        assert page.status_code == 200
        assert "Signature intact" in page.content.decode()
        # The attacker's own address gets "busy" (after its wait), not another slot.
        own = client.post(
            reverse("brief:verify"),
            {"pdf": SimpleUploadedFile("b.pdf", ours.signed, content_type="application/pdf")},
            REMOTE_ADDR="203.0.113.66",
        )
        assert own.status_code == 503


@pytest.mark.usefixtures("two_slots")
def test_one_user_has_one_check_in_flight_from_any_address(ours):
    with verification_slot(0, ("address:203.0.113.1", "user:7")):
        with pytest.raises(Busy), verification_slot(0, ("address:203.0.113.2", "user:7")):
            pass
        with verification_slot(0, ("address:203.0.113.3", "user:8")) as index:
            assert index == 1


@pytest.mark.usefixtures("one_slot")
def test_a_check_waits_its_turn_instead_of_being_refused(monkeypatch):
    """With every slot held, a check with time to wait is queued and runs when one frees:
    the slot is released only once the other check is seen waiting for it."""
    waiting_seen = threading.Event()

    def pause():
        waiting_seen.set()
        time.sleep(0.01)

    monkeypatch.setattr(verification_module, "_pause", pause)
    got = []
    holder = verification_slot(0, ATTACKER)
    holder.__enter__()
    waiting = threading.Thread(
        target=lambda: got.append(_hold_briefly(("address:198.51.100.7",), wait_s=60))
    )
    waiting.start()
    assert waiting_seen.wait(60)
    assert got == []  # still queued while the slot is held
    holder.__exit__(None, None, None)
    waiting.join()
    assert got == [0]


def _hold_briefly(owners, wait_s):
    with verification_slot(wait_s, owners) as index:
        return index


def _waiting(monkeypatch):
    """An event set once a check is seen waiting (it polls between tries)."""
    seen = threading.Event()

    def pause():
        seen.set()
        time.sleep(0.01)

    monkeypatch.setattr(verification_module, "_pause", pause)
    return seen


def test_an_owner_has_one_check_waiting_at_most_and_waiting_places_are_few(
    monkeypatch, settings, tmp_path
):
    """Each waiting check holds a web worker: one client gets one in flight and one waiting,
    further uploads are refused at once; and at most VERIFY_QUEUE_PLACES wait on a host."""
    settings.VERIFY_SLOT_DIR = tmp_path / "slots"
    settings.VERIFY_SLOTS, settings.VERIFY_QUEUE_PLACES = 2, 1
    seen = _waiting(monkeypatch)
    got = []
    holder = verification_slot(0, ATTACKER)
    holder.__enter__()  # the attacker's first upload is being checked
    second = threading.Thread(target=lambda: got.append(_hold_briefly(ATTACKER, wait_s=60)))
    second.start()
    assert seen.wait(60)  # its second waits for its turn...
    with pytest.raises(Busy), verification_slot(60, ATTACKER):  # ...a third is refused at once
        pass
    # Another client finds the free slot; a third client, with no slot and no waiting place
    # free, is refused at once rather than holding a web worker.
    with verification_slot(0, ("address:198.51.100.7",)) as index:
        assert index == 1
        with pytest.raises(Busy), verification_slot(60, ("address:198.51.100.8",)):
            pass
    holder.__exit__(None, None, None)
    second.join()
    assert got == [0]


# --- Per-client rate limit (django-ratelimit) -------------------------------------------------


@pytest.fixture
def limited(settings, monkeypatch):
    settings.VERIFY_RATE_LIMIT = "3/m"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # One fixed window, so that no minute boundary can fall between the posts.
    monkeypatch.setattr("django_ratelimit.core._get_window", lambda value, period: 1_000_000)
    from django.core.cache import cache

    cache.clear()


@pytest.mark.usefixtures("limited")
def test_uploads_are_limited_per_client_address(client, ours):
    first = {"REMOTE_ADDR": "203.0.113.7"}
    for _ in range(3):
        assert upload(client, ours.signed, **first).status_code == 200
    refused = upload(client, ours.signed, **first)
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert "Too many checks from your address" in refused.content.decode()
    assert AuditEvent.objects.filter(action=AuditAction.BRIEF_VERIFIED).count() == 3
    # Another client is not held up; reading the page is never limited.
    assert upload(client, ours.signed, REMOTE_ADDR="198.51.100.9").status_code == 200
    assert client.get(reverse("brief:verify"), **first).status_code == 200
