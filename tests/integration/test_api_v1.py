"""The API's contract as a generated client reads it (issue 48, decision 0130): /api/v1/ with
/api/ as a deprecated alias, short operation ids, every error status declared with the one
error shape, the PDF as binary, typed bodies, the schema readable without a token, and the
`language` a request names followed by its messages."""

from __future__ import annotations

import pytest
from django.test import Client
from openapi_spec_validator import validate

from advisor.api.schemas import SizeOut
from advisor.roles import PROCUREMENT_STAFF
from tests.support.api import api_client, post_document
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
