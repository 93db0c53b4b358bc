"""The HTTP API (advisor/api): the CLI's figures and words, the pages' permissions and owners,
tokens scoped, expiring and revocable, rate limited, every write audited, a valid OpenAPI 3."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from openapi_spec_validator import validate

from advisor.api import tokens
from advisor.api.models import ApiToken
from advisor.assessments.answers import assessment_document
from advisor.brief.models import AuditAction, AuditEvent, Brief
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.support.api import api_client, post_document, token_client
from tests.support.assessments import finished_assessment
from tests.support.scenarios import COMPARED_SITES, QWEN_7B_LORA_COMPARED, QWEN_32B_LORA, scenario
from tests.support.users import make_user, signed_in_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

ENDPOINTS = {
    ("post", "/api/v1/size"),
    ("post", "/api/v1/recommend"),
    ("post", "/api/v1/assessments"),
    ("get", "/api/v1/assessments"),
    ("get", "/api/v1/assessments/{assessment_id}"),
    ("get", "/api/v1/assessments/{assessment_id}/results"),
    ("post", "/api/v1/assessments/{assessment_id}/briefs"),
    ("get", "/api/v1/briefs"),
    ("get", "/api/v1/briefs/{brief_id}"),
    ("get", "/api/v1/briefs/{brief_id}/pdf"),
    ("get", "/api/v1/briefs/{brief_id}/snapshot"),
    ("post", "/api/v1/verify"),
}


@pytest.fixture
def buyer():
    return make_user("buyer", PROCUREMENT_STAFF)


@pytest.fixture
def api(buyer):
    return api_client(buyer)


def cli(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def cli_json(tmp_path, command, document, *extra) -> dict:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(document))
    return json.loads(cli(command, "--input", str(path), "--format", "json", *extra))


def cli_refusal(tmp_path, command, document) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    with pytest.raises(CommandError) as refused:
        cli(command, "--input", str(path))
    assert refused.value.returncode == 2
    return str(refused.value)


def one_error(response) -> str:
    """The single ``field: message`` of a 400, as the command line prints it."""
    assert response.status_code == 400, response.content
    (error,) = response.json()["errors"]
    return f"{error['field']}: {error['message']}"


# --- The schema and the docs ------------------------------------------------------------------


def no_duplicate_keys(pairs):
    """A JSON object whose every key is its own (a browser's YAML parser refuses duplicates)."""
    keys = [key for key, _value in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


def test_openapi_schema_is_valid_and_lists_every_endpoint():
    response = Client().get("/api/v1/openapi.json")  # no token: a generator reads it
    assert response.status_code == 200
    schema = json.loads(response.content, object_pairs_hook=no_duplicate_keys)
    validate(schema)  # openapi-spec-validator: raises on an invalid OpenAPI document
    listed = {(method, path) for path, item in schema["paths"].items() for method in item}
    assert listed == ENDPOINTS
    assert schema["components"]["securitySchemes"]["TokenAuth"]["scheme"] == "bearer"


def test_the_docs_are_for_signed_in_users_or_tokens(buyer, api):
    anonymous = Client().get("/api/v1/docs")
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("login"))
    assert signed_in_client(buyer).get("/api/v1/docs").status_code == 200
    assert api.get("/api/v1/docs").status_code == 200
    page = signed_in_client(buyer).get("/api/v1/docs").content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in page  # served here, not from a CDN
    assert "/api/v1/openapi.json" in page


def test_the_root_says_where_the_docs_schema_and_tokens_are_without_a_token():
    response = Client().get("/api/v1/")
    assert response.status_code == 200
    index = response.json()
    assert index["version"] == "1"
    assert index["docs"] == "/api/v1/docs"
    assert index["openapi"] == "/api/v1/openapi.json"
    assert index["tokens"] == reverse("api_tokens:list")
    assert Client().get("/api").status_code in (200, 301)  # APPEND_SLASH, never a 404


# --- Size and recommend: the command line's figures and words ---------------------------------


def test_size_answers_what_the_size_command_prints(api, tmp_path):
    document = scenario(hardware={"accelerator": "h100-sxm-80gb", "count": 8, "nodes": 1})
    document["parallelism"] = {**document["parallelism"], "strategy": "fsdp"}
    response = post_document(api, "/api/v1/size", document)
    assert response.status_code == 200, response.content
    assert response.json() == cli_json(tmp_path, "size", document)


@pytest.mark.parametrize("standard", ["7b-compared", "7b-guian-cloud", "32b-compared"])
def test_recommend_gives_the_options_the_command_gives(api, tmp_path, standard):
    document = {
        "7b-compared": QWEN_7B_LORA_COMPARED,
        "32b-compared": scenario(QWEN_32B_LORA, site={"data_centers": COMPARED_SITES}),
        "7b-guian-cloud": scenario(
            site={"data_centers": ["example-guian"]},
            procurement={
                "modes": ["buy", "cloud"],
                "usage": "programme",
                "years": 3,
                "runs_per_year": 4,
            },
        ),
    }[standard]
    response = post_document(api, "/api/v1/recommend", document, language="zh-hans")
    assert response.status_code == 200, response.content
    expected = cli_json(tmp_path, "recommend", document, "--language", "zh-hans")
    assert response.json() == expected
    assert expected["qualifying"] >= 1


@pytest.mark.parametrize(
    "change",
    [
        {"model": {**QWEN_7B_LORA_COMPARED["model"], "layers": 0}},
        {"procurement": {"years": 1.5}},
        {"procurement": {"deadline": "2020-01-01"}},
        {"site": {"data_centers": ["atlantis"]}},
        {"method": "qlora", "precision": "fp32"},
        {"seq_len": "long"},
    ],
)
def test_a_refused_document_names_the_field_in_the_commands_words(api, tmp_path, change):
    document = {**QWEN_7B_LORA_COMPARED, **change}
    line = cli_refusal(tmp_path, "recommend", document)
    for url in ("/api/v1/recommend", "/api/v1/size", "/api/v1/assessments"):
        assert one_error(post_document(api, url, document)) == line
    assert not AuditEvent.objects.filter(action=AuditAction.API_WRITE).exists()


@pytest.mark.parametrize(
    "body",
    [
        "",
        "not json",
        "[1, 2]",
        '{"model": ',
        "[" * 5000 + "]" * 5000,
        "\udcff",
        '{"model": {"name": "\\ud800"}}',
    ],
)
def test_what_is_not_a_document_is_refused_as_the_commands_refuse_it(api, tmp_path, body):
    raw = body.encode("utf-8", "surrogateescape") if body == "\udcff" else body
    response = post_document(api, "/api/v1/recommend", raw)
    words = one_error(response)
    assert words.startswith("input: ")
    if body != "\udcff":  # the command names the file it could not read
        assert words == cli_refusal(tmp_path, "recommend", body)


def test_control_characters_are_refused_and_bidi_controls_stored_without_them(api):
    """A NUL is refused naming the field (decision 0124); bidi controls, which a name may
    carry by a slip of the keyboard, are removed when stored (advisor.text)."""
    document = scenario(QWEN_7B_LORA_COMPARED)
    document["model"]["name"] = "Qwen\u0000 7B LoRA"
    refused = post_document(api, "/api/v1/assessments", document)
    assert one_error(refused) == "model.name: must not contain control characters (found U+0000)"
    document["model"]["name"] = "Qwen 7B \u202eLoRA"
    refused = post_document(api, "/api/v1/assessments", document, title="a\u0000b")
    assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "title"
    created = post_document(api, "/api/v1/assessments", document, title="a\u202eb")
    assert created.status_code == 201, created.content
    detail = api.get(f"/api/v1/assessments/{created.json()['id']}").json()
    assert detail["document"]["model"]["name"] == "Qwen 7B LoRA"
    assert detail["title"] == "ab"


def test_a_body_over_a_mebibyte_is_refused(api):
    document = {**QWEN_7B_LORA_COMPARED, "padding": "x" * (1024 * 1024)}
    assert one_error(post_document(api, "/api/v1/size", document)) == "input: larger than 1024 KiB"


def test_unknown_accelerator_and_bad_query_are_400s_naming_the_field(api):
    response = post_document(api, "/api/v1/size", QWEN_7B_LORA_COMPARED, accelerator="tpu-9")
    assert one_error(response).startswith("accelerator: unknown accelerator 'tpu-9'")
    response = post_document(api, "/api/v1/size", QWEN_7B_LORA_COMPARED, gpus="many")
    assert response.status_code == 400
    assert [e["field"] for e in response.json()["errors"]] == ["gpus"]
    response = post_document(api, "/api/v1/recommend", QWEN_7B_LORA_COMPARED, language="fr")
    assert [e["field"] for e in response.json()["errors"]] == ["language"]


# --- Assessments and results --------------------------------------------------------------------


def test_an_assessment_made_from_a_document_is_read_listed_and_ranked(buyer, api, tmp_path):
    created = post_document(api, "/api/v1/assessments", QWEN_7B_LORA_COMPARED, title="From CI")
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["title"], body["status"]) == ("From CI", "complete")
    assert api.get("/api/v1/assessments").json()[0]["id"] == body["id"]
    detail = api.get(f"/api/v1/assessments/{body['id']}").json()
    assert detail["document"] == QWEN_7B_LORA_COMPARED
    results = api.get(f"/api/v1/assessments/{body['id']}/results")
    assert results.status_code == 200
    expected = cli_json(tmp_path, "recommend", QWEN_7B_LORA_COMPARED)
    assert results.json()["options"] == expected["options"]
    # The pages show the same assessment: its results page opens.
    assert signed_in_client(buyer).get(body["page"]).status_code == 200
    event = AuditEvent.objects.get(action=AuditAction.API_WRITE)
    assert event.actor == buyer
    assert event.detail["assessment"] == body["id"]
    assert event.detail["token"] == ApiToken.objects.get().prefix


def test_an_assessment_made_from_a_document_shows_its_job_and_keeps_its_document(buyer, api):
    """Its wizard steps were never answered: the task list says where it came from and shows
    the job the document states; the steps and the check page lead back there, so a saved
    step cannot replace the document."""
    created = post_document(api, "/api/v1/assessments", QWEN_7B_LORA_COMPARED, title="From CI")
    pk = created.json()["id"]
    page = signed_in_client(buyer)
    task_list = reverse("wizard:task_list", args=[pk])
    english = page.get(task_list, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "made from a scenario document sent through the API" in english
    assert "Qwen2.5 7B (7.62 billion parameters)" in english
    assert "LoRA, rank 16" in english and "4,096" in english
    assert "Not started" not in english and reverse("results:list", args=[pk]) in english
    chinese = page.get(task_list, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "本评估由通过 API 提交的场景文档创建" in chinese and "序列长度" in chinese
    for url in (reverse("wizard:step", args=[pk, "model"]), reverse("wizard:check", args=[pk])):
        assert page.get(url)["Location"] == task_list
        assert page.post(url, {"version": 1})["Location"] == task_list
    detail = api.get(f"/api/v1/assessments/{pk}").json()
    assert detail["document"] == QWEN_7B_LORA_COMPARED


def test_a_wizard_assessment_reads_as_its_document(buyer, api):
    assessment = finished_assessment(buyer)
    detail = api.get(f"/api/v1/assessments/{assessment.pk}").json()
    assert detail["document"] == json.loads(json.dumps(assessment_document(assessment)))


def test_another_buyers_objects_are_not_found_and_an_approver_is_refused(buyer, api):
    theirs = finished_assessment(make_user("other", PROCUREMENT_STAFF))
    for url in (f"/api/v1/assessments/{theirs.pk}", f"/api/v1/assessments/{theirs.pk}/results"):
        assert api.get(url).status_code == 404
    assert api.get("/api/v1/assessments/999999").status_code == 404
    approver = api_client(make_user("approver", APPROVER))
    assert approver.get("/api/v1/assessments").status_code == 403
    assert post_document(approver, "/api/v1/recommend", QWEN_7B_LORA_COMPARED).status_code == 403


# --- Briefs -------------------------------------------------------------------------------------


@pytest.mark.usefixtures("one_page_briefs")
def test_a_brief_issued_through_the_api_is_queued_read_downloaded_and_verified(
    buyer, api, django_capture_on_commit_callbacks
):
    assessment = finished_assessment(buyer)
    results = api.get(f"/api/v1/assessments/{assessment.pk}/results").json()
    option = next(o["key"] for o in results["options"] if o["qualifies"])
    with django_capture_on_commit_callbacks(execute=True) as queued:
        issued = api.post(
            f"/api/v1/assessments/{assessment.pk}/briefs",
            {"option": option, "language": "en", "computed": results["computed"]},
            content_type="application/json",
        )
    assert issued.status_code == 202, issued.content
    assert len(queued) == 1  # the generation task, queued on commit as from the page
    brief = Brief.objects.get()
    status = api.get(f"/api/v1/briefs/{brief.pk}").json()
    assert (status["number"], status["option"], status["ready"]) == (brief.number, option, True)
    assert api.get("/api/v1/briefs").json()[0]["id"] == brief.pk
    pdf = api.get(status["pdf"])
    assert pdf["Content-Type"] == "application/pdf"
    assert "no-store" in pdf["Cache-Control"] and "private" in pdf["Cache-Control"]
    data = b"".join(pdf.streaming_content)
    snapshot = api.get(f"/api/v1/briefs/{brief.pk}/snapshot").json()
    assert snapshot["options"][0]["key"] == option
    verified = api.post("/api/v1/verify", {"pdf": _upload(data)})
    assert verified.status_code == 200, verified.content
    assert verified.json()["ok"] and verified.json()["brief"] == brief.number
    not_pdf = api.post("/api/v1/verify", {"pdf": _upload(b"hello")})
    assert one_error(not_pdf) == "pdf: The selected file is not a PDF."
    actions = list(AuditEvent.objects.order_by("pk").values_list("action", flat=True))
    assert AuditAction.BRIEF_ISSUED in actions and AuditAction.API_WRITE in actions
    assert AuditAction.BRIEF_DOWNLOADED in actions and AuditAction.BRIEF_VERIFIED in actions
    # Stale results and unknown options are refused with the field named.
    stale = api.post(
        f"/api/v1/assessments/{assessment.pk}/briefs",
        {"option": option, "computed": "0" * 32},
        content_type="application/json",
    )
    assert stale.status_code == 409 and stale.json()["errors"][0]["field"] == "computed"
    unknown = api.post(
        f"/api/v1/assessments/{assessment.pk}/briefs",
        {"option": "no-such-option"},
        content_type="application/json",
    )
    assert unknown.status_code == 400 and unknown.json()["errors"][0]["field"] == "option"
    # Another buyer's brief is not found; an approver sees it (as on the pages).
    other = api_client(make_user("other", PROCUREMENT_STAFF))
    assert other.get(f"/api/v1/briefs/{brief.pk}").status_code == 404
    assert other.get(f"/api/v1/briefs/{brief.pk}/pdf").status_code == 404
    approver = api_client(make_user("approver", APPROVER))
    assert approver.get(f"/api/v1/briefs/{brief.pk}").status_code == 200
    assert (
        approver.post(
            f"/api/v1/assessments/{assessment.pk}/briefs", {"option": option}, "application/json"
        ).status_code
        == 403
    )


def _upload(data: bytes):
    return SimpleUploadedFile("brief.pdf", data, content_type="application/pdf")


# --- Tokens -------------------------------------------------------------------------------------


def test_a_read_token_cannot_write(buyer):
    reader = api_client(buyer, scope="read")
    assessment = finished_assessment(buyer)
    response = post_document(reader, "/api/v1/assessments", QWEN_7B_LORA_COMPARED)
    assert response.status_code == 403
    assert response.json()["errors"][0]["field"] == "token"
    issue = reader.post(
        f"/api/v1/assessments/{assessment.pk}/briefs", {"option": "x"}, "application/json"
    )
    assert issue.status_code == 403
    assert reader.get(f"/api/v1/assessments/{assessment.pk}").status_code == 200
    assert post_document(reader, "/api/v1/recommend", QWEN_7B_LORA_COMPARED).status_code == 200


def test_missing_unknown_revoked_and_expired_tokens_get_401(buyer):
    _token, revoked = tokens.create_token(user=buyer, name="old", scope="write", days=5)
    tokens.revoke_token(user=buyer, pk=_token.pk)
    expired_token, expired = tokens.create_token(user=buyer, name="e", scope="write", days=1)
    ApiToken.objects.filter(pk=expired_token.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    clients = [
        Client(),
        token_client("fta_00000000_" + "x" * 43),
        token_client(revoked),
        token_client(expired),
        Client(HTTP_AUTHORIZATION=f"Token {revoked}"),
    ]
    for client in clients:
        response = client.get("/api/v1/assessments")
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == "Bearer"
    buyer.is_active = False
    buyer.save()
    _t, text = tokens.create_token(user=buyer, name="n", scope="read", days=None)
    assert token_client(text).get("/api/v1/assessments").status_code == 401


def test_only_a_hash_of_the_token_is_stored(buyer):
    token, text = tokens.create_token(user=buyer, name="ci", scope="read", days=30)
    stored = json.dumps(list(ApiToken.objects.values()), default=str)
    secret = text.split("_", 2)[2]  # the secret itself may hold "_" (URL-safe base64)
    assert text not in stored and secret not in stored
    assert token.digest == tokens.digest(text) and text.startswith(f"fta_{token.prefix}_")
    created = AuditEvent.objects.get(action=AuditAction.API_TOKEN_CREATED)
    assert created.detail["token"] == token.prefix and text not in json.dumps(created.detail)


def test_requests_are_rate_limited_per_token_and_per_user(buyer, settings):
    settings.API_RATE_LIMIT = "3/m"
    first, second = api_client(buyer), api_client(buyer)
    answers = [first.get("/api/v1/assessments").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    # Another token of the same user shares the user's allowance (decision 0122)...
    assert second.get("/api/v1/assessments").status_code == 429
    # ...another user's token does not.
    other = make_user("other-buyer", PROCUREMENT_STAFF)
    assert api_client(other).get("/api/v1/assessments").status_code == 200


def test_verifying_is_bounded_per_token_and_per_user_as_the_page_is_per_address(buyer, settings):
    settings.VERIFY_RATE_LIMIT = "2/m"
    api = api_client(buyer, scope="read")
    answers = [api.post("/api/v1/verify", {"pdf": _upload(b"hello")}) for _ in range(3)]
    assert [a.status_code for a in answers] == [400, 400, 429]
    assert answers[-1]["Retry-After"] == "60"
    fresh = api_client(buyer, scope="read")  # a new token of the same user: still limited
    assert fresh.post("/api/v1/verify", {"pdf": _upload(b"hello")}).status_code == 429


def test_a_user_holds_at_most_ten_active_tokens(buyer):
    for number in range(tokens.MAX_ACTIVE_TOKENS):
        tokens.create_token(user=buyer, name=f"t{number}", scope="read", days=30)
    with pytest.raises(tokens.TooManyTokens):
        tokens.create_token(user=buyer, name="one more", scope="read", days=30)
    page = signed_in_client(buyer).post(
        reverse("api_tokens:list"),
        {"name": "one more", "scope": "read", "days": 30},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert page.status_code == 400
    assert "You hold 10 active tokens, the most allowed. Revoke one first." in page.content.decode()
    with pytest.raises(CommandError, match="at most 10 active tokens"):
        cli("api_token", "create", "--user", buyer.username, "--scope", "read")
    # Revoking one makes room; revoked and expired tokens do not count.
    tokens.revoke_token(user=buyer, pk=tokens.tokens_of(buyer).first().pk)
    ApiToken.objects.filter(user=buyer).update(expires_at=timezone.now() - timedelta(days=1))
    for number in range(tokens.MAX_ACTIVE_TOKENS):
        tokens.create_token(user=buyer, name=f"new {number}", scope="read", days=30)


def test_the_command_prints_a_token_once_that_works(buyer):
    text = cli("api_token", "create", "--user", "buyer", "--scope", "read", "--days", "7").strip()
    assert token_client(text).get("/api/v1/assessments").status_code == 200
    token = ApiToken.objects.get()
    assert token.scope == "read"
    assert timedelta(days=6) < token.expires_at - timezone.now() <= timedelta(days=7)
    for args, words in [
        (("--user", "nobody", "--scope", "read"), "user: no user named 'nobody'"),
        (("--user", "buyer", "--scope", "read", "--days", "0"), "days: must be between 1 and"),
    ]:
        with pytest.raises(CommandError) as refused:
            cli("api_token", "create", *args)
        assert refused.value.returncode == 2 and str(refused.value).startswith(words)
