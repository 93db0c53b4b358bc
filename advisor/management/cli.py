"""Shared helpers for the command-line tools (size, recommend, issue_brief)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import CommandError

from advisor.domain.questionnaire.declared import SECTION as DECLARED_SECTION
from advisor.domain.questionnaire.declared import validate_declared
from advisor.domain.scenario import ScenarioError, load_scenario

# Exit status for bad input, as argparse and most Unix tools use for usage errors.
BAD_INPUT = 2


def bad_input(message: str) -> CommandError:
    return CommandError(message, returncode=BAD_INPUT)


def read_json_or_fail(path: str) -> dict:
    """The JSON object in ``path`` (``-`` for stdin); one line naming the problem otherwise."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise bad_input(f"input: cannot read {path}: {error.__class__.__name__}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise bad_input(
            f"input: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from error
    if not isinstance(data, dict):
        raise bad_input("input: must be a JSON object (a scenario)")
    return data


def check_scenario_or_fail(data: dict):
    try:
        scenario = load_scenario(data)
        validate_declared(data.get(DECLARED_SECTION))  # a DeclaredError is a ScenarioError
    except ScenarioError as error:
        raise bad_input(str(error)) from error
    return scenario


def load_scenario_or_fail(path: str):
    return check_scenario_or_fail(read_json_or_fail(path))
