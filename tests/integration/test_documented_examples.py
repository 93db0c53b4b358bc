"""Every example in README.md and docs/*.md works as printed (issue 48).

Each fenced block is read from the files and run, or carries a marker on the line before it
saying what it is (``<!-- example: KIND -->``):

- no marker, ``json``: scenario sections (``"site": …``) or whole documents; each is checked as
  the commands check their input (``advisor.management.cli.check_document``), a section inside
  the README's example scenario;
- no marker, ``bash``: ``manage.py`` lines, run as printed (``call_command``) in a folder holding
  the README's example as ``scenario.json``, with the catalog loaded and the demo ``buyer``;
- ``scenario.json``: the README's example scenario (checked, and the file the commands read);
- ``synopsis``: ``manage.py`` usage lines: each names a command and only options it has;
- ``output``: an excerpt of what a command prints: it must be JSON;
- ``webhook event``: a webhook body: JSON whose ``data`` has exactly the keys events carry;
- ``webhook receiver``: Python that checks a signature: run against the project's signer;
- ``api``: ``curl`` requests to the HTTP API (the ``api`` alias of the settings block before
  them), run by bash against a live server with a token of the demo ``buyer``;
- ``not run (why)``: deliberately not run, with the reason (a running server, a directory
  tree, a formula, ...).

The documents were written on 2026-12-07 and their deadlines are dates after it: the tests
read them on that day (``timezone.localdate``), so they do not expire with the calendar.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import subprocess
import time
from dataclasses import dataclass
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command, get_commands, load_command_class
from django.utils import timezone

from advisor.api import tokens
from advisor.assessments.documents import check_document
from advisor.brief.models import Brief
from advisor.domain.scenario import ScenarioError
from advisor.roles import PROCUREMENT_STAFF
from advisor.webhooks import signing
from advisor.webhooks.events import brief_data, data_for_a_test
from tests.support.briefs import signing_settings
from tests.support.catalog import load_catalog
from tests.support.users import make_user

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
WRITTEN_ON = date(2026, 12, 7)
MARKER = re.compile(r"^<!-- example: (.+?) -->$")
FENCE = re.compile(r"^```(\S*)$")
MANAGE = [".venv/bin/python", "manage.py"]
NAMED_KINDS = {"scenario.json", "synopsis", "output", "webhook event", "webhook receiver", "api"}


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, from 1
    language: str
    marker: str | None
    text: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"

    @property
    def kind(self) -> str | None:
        """What the block is, or None when it is neither runnable as it stands nor marked."""
        if self.marker in NAMED_KINDS:
            return self.marker
        if self.marker and re.fullmatch(r"not run \(.+\)", self.marker):
            return "not run"
        if self.marker is None and self.language in ("json", "bash"):
            return "sections" if self.language == "json" else "commands"
        return None


def blocks_of(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found, number = [], 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if not opening:
            number += 1
            continue
        end = lines.index("```", number + 1)
        before = [line for line in lines[:number] if line.strip()]
        marked = MARKER.match(before[-1]) if before else None
        found.append(
            Block(
                path,
                number + 1,
                opening.group(1),
                marked.group(1) if marked else None,
                "\n".join(lines[number + 1 : end]) + "\n",
            )
        )
        number = end + 1
    return found


BLOCKS = [block for path in DOCUMENTS for block in blocks_of(path)]


def of_kind(kind: str) -> list[Block]:
    return [block for block in BLOCKS if block.kind == kind]


def json_values(text: str) -> list[tuple[str | None, object]]:
    """A whole document as ``[(None, document)]``; section lines (``"name": value``, one after
    another, with or without commas between them) as ``[(name, value), ...]``."""
    if text.lstrip().startswith("{"):
        return [(None, json.loads(text))]
    decoder, found, at = json.JSONDecoder(), [], 0

    def skip(at: int, allowed: str = "") -> int:
        while at < len(text) and (text[at].isspace() or text[at] in allowed):
            at += 1
        return at

    at = skip(at)
    while at < len(text):
        name, at = decoder.raw_decode(text, at)
        at = skip(at)
        assert text[at] == ":", f"expected ':' after {name!r}"
        value, at = decoder.raw_decode(text, skip(at + 1))
        found.append((name, value))
        at = skip(at, ",")
    return found


def commands_of(block: Block) -> list[list[str]]:
    """The ``manage.py`` command lines of a block, continuations joined, comments dropped."""
    joined = block.text.replace("\\\n", " ")
    lines = [shlex.split(line, comments=True) for line in joined.splitlines()]
    return [words for words in lines if words]


def the_example() -> dict:
    (block,) = of_kind("scenario.json")
    return json.loads(block.text)


# --- every block is accounted for ------------------------------------------------------------


def test_the_files_have_examples_of_every_kind():
    kinds = {block.kind for block in BLOCKS}
    assert {"sections", "commands", "scenario.json", "synopsis", "not run"} <= kinds, kinds
    assert len(of_kind("scenario.json")) == 1
    assert [b.path.name for b in of_kind("scenario.json")] == ["README.md"]
    assert [b.path.name for b in of_kind("commands")].count("README.md") == 1


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.name)
def test_every_block_is_run_or_marked(block):
    assert block.kind, (
        f"{block.name}: a ```{block.language} block that is not run: make it runnable or put "
        "'<!-- example: not run (why) -->' on the line before it"
    )
    if block.kind in ("commands", "synopsis"):
        for words in commands_of(block):
            assert words[:2] == MANAGE, f"{block.name}: not a manage.py command: {words}"


# --- JSON -------------------------------------------------------------------------------------


@pytest.fixture
def documents_day(monkeypatch):
    real = timezone.localdate

    def localdate(value=None, timezone=None):
        return WRITTEN_ON if value is None else real(value, timezone)

    monkeypatch.setattr("django.utils.timezone.localdate", localdate)


SECTIONS = [
    pytest.param(block, name, value, id=f"{block.name}:{name or 'document'}")
    for block in of_kind("sections")
    for name, value in json_values(block.text)
]


@pytest.mark.django_db
@pytest.mark.parametrize(("block", "name", "value"), SECTIONS)
def test_json_examples_are_accepted_by_the_commands(documents_day, block, name, value):
    load_catalog()
    if name is None:
        check_document(value)
        return
    scenario = {k: v for k, v in the_example().items() if k not in ("site", "procurement")}
    check_document({**scenario, name: value})


@pytest.mark.parametrize("block", of_kind("output"), ids=lambda b: b.name)
def test_printed_output_is_json(block):
    assert json_values(block.text)


# --- commands ---------------------------------------------------------------------------------


def options_of(parser) -> set[str]:
    """Every option string of a command's parser and of its sub-commands' parsers."""
    found = set()
    for action in parser._actions:
        found.update(action.option_strings)
        choices = getattr(action, "choices", None)
        for sub in choices.values() if isinstance(choices, dict) else ():
            found |= options_of(sub)
    return found


SYNOPSIS = [
    pytest.param(words, id=f"{block.name}:{words[2]}")
    for block in of_kind("synopsis")
    for words in commands_of(block)
]


@pytest.mark.parametrize("words", SYNOPSIS)
def test_synopsis_lines_name_real_commands_and_options(words):
    name = words[2]
    commands = get_commands()
    assert name in commands, f"no command {name}"
    parser = load_command_class(commands[name], name).create_parser("manage.py", name)
    named = set(re.findall(r"--[a-z][a-z-]*", " ".join(words[3:])))
    assert named <= options_of(parser), named - options_of(parser)


@pytest.fixture
def example_folder(tmp_path, monkeypatch, settings, pki_dir, documents_day):
    """A folder holding the README's example as scenario.json, with the catalog, the demo
    buyer and a signer: what the README's commands expect."""
    load_catalog()
    settings.BRIEF_SIGNING = signing_settings(pki_dir)
    settings.MEDIA_ROOT = tmp_path / "media"
    make_user("buyer", PROCUREMENT_STAFF)
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "scenario.json").write_text(json.dumps(the_example()), encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder


def run_block(block: Block) -> list[str]:
    printed = []
    for words in commands_of(block):
        out = StringIO()
        call_command(*words[2:], stdout=out, stderr=StringIO())
        printed.append(out.getvalue())
    return printed


# The README's block runs in the test after this one, which also looks at what it made.
ELSEWHERE = [block for block in of_kind("commands") if block.path.name != "README.md"]


@pytest.mark.django_db
@pytest.mark.parametrize("block", ELSEWHERE, ids=lambda b: b.name)
def test_command_examples_run_as_printed(example_folder, block):
    run_block(block)  # a failing command raises CommandError, naming the problem


@pytest.mark.django_db
def test_the_readme_example_issues_a_brief_and_a_specification(example_folder):
    """The README's example scenario qualifies options, so issue_brief and specification
    make their files and verify_brief accepts the brief (issue 48: it qualified none)."""
    (block,) = [b for b in of_kind("commands") if b.path.name == "README.md"]
    printed = run_block(block)
    assert "FT-2026-" in printed[2]
    assert (example_folder / "brief.pdf").read_bytes().startswith(b"%PDF")
    assert (example_folder / "spec.docx").read_bytes().startswith(b"PK")
    assert (example_folder / "sheet.xlsx").read_bytes().startswith(b"PK")
    brief = Brief.objects.get()
    assert brief.prepared_by.username == "buyer"
    # The option the brief was issued for is one the required qualification lets through.
    option = brief_data(brief)["option"]
    assert option.endswith("jianmi-guiyang") or "@cloud:" in option, option
    # The webhook body docs/api.md prints has the keys an event carries, no more, no fewer.
    for event in of_kind("webhook event"):
        ((_, body),) = json_values(event.text)
        carried = data_for_a_test("", "") if body["type"] == "webhook.test" else brief_data(brief)
        assert set(body["data"]) == set(carried), event.name


@pytest.mark.parametrize("block", of_kind("webhook receiver"), ids=lambda b: b.name)
def test_the_documented_receiver_checks_our_signature(block):
    namespace = {}
    exec(compile(block.text, block.name, "exec"), namespace)  # noqa: S102 - our own document
    verified = namespace["verified"]
    secret = signing.SECRET_PREFIX + base64.b64encode(b"documented-receiver-key-32-bytes").decode()
    body = '{"type":"brief.issued","data":{"number":"FT-2026-000007"}}'
    headers = signing.headers(secret, "msg_1", int(time.time()), body)
    assert verified(secret, headers, body.encode())
    assert not verified(secret, headers, body.replace("07", "08").encode())
    stale = signing.headers(secret, "msg_1", int(time.time()) - 3600, body)
    assert not verified(secret, stale, body.encode())


# A refused document and the error the API answers, as docs/api.md prints them (the API and the
# commands refuse with the same words: docs/decisions/0048-http-api.md).
REFUSED = re.compile(r"--data '(\{.*?\})'\n# (\{\"errors\": .*\})\n")
REFUSALS = [
    pytest.param(body, answer, id=f"{block.name}")
    for block in BLOCKS
    for body, answer in REFUSED.findall(block.text)
]


def test_the_api_s_refusal_examples_are_found():
    assert len(REFUSALS) >= 2  # one in each language's part


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "answer"), REFUSALS)
def test_a_documented_refusal_names_the_field_as_printed(documents_day, body, answer):
    load_catalog()
    ((error,),) = [json.loads(answer)["errors"]]
    with pytest.raises(ScenarioError) as refused:
        check_document(json.loads(body))
    assert str(refused.value) == f"{error['field']}: {error['message']}"


# --- the HTTP API's curl examples, against a live server ---------------------------------------


def the_api_alias() -> str:
    """The ``alias api=…`` line of docs/api.md's settings block, as a reader would paste it."""
    settings_blocks = [b for b in BLOCKS if b.marker == "not run (settings for the requests below)"]
    aliases = {
        line
        for b in settings_blocks
        for line in b.text.splitlines()
        if line.startswith("alias api=")
    }
    (alias,) = aliases
    return alias


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("block", of_kind("api"), ids=lambda b: b.name)
def test_api_examples_run_as_printed(example_folder, live_server, block):
    """Each request block runs in bash as printed (``curl``, ``jq``), with ``ADVISOR`` the live
    server and ``TOKEN`` a write token of the demo buyer; none answers an error except the
    refusal the document prints, and the brief block ends with a verified PDF."""
    buyer = make_user("docs-buyer", PROCUREMENT_STAFF)
    _token, text = tokens.create_token(user=buyer, name="docs", scope="write", days=30)
    script = f"shopt -s expand_aliases\n{the_api_alias()}\nset -eo pipefail\n{block.text}"
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=example_folder,
        env={"PATH": "/usr/bin:/bin", "ADVISOR": live_server.url, "TOKEN": text},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "printed nothing"
    refusal = '"layers": 0' in block.text
    assert ('"errors"' in done.stdout) == refusal, done.stdout[:2000]
    if refusal:
        assert re.search(r'"field":\s*"model\.layers"', done.stdout)
    if "/verify" in block.text:
        assert (example_folder / "brief.pdf").read_bytes().startswith(b"%PDF")
        assert re.search(r'"ok":\s*true', done.stdout)  # the verify answer, printed last
