"""Appendix A of the brief: the scenario's sections as JSON, one key (a declared fact) per line."""

import json

import pytest

from advisor.brief.render import input_json

DECLARED = {
    "jianmi-guiyang": {
        "ups_minutes": {"value": 30, "evidence": "UPS report", "received": "2026-12-02"},
        "inlet_temp_min_c": {"value": 18.0, "evidence": None, "received": "2026-12-02"},
    },
}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, "{}"),
        (None, "null"),
        ({"budget_cny": None, "domestic_only": False}, '{\n  "budget_cny": null,\n  "domestic_only": false\n}'),
        ({"qualifications": ["ISO 27001"]}, '{\n  "qualifications": ["ISO 27001"]\n}'),
        ({"name": "贵安"}, '{\n  "name": "贵安"\n}'),
        ({"name": "Qwen\u202e-7B"}, '{\n  "name": "Qwen\\u202e-7B"\n}'),
        ({"a\u2068b": "x\ny"}, '{\n  "a\\u2068b": "x\\ny"\n}'),
        (
            DECLARED,
            "{\n"
            '  "jianmi-guiyang": {\n'
            '    "ups_minutes": {"value": 30, "evidence": "UPS report", "received": "2026-12-02"},\n'
            '    "inlet_temp_min_c": {"value": 18.0, "evidence": null, "received": "2026-12-02"}\n'
            "  }\n"
            "}",
        ),
    ],
)  # fmt: skip
def test_input_json_breaks_two_levels_into_lines(value, expected):
    assert input_json(value) == expected


@pytest.mark.parametrize(
    "value",
    [DECLARED, {"a": [1, {"b": None}]}, {"x": {"y": {"z": "字"}}}, {"n": "\u202e\U000e0001\x00"}],
)
def test_input_json_is_the_same_json(value):
    """What the auditor reads parses back to exactly the section that was entered."""
    assert json.loads(input_json(value)) == value
