"""The stored recommendation's codec: equal objects back, shared objects shared, nothing but
the domain's classes rebuilt, nothing named in the bytes run, classes changed since refused
(advisor/recommendation/codec.py, docs/decisions/0076-stored-result-in-restricted-pickle.md)."""

import io
import json
import math
import pickle
import pickletools
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from advisor.domain.compliance.base import Area, Evidence, Finding, Severity, Status
from advisor.domain.economics.costs import ModeCost, line
from advisor.domain.economics.inputs import Provenance
from advisor.domain.i18n import Message
from advisor.recommendation import codec
from vendors import choices


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -7,
        1.25,
        "文本 text",
        b"bytes",
        Decimal("12.50"),
        Decimal("-0.000001"),
        date(2026, 12, 1),
        datetime(2026, 12, 1, 8, 30, tzinfo=UTC),
        datetime(2026, 12, 1, 8, 30, tzinfo=timezone(timedelta(hours=8))),
        (1, "a", (2, 3)),
        (),
        [1, [2, (3,)]],
        frozenset({"b", "a"}),
        {"plain": {"nested": Decimal("1")}},
        {"$looks-like-a-tag": 1},
        {Status.PASS: 1, ("tuple", "key"): 2, 3: "int key"},
        Status.FAIL,
        choices.SourceFlag.DERIVED,
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


def test_nan_is_kept():
    assert math.isnan(codec.loads(codec.dumps(math.nan)))


def test_dict_order_and_keys_are_kept():
    value = {"z": 1, Status.PASS: 2, ("a", 1): 3, 4: 4, "a": 5}
    back = codec.loads(codec.dumps(value))
    assert list(back.items()) == list(value.items())
    assert [type(key) for key in back] == [type(key) for key in value]


def test_a_shared_object_is_written_once_and_comes_back_shared():
    shared = Message("same {x}", {"x": 1})
    evidence = (Evidence("a", measured=shared), Evidence("b", measured=shared))
    data = codec.dumps((evidence, evidence))
    assert data.count(b"same {x}") == 1
    back = codec.loads(data)
    assert back == (evidence, evidence)
    assert back[0] is back[1] and back[0][0].measured is back[0][1].measured


def test_a_mapping_with_other_keys_keeps_what_its_keys_and_values_share():
    key, other = ("a", 1), ("b", 2)
    shared = [1, 2]
    value = {"m": {key: shared, other: shared}, "k": key, "again": shared}
    back = codec.loads(codec.dumps(value))
    assert back == value
    first, second = back["m"].values()
    assert first is second is back["again"]
    assert back["k"] is next(iter(back["m"]))


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


def test_equal_objects_stay_apart_as_the_computation_made_them():
    """Format 2 merged equal findings into one object; pickle keeps identity as it was. Frozen
    values: nothing downstream can tell (the pages are compared byte for byte, decision 0076)."""
    first, same = finding(), finding()
    back = codec.loads(codec.dumps((first, same, first)))
    assert back == (first, same, first)
    assert back[0] is not back[1] and back[0] is back[2]


def test_values_a_class_caches_on_its_objects_are_not_stored():
    """Derived values kept in an object's dict (cached_property, decision 0061) are worked out
    again by the code that reads the result: what is stored is the fields the header names."""
    cost = ModeCost("buy", "one job", 1, Decimal(1), 0, (line("server", "10.5", 2, "unit"),))
    assert cost.cash_out_cny == Decimal("21.00") and "cash_out_cny" in vars(cost)
    data = codec.dumps(cost)
    assert b"cash_out_cny" not in data
    back = codec.loads(data)
    assert "cash_out_cny" not in vars(back)
    assert back == cost and back.cash_out_cny == cost.cash_out_cny


# --- The header: each domain class written, with its shape --------------------------------


def header(data: bytes) -> dict:
    size = int.from_bytes(data[:4], "big")
    return json.loads(data[4 : 4 + size])


def pickled(data: bytes) -> bytes:
    return data[4 + int.from_bytes(data[:4], "big") :]


def with_header(shapes: dict, pickle_bytes: bytes) -> bytes:
    text = json.dumps(shapes).encode()
    return len(text).to_bytes(4, "big") + text + pickle_bytes


def test_the_header_names_each_domain_class_written_with_its_shape():
    data = codec.dumps((finding(), finding(need=Decimal("2")), choices.SourceFlag.DERIVED))
    shapes = header(data)
    assert list(shapes) == [
        "advisor.domain.compliance.base.Finding",
        "advisor.domain.compliance.base.Area",
        "advisor.domain.compliance.base.Severity",
        "advisor.domain.compliance.base.Status",
        "advisor.domain.i18n.Message",
        "advisor.domain.compliance.base.Evidence",
        "vendors.choices.SourceFlag",
    ]
    assert shapes["advisor.domain.i18n.Message"] == ["template", "params", "plural", "count"]
    assert ["PASS", "'pass'"] in shapes["advisor.domain.compliance.base.Status"]
    assert data.count(b"\x8c\x07Finding") == 1  # the class named once in the pickle


def globals_named(pickle_bytes: bytes) -> int:
    return sum(1 for op, _, _ in pickletools.genops(pickle_bytes) if op.name == "STACK_GLOBAL")


def test_each_class_is_looked_up_once_per_load(monkeypatch):
    """find_class runs once per class (the pickler names a class once, then refers to it)."""
    value = tuple(finding(need=Decimal(n)) for n in range(20))
    data = codec.dumps(value)
    asked = []
    real = codec._Unpickler.find_class

    def counted(self, module, name):
        asked.append((module, name))
        return real(self, module, name)

    monkeypatch.setattr(codec._Unpickler, "find_class", counted)
    assert codec.loads(data) == value
    assert len(asked) == len(set(asked)) == globals_named(pickled(data))
    assert "advisor.domain.compliance.base.Finding" in {f"{m}.{n}" for m, n in asked}


@dataclass(frozen=True)
class NotOfTheDomain:
    value: int = 1
    items: list = field(default_factory=list)


def test_a_field_added_even_with_a_default_means_computed_again():
    """Format 2 filled a field added with a default; now any change of shape is refused and the
    result is computed again (decision 0076)."""
    data = codec.dumps(Message("t", {}))
    older = with_header(
        {"advisor.domain.i18n.Message": ["template", "params", "plural"]}, pickled(data)
    )
    with pytest.raises(codec.StoredFormatError, match="count added since"):
        codec.loads(older)


@pytest.mark.parametrize(
    ("shapes", "problem"),
    [
        ({"advisor.domain.i18n.Message": ["template", "old"]}, "no longer has old"),
        ({"advisor.domain.i18n.Message": ["params", "template", "plural", "count"]}, "has changed"),
        ({}, "not in the stored result's header"),
        ([], "unreadable"),
    ],
)
def test_a_class_whose_shape_changed_is_refused(shapes, problem):
    data = codec.dumps(Message("t", {}))
    with pytest.raises(codec.StoredFormatError, match=problem):
        codec.loads(with_header(shapes, pickled(data)))


def test_an_enum_whose_members_changed_is_refused():
    data = codec.dumps(Status.PASS)
    shapes = header(data)
    name = "advisor.domain.compliance.base.Status"
    shapes[name] = [*shapes[name], ["GONE", "'gone'"]]
    with pytest.raises(codec.StoredFormatError, match="no longer has GONE"):
        codec.loads(with_header(shapes, pickled(data)))


# --- What loading refuses: nothing named in the bytes runs --------------------------------


def global_call(module: str, name: str, *args) -> bytes:
    """A protocol-5 pickle that calls ``module.name(*args)`` when loaded: what an attacker who
    could write the row would store."""
    out = io.BytesIO()
    out.write(b"\x80\x05")
    for text in (module, name):
        encoded = text.encode()
        out.write(b"\x8c" + bytes([len(encoded)]) + encoded)
    out.write(b"\x93")  # STACK_GLOBAL
    out.write(pickle.dumps(args, protocol=5)[2:-1])  # the arguments' tuple
    out.write(b"R.")  # REDUCE, STOP
    return out.getvalue()


def test_the_hand_made_pickle_calls_what_it_names_when_unrestricted():
    """The pickles below are real attacks: plain pickle calls what they name."""
    assert pickle.loads(global_call("operator", "add", 2, 3)) == 5


@pytest.mark.parametrize(
    ("module", "name", "args"),
    [
        ("os", "system", ("touch {mark}",)),
        ("builtins", "eval", ("__import__('os').system('touch {mark}')",)),
        ("builtins", "exec", ("open('{mark}', 'w')",)),
        ("subprocess", "Popen", (["touch", "{mark}"],)),
        ("posix", "system", ("touch {mark}",)),
        ("tests.unit.test_stored_codec", "NotOfTheDomain", ()),
        ("advisor.domain.i18n", "N_", ("{mark}",)),  # a domain function, not a class
    ],
)
def test_a_pickle_naming_anything_else_is_refused_without_running_it(tmp_path, module, name, args):
    mark = tmp_path / "ran"
    args = tuple(
        [a.format(mark=mark) for a in arg] if isinstance(arg, list) else arg.format(mark=mark)
        for arg in args
    )
    data = with_header({f"{module}.{name}": []}, global_call(module, name, *args))
    with pytest.raises(codec.StoredFormatError, match="not a class a stored result may hold"):
        codec.loads(data)
    assert not mark.exists()


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("advisor.domain.i18n", "Gone"),
        ("advisor.domain.gone", "Message"),
        # Names under the domain that reach past its classes are looked up in namespaces only.
        ("advisor.domain", "i18n.Message.__init__.__globals__"),
        ("advisor.domain.i18n", "Message.__init__.__globals__"),
        ("advisor.domain.i18n", "Message.__class__"),
    ],
)
def test_a_domain_class_gone_is_refused(module, name):
    data = with_header({f"{module}.{name}": []}, global_call(module, name))
    with pytest.raises(codec.StoredFormatError, match="no longer exists|not a class"):
        codec.loads(data)


def test_an_enum_member_gone_is_refused():
    data = codec.dumps(Status.PASS)
    changed = data.replace(b"\x8c\x04pass", b"\x8c\x04gone")
    assert changed != data
    with pytest.raises(codec.StoredFormatError, match="unreadable"):
        codec.loads(changed)


def header_bytes(data: bytes) -> bytes:
    return data[4 : 4 + int.from_bytes(data[:4], "big")]


GOOD = codec.dumps((finding(), Decimal("1")))
UNREADABLE = {
    "empty": b"",
    "two bytes": b"\x00\x00",
    "no STOP": GOOD[:-1],
    "half": GOOD[: len(GOOD) // 2],
    "garbage header": GOOD[:4] + b"garbage" + GOOD[11:],
    "garbage pickle": GOOD[:4] + header_bytes(GOOD) + b"\x80\x05garbage",
    # Format 2 (decision 0058) and format 1 (0033): JSON text; the caller computes again.
    "format 2": b'[[["advisor.domain.i18n.Message", ["template", "params"]]], [0, "t", {}]]',
    "format 1": b'{"$c": "advisor.domain.i18n.Message", "f": {"template": "t"}}',
}


@pytest.mark.parametrize("data", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_bytes_that_are_not_a_stored_result_are_refused(data):
    with pytest.raises(codec.StoredFormatError):
        codec.loads(data)


# --- What writing refuses ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kind", "where"),
    [
        (object(), "object", "the top"),
        ({"a": [1, lambda: 0]}, "function", "['a'][1]"),
        (Evidence("x", measured=object()), "object", ".measured"),
        ((1, NotOfTheDomain()), "NotOfTheDomain", "[1]"),
    ],
)
def test_a_value_the_loader_would_refuse_is_refused_when_written(value, kind, where):
    with pytest.raises(TypeError, match=rf"cannot store {kind} at " + re.escape(where)):
        codec.dumps(value)
