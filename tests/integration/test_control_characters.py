"""Control characters (C0 and DEL) in any text of the API and the commands are refused with the
field named, never a server error or a traceback (a NUL reaches no PostgreSQL text column):
every one of them into every text field and every key of a scenario document, on every
operation that reads one, and into every text parameter of the API and the commands."""

from __future__ import annotations

import copy
import json
import logging

import pytest
from django.core.management import CommandError, call_command

from advisor.domain.document import check_control_characters, validate_document
from advisor.domain.scenario import ScenarioError
from advisor.roles import PROCUREMENT_STAFF
from tests.support.api import api_client, post_document
from tests.support.catalog import load_catalog
from tests.support.scenarios import scenario
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

CONTROLS = [chr(code) for code in range(0x20)] + ["\x7f"]
BASE = scenario(
    site={"data_centers": ["example-guian"]},
    procurement={"modes": ["cloud"], "usage": "once"},
)
BASE["hardware"]["accelerator"] = "h100-sxm"


def text_fields(document, prefix=""):
    """(path as the validator names it, the container, its key) of every text in the document."""
    if isinstance(document, dict):
        for key, value in document.items():
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(value, str):
                yield path, document, key
            else:
                yield from text_fields(value, path)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            path = f"{prefix}[{index}]"
            if isinstance(value, str):
                yield path, document, index
            else:
                yield from text_fields(value, path)


def with_control(path_wanted: str, character: str) -> dict:
    document = copy.deepcopy(BASE)
    for path, container, key in text_fields(document):
        if path == path_wanted:
            container[key] = f"{container[key][:3]}{character}{container[key][3:]}"
    return document


FIELDS = [path for path, _container, _key in text_fields(BASE)]


def test_the_base_document_has_text_in_every_section():
    assert {"model.name", "hardware.accelerator", "site.data_centers[0]"} <= set(FIELDS)
    assert {"procurement.modes[0]", "procurement.usage", "method", "precision"} <= set(FIELDS)


@pytest.mark.parametrize("path", FIELDS)
def test_every_control_character_in_every_text_field_is_refused_naming_it(path):
    for character in CONTROLS:
        with pytest.raises(ScenarioError) as refused:
            validate_document(with_control(path, character))
        assert refused.value.field == path, (path, repr(character))
        assert f"U+{ord(character):04X}" in refused.value.message.render()


@pytest.mark.parametrize("character", CONTROLS)
def test_a_control_character_in_a_key_is_refused_naming_it(character):
    for section in ("model", "hardware", "site", "procurement"):
        document = copy.deepcopy(BASE)
        document[section][f"na{character}me"] = "x"
        with pytest.raises(ScenarioError) as refused:
            check_control_characters(document)
        assert refused.value.field == f"{section}.{repr(f'na{character}me')}"
    with pytest.raises(ScenarioError) as refused:
        check_control_characters({f"model{character}": {}})
    assert refused.value.field.startswith("scenario.")


# --- Every API operation -------------------------------------------------------------------


@pytest.fixture
def api(caplog, settings):
    settings.API_RATE_LIMIT = ""  # thousands of requests from one token
    load_catalog()
    caplog.set_level(logging.WARNING, logger="django.request")
    return api_client(make_user("control-buyer", PROCUREMENT_STAFF))


def refused_naming(response, field: str, caplog, words: str = "control characters") -> None:
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    caplog.clear()
    assert response.status_code == 400, (field, response.status_code)
    assert response["Content-Type"].startswith("application/json")
    (error,) = response.json()["errors"]
    assert error["field"] == field and words in error["message"], error


@pytest.mark.parametrize("url", ["/api/size", "/api/recommend", "/api/assessments"])
def test_every_operation_reading_a_document_refuses_each_control_character_in_each_field(
    api, caplog, url
):
    for path in FIELDS:
        for character in CONTROLS:
            refused_naming(post_document(api, url, with_control(path, character)), path, caplog)


def test_every_text_parameter_of_the_api_refuses_each_control_character(api, caplog):
    assessment = post_document(api, "/api/assessments", BASE).json()["id"]
    for character in CONTROLS:
        for name in ("accelerator", "server"):
            answer = post_document(api, "/api/size", BASE, **{name: f"h100{character}"})
            refused_naming(answer, name, caplog, words="should match pattern")  # catalog keys
        answer = post_document(api, "/api/recommend", BASE, language=f"en{character}")
        assert answer.status_code == 400 and answer.json()["errors"][0]["field"] == "language"
        caplog.clear()
        answer = post_document(api, "/api/assessments", BASE, title=f"GPU {character} plan")
        refused_naming(answer, "title", caplog)
        issued = api.post(
            f"/api/assessments/{assessment}/briefs",
            json.dumps({"option": f"srv{character}@dc", "language": "en"}),
            content_type="application/json",
        )
        refused_naming(issued, "payload.option", caplog)


# --- The commands ----------------------------------------------------------------------------


WRITERS = ("specification", "comparison_sheet")  # commands that write a file


def run(*args) -> CommandError:
    with pytest.raises(CommandError) as refused:
        call_command(*args)
    assert refused.value.returncode == 2
    return refused.value


@pytest.mark.parametrize("character", ["\x00", "\x1b", "\x7f"])
def test_the_commands_refuse_control_characters_naming_the_field(tmp_path, character):
    load_catalog()
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(with_control("hardware.accelerator", character)))
    for command in ("size", "recommend", "specification", "comparison_sheet"):
        output = ("--output", str(tmp_path / "out")) if command in WRITERS else ()
        message = str(run(command, "--input", str(path), *output))
        assert message.startswith("hardware.accelerator: must not contain control characters")
    path.write_text(json.dumps(BASE))
    good = str(path)
    assert "accelerator: must not contain" in str(
        run("size", "--input", good, "--accelerator", f"h1{character}")
    )
    assert "server: must not contain" in str(
        run("size", "--input", good, "--server", f"s{character}")
    )
    make_user("buyer", PROCUREMENT_STAFF)
    issued = run(
        "issue_brief",
        "--input",
        good,
        "--user",
        f"buyer{character}",
        "--output",
        str(tmp_path / "b.pdf"),
    )
    assert str(issued).startswith("user: must not contain control characters")
    assert str(
        run("api_token", "create", "--user", f"buyer{character}", "--scope", "read")
    ).startswith("user: must not contain control characters")
    assert str(
        run("api_token", "create", "--user", "buyer", "--scope", "read", "--name", f"c{character}i")
    ).startswith("name: must not contain control characters")
    output = tmp_path / "sheet.xlsx"
    refused = run(
        "questionnaire",
        "export",
        "--input",
        good,
        "--option",
        f"1{character}",
        "--output",
        str(output),
    )
    assert str(refused).startswith("--option: must not contain control characters")
