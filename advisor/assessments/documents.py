"""A scenario document read and checked with the one validator: the commands read files and
stdin with it, the HTTP API request bodies (``POST /api/recommend``, ``/api/size``)."""

from __future__ import annotations

import json

from advisor.catalog.candidates import entry_context
from advisor.domain.document import validate_document
from advisor.domain.questionnaire.declared import SECTION as DECLARED_SECTION
from advisor.domain.questionnaire.declared import validate_declared

# A scenario document is a few kilobytes; anything far larger is refused unread.
MAX_INPUT_BYTES = 1024 * 1024


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


def check_document(data: dict):
    """The scenario of a valid document, or the :class:`ScenarioError` naming the first bad
    field: scenario v1 and every section (site, procurement…), checked as the wizard checks its
    answers (today's date, the catalog's keys), in its words. The commands and the API call it."""
    scenario = validate_document(data, entry_context(data))
    validate_declared(data.get(DECLARED_SECTION))  # a DeclaredError is a ScenarioError
    return scenario
