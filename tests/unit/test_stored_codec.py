"""The stored recommendation's JSON codec: equal objects back, shared objects shared, nothing but
the domain's classes rebuilt, older stored text recognised (advisor/recommendation/codec.py)."""

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from advisor.domain.compliance.base import Area, Evidence, Finding, Severity, Status
from advisor.domain.economics.inputs import Provenance
from advisor.domain.i18n import Message
from advisor.recommendation import codec


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -7,
        1.25,
        "文本 text",
        Decimal("12.50"),
        Decimal("-0.000001"),
        date(2026, 12, 1),
        datetime(2026, 12, 1, 8, 30, tzinfo=UTC),
        (1, "a", (2, 3)),
        (),
        [1, [2, (3,)]],
        frozenset({"b", "a"}),
        {"plain": {"nested": Decimal("1")}},
        {"$looks-like-a-tag": 1},
        {Status.PASS: 1, ("tuple", "key"): 2, 3: "int key"},
        Status.FAIL,
        Message("needs {need} GiB", {"need": Decimal("80.5")}),
        Evidence(label="inlet", measured=27.5, threshold=(18, 27), unit="°C", comparison="<="),
        Provenance("override"),
    ],
    ids=lambda value: (
        f"frozenset({sorted(value)})" if isinstance(value, frozenset) else repr(value)
    ),
)  # a set's repr follows the process's hash seed: xdist workers must collect the same ids
def test_values_come_back_equal_and_of_the_same_type(value):
    back = codec.loads(codec.dumps(value))
    assert back == value
    assert type(back) is type(value)


@pytest.mark.parametrize("number", [math.inf, -math.inf])
def test_infinite_floats_are_kept(number):
    assert codec.loads(codec.dumps(number)) == number
    assert "Infinity" not in codec.dumps(number)  # strict JSON (PostgreSQL refuses Infinity)


def test_nan_is_kept():
    assert math.isnan(codec.loads(codec.dumps(math.nan)))


def test_a_shared_object_is_written_once_and_comes_back_shared():
    shared = Message("same {x}", {"x": 1})
    evidence = (Evidence("a", measured=shared), Evidence("b", measured=shared))
    text = codec.dumps((evidence, evidence))
    assert text.count("same {x}") == 1
    back = codec.loads(text)
    assert back == (evidence, evidence)
    assert back[0] is back[1] and back[0][0].measured is back[0][1].measured


@dataclass(frozen=True)
class NotOfTheDomain:
    value: int = 1
    items: list = field(default_factory=list)


def finding(status=Status.PASS, need=Decimal("80.5")):
    return Finding(
        rule_id="HW-MEMORY",
        area=Area.HARDWARE,
        title="Memory",
        explanation="fits",
        citation="",
        severity=Severity.BLOCKER,
        status=status,
        message=Message("needs {need} GiB", {"need": need}),
        evidence=(Evidence("memory", measured=need, threshold=80, unit="GiB"),),
    )


def test_equal_findings_are_written_once_and_unequal_ones_apart():
    first, same, other = finding(), finding(), finding(need=Decimal("81"))
    assert first == same and first is not same
    text = codec.dumps((first, same, other, finding(Status.FAIL)))
    assert text.count('"HW-MEMORY"') == 3  # the equal second one is a reference
    back = codec.loads(text)
    assert back == (first, same, other, finding(Status.FAIL))
    assert back[0] is back[1] and back[2] is not back[0] and back[3] is not back[0]


def test_equal_values_of_other_classes_stay_apart():
    one, two = Message("t", {"a": 1}), Message("t", {"a": 1})
    back = codec.loads(codec.dumps((one, two)))
    assert back == (one, two) and back[0] is not back[1]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[[["os.system", []]], [0]]', "not a class"),
        ('[[["tests.unit.test_stored_codec.NotOfTheDomain", []]], [0]]', "not a class"),
        ('[[["advisor.domain.i18n.Gone", []]], [0]]', "no longer exists"),
        ('[[["advisor.domain.i18n.N_", []]], [0]]', "no longer a class"),
        ('[[["advisor.domain.compliance.base.Status", []]], [0]]', "no longer a dataclass"),
        ('[[["advisor.domain.i18n.Message", null]], [-3, 0, "t"]]', "no longer an enum"),
        ('[[["advisor.domain.i18n.Message", ["template", "old"]]], [0, "t", 1]]', "old"),
        ('[[["advisor.domain.i18n.Message", []]], [0]]', "template was added"),
        ('[[["advisor.domain.compliance.base.Status", null]], [-3, 0, "gone"]]', "no member"),
        ('[[["advisor.domain.i18n.Message", ["template"]]], [0, "t", 1]]', "unreadable"),
        ("[[], [-1, 5]]", "unreadable"),
        ("[[], [-99, 1]]", "unreadable"),
        # Format 1 (decisions 0033, 0051): a JSON object per value; the caller computes again.
        ('{"$c": "advisor.domain.i18n.Message", "f": {"template": "t"}}', "unreadable"),
    ],
)
def test_text_that_does_not_describe_the_current_classes_is_refused(text, problem):
    with pytest.raises(codec.StoredFormatError, match=problem):
        codec.loads(text)


def test_a_field_added_with_a_default_takes_its_default():
    text = json.dumps([[["advisor.domain.i18n.Message", ["template"]]], [0, "t"]])
    assert codec.loads(text) == Message("t", {})


def test_each_class_is_named_once_and_its_fields_by_place():
    findings = tuple(finding(need=Decimal(need)) for need in ("1", "2", "3"))
    text = codec.dumps(findings)
    assert text.count('"advisor.domain.compliance.base.Finding"') == 1
    assert text.count('"rule_id"') == 1
    assert codec.loads(text) == findings


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (object(), "the top"),
        ({"a": [1, {2}]}, "['a'][1]"),
        (Evidence("x", measured=b"bytes"), ".measured"),
    ],
)
def test_a_type_it_cannot_store_is_named_with_its_place(value, where):
    with pytest.raises(TypeError, match=r"cannot store \w+ at " + re.escape(where)):
        codec.dumps(value)


def test_a_mapping_with_other_keys_keeps_what_its_keys_and_values_share():
    """Keys that are not text are written before their values, as the decoder reads them, so
    shared keys and values come back shared and in their places."""
    key, other = ("a", 1), ("b", 2)
    shared = [1, 2]
    value = {"m": {key: shared, other: shared}, "k": key, "again": shared}
    back = codec.loads(codec.dumps(value))
    assert back == value
    first, second = back["m"].values()
    assert first is second is back["again"]
    assert back["k"] is next(iter(back["m"]))
