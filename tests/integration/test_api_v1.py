"""The API's contract as a generated client reads it (issue 48, decision 0130): /api/v1/ with
/api/ as a deprecated alias, short operation ids, every error status declared with the one
error shape, the PDF as binary, typed bodies, the schema readable without a token, and the
`language` a request names followed by its messages."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from openapi_schema_validator import OAS31Validator
from openapi_schema_validator import validate as validate_instance
from openapi_spec_validator import validate

from advisor.api.schemas import SizeOut
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.support.api import api_client, post_document, token_client
from tests.support.assessments import finished_assessment
from tests.support.scenarios import QWEN_7B_LORA_COMPARED
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("brief_ready")]

# What each operation can answer besides its success (docs/api.md, "Errors").
ERRORS = {
    "size": {400, 401, 403, 429},
    "recommend": {400, 401, 403, 429},
    "create_assessment": {400, 401, 403, 429},
    "list_assessments": {400, 401, 403, 429},
    "read_assessment": {400, 401, 403, 404, 429},
    "results": {400, 401, 403, 404, 409, 429},
    "issue_brief": {400, 401, 403, 404, 409, 429},
    "list_briefs": {400, 401, 429},
    "brief_status": {400, 401, 404, 429},
    "brief_pdf": {400, 401, 404, 429},
    "brief_snapshot": {400, 401, 404, 429},
    "verify": {400, 401, 429, 503},
}


@pytest.fixture
def buyer():
    return make_user("buyer", PROCUREMENT_STAFF)


@pytest.fixture
def schema():
    return Client().get("/api/v1/openapi.json").json()


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_the_schema_is_valid_names_v1_and_uses_short_operation_ids(schema):
    validate(schema)
    assert all(path.startswith("/api/v1/") for path in schema["paths"])
    ids = {operation["operationId"] for _path, _method, operation in operations(schema)}
    assert ids == set(ERRORS)


def test_every_operation_declares_its_error_statuses_with_the_one_error_shape(schema):
    for _path, _method, operation in operations(schema):
        declared = {int(code) for code in operation["responses"] if int(code) >= 400}
        assert declared == ERRORS[operation["operationId"]], operation["operationId"]
        for code in declared:
            content = operation["responses"][str(code)]["content"]["application/json"]
            assert content["schema"] == {"$ref": "#/components/schemas/Errors"}
        names = {p["name"] for p in operation.get("parameters", ()) if p["in"] == "query"}
        assert "language" in names, operation["operationId"]


def test_the_pdf_is_binary_and_the_bodies_are_typed(schema):
    pdf = schema["paths"]["/api/v1/briefs/{brief_id}/pdf"]["get"]["responses"]["200"]
    assert pdf["content"] == {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}
    document = {"$ref": "#/components/schemas/ScenarioDocument"}
    for path in ("/api/v1/size", "/api/v1/recommend", "/api/v1/assessments"):
        body = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]
        assert body["schema"] == document
    scenario = schema["components"]["schemas"]["ScenarioDocument"]
    assert {"model", "method", "hardware", "site", "procurement", "declared"} <= set(
        scenario["properties"]
    )
    assert "lora" in scenario["properties"]["method"]["enum"]
    size = schema["paths"]["/api/v1/size"]["post"]["responses"]["200"]["content"]
    assert size["application/json"]["schema"] == {"$ref": "#/components/schemas/SizeOut"}


def test_a_size_answer_is_what_its_schema_says(buyer):
    answer = post_document(api_client(buyer), "/api/v1/size", QWEN_7B_LORA_COMPARED)
    assert answer.status_code == 200, answer.content
    SizeOut.model_validate(answer.json())  # extra keys forbidden: every key is described


def test_the_schema_is_readable_without_a_token_and_never_redirects():
    for url in ("/api/v1/openapi.json", "/api/openapi.json"):
        response = Client().get(url)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("application/json")
        assert "/api/v1/size" in response.json()["paths"]  # the alias's schema names v1 too


def test_without_a_token_an_operation_is_a_401_in_the_error_shape():
    response = Client().get("/api/v1/briefs")
    assert response.status_code == 401
    assert response.json() == {
        "errors": [{"field": "token", "message": "missing, unknown, expired or revoked"}]
    }
    assert response["WWW-Authenticate"] == "Bearer"


def test_the_old_path_answers_the_same_and_names_its_successor(buyer):
    api = api_client(buyer)
    old = post_document(api, "/api/size", QWEN_7B_LORA_COMPARED, language="en")
    new = post_document(api, "/api/v1/size", QWEN_7B_LORA_COMPARED, language="en")
    assert old.status_code == new.status_code == 200
    assert old.json() == new.json()
    assert old["Link"] == '</api/v1/size>; rel="successor-version"'
    assert "Link" not in new
    assessment = finished_assessment(buyer)
    read = api.get(f"/api/assessments/{assessment.pk}")
    assert read.status_code == 200 and read.json()["id"] == assessment.pk
    assert Client().get("/api/briefs").status_code == 401


STALE_EN = "The options were computed again since you opened that page."


def _stale(api, assessment, body_language: str, **query):
    option = api.get(f"/api/v1/assessments/{assessment.pk}/results").json()["options"][0]
    suffix = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    return api.post(
        f"/api/v1/assessments/{assessment.pk}/briefs{suffix}",
        {"option": option["key"], "language": body_language, "computed": "0" * 32},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )


def test_a_409_is_in_the_language_the_body_asked_for_not_accept_language(buyer):
    api = api_client(buyer)
    assessment = finished_assessment(buyer)
    english = _stale(api, assessment, "en")
    assert english.status_code == 409
    assert english.json()["errors"][0]["field"] == "computed"
    assert english.json()["errors"][0]["message"].startswith(STALE_EN)
    chinese = _stale(api, assessment, "zh-hans")
    assert chinese.status_code == 409
    assert not chinese.json()["errors"][0]["message"].startswith(STALE_EN)
    # The `language` parameter names the messages' language over the brief's.
    asked = _stale(api, assessment, "zh-hans", language="en")
    assert asked.json()["errors"][0]["message"].startswith(STALE_EN)


# --- A client driven by the schema alone: the documented flow and every declared error --------


class SchemaClient:
    """Calls operations by their id, with the path, method and body kinds the schema gives;
    every answer's status must be declared, and its body must be what the schema says for it
    (the error model for every error). Nothing here knows a URL."""

    def __init__(self, spec: dict, client: Client):
        self.spec, self.client = spec, client
        self.operations = {
            op["operationId"]: (method, path, op) for path, method, op in operations(spec)
        }

    def __call__(
        self, operation_id: str, path: dict | None = None, query=None, json=None, pdf=None
    ):
        method, template, operation = self.operations[operation_id]
        url = template.format(**(path or {})) + ("?" + urlencode(query) if query else "")
        if json is not None:
            assert "application/json" in operation["requestBody"]["content"]
            response = getattr(self.client, method)(url, json, content_type="application/json")
        elif pdf is not None:
            assert "multipart/form-data" in operation["requestBody"]["content"]
            upload = SimpleUploadedFile("brief.pdf", pdf, content_type="application/pdf")
            response = getattr(self.client, method)(url, {"pdf": upload})
        else:
            response = getattr(self.client, method)(url)
        declared = operation["responses"].get(str(response.status_code))
        assert declared, f"{operation_id} answered an undeclared {response.status_code}"
        return response.status_code, self._parsed(response, declared["content"])

    def _parsed(self, response, content: dict):
        if "application/pdf" in content:
            assert response["Content-Type"] == "application/pdf"
            return b"".join(response.streaming_content)
        schema = content["application/json"]["schema"]
        body = response.json()
        validate_instance(
            body, {**schema, "components": self.spec["components"]}, cls=OAS31Validator
        )
        return body


def test_a_client_driven_by_the_schema_runs_the_documented_flow_and_parses_every_error(
    buyer, schema, settings, django_capture_on_commit_callbacks, one_page_briefs
):
    call = SchemaClient(schema, api_client(buyer))
    assert call("size", json=QWEN_7B_LORA_COMPARED, query={"language": "en"})[0] == 200
    status, ranked = call("recommend", json=QWEN_7B_LORA_COMPARED)
    assert status == 200 and ranked["format"] == 2
    status, assessment = call(
        "create_assessment", json=QWEN_7B_LORA_COMPARED, query={"title": "CI"}
    )
    assert status == 201
    ids = {"assessment_id": assessment["id"]}
    status, results = call("results", ids)
    assert status == 200
    option = next(o["key"] for o in results["options"] if o["qualifies"])
    issue = {"option": option, "language": "en", "computed": results["computed"]}
    with django_capture_on_commit_callbacks(execute=True):
        status, brief = call("issue_brief", ids, json=issue)
    assert status == 202
    status, brief = call("brief_status", {"brief_id": brief["id"]})
    assert status == 200 and brief["ready"]
    status, pdf = call("brief_pdf", {"brief_id": brief["id"]})
    assert status == 200 and pdf.startswith(b"%PDF")
    status, verified = call("verify", pdf=pdf)
    assert status == 200 and verified["ok"] and verified["brief"] == brief["number"]
    # Each error an integrator meets parses as the one error model.
    refused = {**QWEN_7B_LORA_COMPARED, "method": "sideways"}
    assert call("recommend", json=refused)[1]["errors"][0]["field"] == "method"
    assert call("issue_brief", ids, json={**issue, "computed": "0" * 32})[0] == 409
    assert call("brief_status", {"brief_id": 999999})[0] == 404
    reader = SchemaClient(schema, api_client(buyer, scope="read"))
    assert reader("create_assessment", json=QWEN_7B_LORA_COMPARED)[0] == 403
    approver = SchemaClient(schema, api_client(make_user("approver", APPROVER)))
    assert approver("size", json=QWEN_7B_LORA_COMPARED)[0] == 403
    assert SchemaClient(schema, token_client("fta_nothing_here"))("list_briefs")[0] == 401
    settings.API_RATE_LIMIT = "1/m"
    limited = SchemaClient(schema, api_client(make_user("busy", PROCUREMENT_STAFF)))
    assert [limited("list_briefs")[0] for _ in range(2)] == [200, 429]


def _message(response) -> str:
    return response.json()["errors"][0]["message"]


def test_every_message_is_in_the_language_the_request_names_else_in_english(buyer):
    anonymous = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert _message(anonymous.get("/api/v1/briefs")) == "missing, unknown, expired or revoked"
    assert (
        _message(anonymous.get("/api/v1/briefs?language=zh-hans"))
        == "令牌缺失、未知、已过期或已撤销"
    )
    api = api_client(buyer)
    assert _message(api.get("/api/v1/briefs/999999?language=zh-hans")) == "未找到"
    assert _message(api.get("/api/v1/briefs/999999?language=en")) == "not found"
    reader = api_client(buyer, scope="read")
    refused = post_document(
        reader, "/api/v1/assessments", QWEN_7B_LORA_COMPARED, language="zh-hans"
    )
    assert refused.status_code == 403
    assert _message(refused) == "只读令牌；此请求需要读写令牌"
    approver = api_client(make_user("approver", APPROVER))
    assert _message(approver.get("/api/v1/assessments?language=zh-hans")) == (
        "只有采购人员可以执行此操作"
    )
    # The validator's words: English as the commands print them, Chinese when asked for.
    bad = {**QWEN_7B_LORA_COMPARED, "model": {**QWEN_7B_LORA_COMPARED["model"], "layers": 0}}
    english = post_document(api, "/api/v1/size", bad)
    chinese = post_document(api, "/api/v1/size", bad, language="zh-hans")
    assert english.json()["errors"][0]["field"] == chinese.json()["errors"][0]["field"]
    assert _message(english) == "must be between 1 and 1,024"
    assert _message(chinese) != _message(english)
    upload = SimpleUploadedFile("x.pdf", b"hello", content_type="application/pdf")
    not_pdf = api.post("/api/v1/verify?language=zh-hans", {"pdf": upload})
    assert not_pdf.status_code == 400 and not _message(not_pdf).startswith("The selected")
