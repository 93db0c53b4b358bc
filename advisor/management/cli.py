"""Shared helpers for the command-line tools (size, recommend, issue_brief, specification,
comparison_sheet, questionnaire, api_token): a refusal as a command error, files read and
written, terminal columns. Reading and checking a scenario document, which the HTTP API shares,
is advisor/assessments/documents.py."""

from __future__ import annotations

import os
import sys
import unicodedata
from pathlib import Path

from django.core.management.base import CommandError

from advisor.assessments.documents import (
    MAX_INPUT_BYTES,
    InputError,
    check_document,
    parse_document,
)
from advisor.domain.document import control_character
from advisor.domain.scenario import ScenarioError

# Exit status for bad input, as argparse and most Unix tools use for usage errors.
BAD_INPUT = 2


def bad_input(message: str) -> CommandError:
    return CommandError(message, returncode=BAD_INPUT)


def plain_or_fail(value: str | None, field: str) -> str | None:
    """``value`` when it holds no control character; bad input naming ``field`` otherwise (a
    NUL in a user name or key reaches no database: PostgreSQL refuses it)."""
    if value and (character := control_character(value)):
        raise bad_input(f"{field}: must not contain control characters (found {character})")
    return value


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
