"""Shared helpers for the command-line tools (size, recommend, issue_brief, specification,
comparison_sheet) and the HTTP API: reading a scenario document and checking it with the one
validator."""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from pathlib import Path

from django.core.management.base import CommandError

from advisor.catalog.candidates import entry_context
from advisor.domain.document import control_character, validate_document
from advisor.domain.questionnaire.declared import SECTION as DECLARED_SECTION
from advisor.domain.questionnaire.declared import validate_declared
from advisor.domain.scenario import ScenarioError

# Exit status for bad input, as argparse and most Unix tools use for usage errors.
BAD_INPUT = 2
# A scenario document is a few kilobytes; anything far larger is refused unread.
MAX_INPUT_BYTES = 1024 * 1024


def bad_input(message: str) -> CommandError:
    return CommandError(message, returncode=BAD_INPUT)


def plain_or_fail(value: str | None, field: str) -> str | None:
    """``value`` when it holds no control character; bad input naming ``field`` otherwise (a
    NUL in a user name or key reaches no database: PostgreSQL refuses it)."""
    if value and (character := control_character(value)):
        raise bad_input(f"{field}: must not contain control characters (found {character})")
    return value


class InputError(ValueError):
    """Input the commands and the API refuse before or beside the scenario validator (too
    large, not JSON, not an object; an unknown ``--server``): ``str()`` is the one line
    ``<field>: <words>`` the commands print; the API answers ``field`` and ``words``."""

    def __init__(self, field: str, words: str):
        self.field = field
        self.words = words
        super().__init__(f"{field}: {words}")


def parse_document(raw: bytes, source: str = "input") -> dict:
    """The JSON object in ``raw`` (at most ``MAX_INPUT_BYTES``); :class:`InputError` naming the
    problem otherwise. The commands read files and stdin with it, the API request bodies."""
    if len(raw) > MAX_INPUT_BYTES:
        raise InputError("input", f"larger than {MAX_INPUT_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError("input", f"cannot read {source}: {error.__class__.__name__}") from error
    try:
        data = json.loads(text)
    except RecursionError as error:
        raise InputError("input", "JSON nested too deeply") from error
    except json.JSONDecodeError as error:
        raise InputError(
            "input", f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from error
    except ValueError as error:  # e.g. an integer of more than 4,300 digits
        raise InputError("input", f"not valid JSON ({error})") from error
    if not isinstance(data, dict):
        raise InputError("input", "must be a JSON object (a scenario)")
    try:  # a "\ud800" escape decodes to text no database or UTF-8 file can hold
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        raise InputError("input", "not valid JSON (a lone surrogate escape in a text)") from error
    return data


def read_json_or_fail(path: str) -> dict:
    """The JSON object in ``path`` (``-`` for stdin); one line naming the problem otherwise."""
    try:
        if path == "-":
            stdin = getattr(sys.stdin, "buffer", None)
            raw = (
                stdin.read(MAX_INPUT_BYTES + 1)
                if stdin is not None
                else sys.stdin.read(MAX_INPUT_BYTES + 1).encode("utf-8")
            )
        else:
            with Path(path).open("rb") as handle:
                raw = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as error:
        raise bad_input(f"input: cannot read {path}: {error.__class__.__name__}") from error
    try:
        return parse_document(raw, path)
    except InputError as error:
        raise bad_input(str(error)) from error


def check_document(data: dict):
    """The scenario of a valid document, or the :class:`ScenarioError` naming the first bad
    field: scenario v1 and every section (site, procurement…), checked as the wizard checks its
    answers (today's date, the catalog's keys), in its words. The commands and the API call it."""
    scenario = validate_document(data, entry_context(data))
    validate_declared(data.get(DECLARED_SECTION))  # a DeclaredError is a ScenarioError
    return scenario


def check_scenario_or_fail(data: dict):
    """The scenario of a valid document: scenario v1 and every section (site, procurement…),
    checked as the wizard checks its answers (today's date, the catalog's keys), in its words."""
    try:
        scenario = check_document(data)
    except ScenarioError as error:
        raise bad_input(str(error)) from error
    return scenario


def load_scenario_or_fail(path: str):
    return check_scenario_or_fail(read_json_or_fail(path))


def check_output(path: Path) -> None:
    """Refuse an output path the file cannot be written to, before any work is done."""
    if path.is_dir():
        raise bad_input(f"output: {path} is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise bad_input(f"output: folder {parent} does not exist")
    if not parent.is_dir():
        raise bad_input(f"output: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise bad_input(f"output: {path} is not writable")


def write_output_or_fail(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as error:
        raise bad_input(f"output: cannot write {path} ({error.__class__.__name__})") from error


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: Chinese characters take two (Unicode's East Asian
    width), so the tables of the CLI line up in both languages."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (on the left when ``right``)."""
    space = " " * max(0, width - display_width(text))
    return space + text if right else text + space
