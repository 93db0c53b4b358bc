"""The recommendation's output, format 2 (advisor/recommendation/output.py): the heaviest job
stays under 1 MB, every option's findings resolve, and the API answers the command's document
as its schema describes it."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from advisor.api.schemas import Recommendation
from advisor.recommendation.output import option_findings
from advisor.roles import PROCUREMENT_STAFF
from tests.support.api import api_client, post_document
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_32B_LORA
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

MB = 1_000_000


@pytest.fixture
def document_file(tmp_path):
    load_catalog()
    path = tmp_path / "32b.json"
    path.write_text(json.dumps(QWEN_32B_LORA), encoding="utf-8")  # every site, every offer
    return path


def command(path, *args) -> str:
    out = StringIO()
    call_command("recommend", "--input", str(path), "--all", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_32b_job_over_every_site_is_at_most_1_mb_and_every_finding_resolves(
    document_file, language
):
    text = command(document_file, "--format", "json", "--language", language)
    assert len(text.encode("utf-8")) <= MB
    document = json.loads(text)
    assert document["format"] == 2
    assert document["considered"] == len(document["options"]) > 200
    ids = [row["id"] for row in document["findings"]]
    assert ids == list(range(1, len(ids) + 1))
    rows = [tuple(row[k] for k in row if k != "id") for row in document["findings"]]
    assert len(set(rows)) == len(rows), "a finding is listed once"
    used = set()
    for option in document["options"]:
        assert set(option["findings"]) <= set(ids), option["key"]
        assert {fact["finding"] for fact in option["declared"]} <= set(option["findings"])
        resolved = option_findings(document, option)
        assert [f["rule"] for f in resolved] and all(f["message"] for f in resolved)
        used.update(option["findings"])
    assert used == set(ids), "every listed finding belongs to an option"
    # The previous format says the same, each option's findings written out.
    previous = json.loads(command(document_file, "--format", "json-1", "--language", language))
    for old, new in zip(previous["options"], document["options"], strict=True):
        assert old["findings"] == option_findings(document, new)


def test_the_api_answers_the_command_s_document_as_its_schema_describes(document_file):
    api = api_client(make_user("buyer", PROCUREMENT_STAFF))
    expected = json.loads(command(document_file, "--format", "json", "--language", "zh-hans"))
    response = post_document(api, "/api/recommend", QWEN_32B_LORA, language="zh-hans")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    answer = response.json()
    assert answer == expected
    Recommendation.model_validate(answer)  # every key described, nothing else
    previous = post_document(api, "/api/recommend", QWEN_32B_LORA, language="zh-hans", format=1)
    assert previous.json() == json.loads(
        command(document_file, "--format", "json-1", "--language", "zh-hans")
    )
    for wrong in (0, 3, "two"):
        refused = post_document(api, "/api/recommend", QWEN_32B_LORA, format=wrong)
        assert refused.status_code == 400
        assert [e["field"] for e in refused.json()["errors"]] == ["format"]
