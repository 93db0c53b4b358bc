"""One validator for the whole scenario document: scenario v1 plus ``site`` and ``procurement``.

Every bad value is refused with the field named; nothing is replaced or dropped silently.
The cases include the ones an independent probe found accepted or crashing the CLIs.
"""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.domain import document
from advisor.domain.document import SECTIONS, register_section, validate_document
from advisor.domain.scenario import ScenarioError

SCENARIO = {
    "model": {
        "name": "Qwen2.5-7B",
        "params_b": 7.6,
        "layers": 28,
        "hidden": 3584,
        "heads": 28,
        "kv_heads": 4,
        "intermediate": 18944,
        "vocab": 152064,
    },
    "method": "lora",
    "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"},
    "precision": "bf16",
    "seq_len": 2048,
    "micro_batch": 1,
    "hardware": {"accelerator": "h100-80gb-sxm", "count": 8, "nodes": 1},
    "parallelism": {"strategy": "fsdp"},
    "training": {"dataset_tokens": 100000000, "epochs": 3},
}
ROOM = {
    "name": "Our room",
    "policy_zone": "guizhou",
    "max_kw_per_rack": 12,
    "pue": 1.25,
    "cooling_available": ["air"],
    "power_feeds": 2,
    "ups_minutes": 30,
    "generator_start_s": 15,
}
PROCUREMENT = {
    "modes": ["buy", "rent", "cloud"],
    "budget_cny": 3000000,
    "deadline": "2027-03-31",
    "qualifications": ["idc-licence", "icp-filing", "iso-27001", "iso-9001", "mlps-3"],
    "preferred_accelerators": [],
    "excluded_accelerators": ["rtx-4090-24gb"],
    "domestic_only": False,
    "years": 3,
    "hours_per_year": 2000,
    "site_overrides": {
        "example-guian": {"tariff_cny_per_kwh": "0.48", "rack_fee_cny_per_month": "6500"}
    },
    "price_overrides": {"hgx-h100-8gpu": {"purchase_cny_per_server": "2500000"}},
    "overrides": {"maintenance_pct_per_year": "4"},
    "preferential_tariff": False,
}


def with_section(name, value):
    return {**copy.deepcopy(SCENARIO), name: value}


def procurement(**changes):
    return with_section("procurement", {**PROCUREMENT, **changes})


def room(**changes):
    return with_section("site", {"room": {**ROOM, **changes}})


@pytest.mark.parametrize(
    "doc",
    [
        SCENARIO,
        with_section("procurement", PROCUREMENT),
        with_section("site", {"data_centers": ["example-guian", "example-shanghai-qingpu"]}),
        with_section("site", {"room": ROOM}),
        # What the wizard writes: null for unanswered optional figures, floats from its forms.
        procurement(budget_cny=None, deadline=None, years=3, hours_per_year=2000.0),
        room(floor_load_kg_per_m2=None, ups_minutes=None, generator_start_s=None),
        procurement(budget_cny="3000000.50", hours_per_year="1500"),
    ],
    ids=["scenario", "procurement", "data-centers", "room", "wizard-nulls", "room-nulls", "text"],
)
def test_valid_documents_pass(doc):
    assert validate_document(doc).model.name == "Qwen2.5-7B"


BAD = [
    # (document, field named in the error, words of the message)
    (procurement(years="three"), "procurement.years", "whole number"),
    (procurement(years=0), "procurement.years", "between 1 and 15"),
    (procurement(years=2.5), "procurement.years", "whole number"),
    (procurement(years=True), "procurement.years", "whole number"),
    (procurement(budget_cny="NaN"), "procurement.budget_cny", "number"),
    (procurement(budget_cny="lots"), "procurement.budget_cny", "number"),
    (procurement(budget_cny=float("inf")), "procurement.budget_cny", "number"),
    (procurement(budget_cny="Infinity"), "procurement.budget_cny", "number"),
    (procurement(budget_cny=-1), "procurement.budget_cny", "between 0 and"),
    (procurement(budget_cny=[1]), "procurement.budget_cny", "number"),
    (procurement(deadline="2027-02-30"), "procurement.deadline", "YYYY-MM-DD"),
    (procurement(deadline="tomorrow"), "procurement.deadline", "YYYY-MM-DD"),
    (procurement(deadline=20270331), "procurement.deadline", "YYYY-MM-DD"),
    (procurement(deadline="2027-3-31"), "procurement.deadline", "YYYY-MM-DD"),
    (procurement(hours_per_year=0), "procurement.hours_per_year", "between 1 and 8,760"),
    (procurement(hours_per_year=9000), "procurement.hours_per_year", "between 1 and 8,760"),
    (procurement(modes=[]), "procurement.modes", "at least one"),
    (procurement(modes=["lease"]), "procurement.modes[0]", "buy, rent, cloud"),
    (procurement(modes="buy"), "procurement.modes", "list"),
    (procurement(qualifications=["iso-14001"]), "procurement.qualifications[0]", "one of"),
    (procurement(excluded_accelerators=[7]), "procurement.excluded_accelerators[0]", "text"),
    (procurement(domestic_only="yes"), "procurement.domestic_only", "true, false"),
    (procurement(budget=5), "procurement.budget", "not a field"),
    (
        procurement(site_overrides={"example-guian": {"tariff_cny_per_kwh": "cheap"}}),
        "procurement.site_overrides.example-guian.tariff_cny_per_kwh",
        "number",
    ),
    (
        procurement(site_overrides={"example-guian": {"pue": 0.5}}),
        "procurement.site_overrides.example-guian.pue",
        "between 1 and 3",
    ),
    (
        procurement(site_overrides={"example-guian": {"tarif": 1}}),
        "procurement.site_overrides.example-guian.tarif",
        "not a field",
    ),
    (
        procurement(price_overrides={"hgx-h100-8gpu": {"purchase_cny_per_server": -5}}),
        "procurement.price_overrides.hgx-h100-8gpu.purchase_cny_per_server",
        "between 0 and",
    ),
    (
        procurement(overrides={"rent_min_months": "2.5"}),
        "procurement.overrides.rent_min_months",
        "whole number",
    ),
    (procurement(usage="weekly"), "procurement.usage", "once, programme"),
    (
        procurement(usage="programme", hours_per_year=None),
        "procurement.runs_per_year",
        "required for a programme",
    ),
    (
        procurement(runs_per_year=12, hours_per_year=2000),
        "procurement.hours_per_year",
        "not both",
    ),
    (
        procurement(usage="once", hours_per_year=None, runs_per_year=4),
        "procurement.runs_per_year",
        "programme",
    ),
    (procurement(runs_per_year=0, hours_per_year=None), "procurement.runs_per_year", "between"),
    (procurement(rent_min_months=0), "procurement.rent_min_months", "between 1 and 120"),
    (procurement(resale_pct=120), "procurement.resale_pct", "between 0 and 100"),
    (procurement(overrides={"maintenance": "4"}), "procurement.overrides.maintenance", "field"),
    (with_section("procurement", []), "procurement", "object"),
    (with_section("site", {"data_centers": []}), "site.data_centers", "at least one"),
    (with_section("site", {"data_centers": "example-guian"}), "site.data_centers", "list"),
    (
        with_section("site", {"data_centers": ["a"], "room": ROOM}),
        "site.room",
        "either data_centers or room",
    ),
    (with_section("site", {"rooms": ROOM}), "site.rooms", "not a field"),
    (room(pue="NaN"), "site.room.pue", "number"),
    (room(pue=None), "site.room.pue", "required"),
    (room(power_feeds=0), "site.room.power_feeds", "between 1 and 8"),
    (room(power_feeds=1.5), "site.room.power_feeds", "whole number"),
    (room(max_kw_per_rack="lots"), "site.room.max_kw_per_rack", "number"),
    (room(cooling_available=["water"]), "site.room.cooling_available[0]", "one of"),
    (room(name=""), "site.room.name", "non-empty text"),
    (room(inlet_temp_min_c=30, inlet_temp_max_c=20), "site.room.inlet_temp_max_c", "below"),
]


@pytest.mark.parametrize(("doc", "field", "words"), BAD, ids=[case[1] for case in BAD])
def test_bad_values_are_refused_naming_the_field(doc, field, words):
    with pytest.raises(ScenarioError) as error:
        validate_document(doc)
    assert error.value.field == field
    line = str(error.value)
    assert line.startswith(f"{field}: ") and words in line
    assert "\n" not in line


def test_deep_nesting_is_refused_without_recursion():
    nested: object = 1
    for _ in range(100_000):
        nested = [nested]
    doc = with_section("procurement", {**PROCUREMENT, "overrides": {"pue": nested}})
    with pytest.raises(ScenarioError) as error:
        validate_document(doc)
    assert error.value.field == "scenario" and "nested more than" in str(error.value)


def test_a_new_section_registers_its_own_validator(monkeypatch):
    """How the questionnaire's ``declared`` section plugs in: one function, same errors."""
    monkeypatch.setattr(document, "SECTIONS", dict(SECTIONS))

    def validate_declared(value, path):
        if not isinstance(value, dict) or "facts" not in value:
            raise document._error(f"{path}.facts", "is required")

    register_section("declared", validate_declared)
    assert validate_document(with_section("declared", {"facts": []}))
    with pytest.raises(ScenarioError) as error:
        validate_document(with_section("declared", {}))
    assert error.value.field == "declared.facts"
    # The other sections are still checked alongside it.
    with pytest.raises(ScenarioError) as error:
        validate_document({**SCENARIO, "declared": {"facts": []}, "procurement": {"years": 0}})
    assert error.value.field == "procurement.years"


# --- Fuzzing: any JSON value in any section field gives a ScenarioError or passes ------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["NaN", "-Infinity", "1e999", "2027-02-30", "0", "3", "0.48", "air"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    section=st.sampled_from(["procurement", "site"]),
    key=st.sampled_from(
        [*document.PROCUREMENT_KEYS, "data_centers", "room", "unknown"],
    ),
    value=json_values,
)
def test_fuzzed_sections_never_crash(section, key, value):
    base = {"procurement": dict(PROCUREMENT), "site": {"room": dict(ROOM)}}[section]
    if section == "site":
        base = {key: value} if key in ("data_centers", "room") else {"room": {**ROOM, key: value}}
    else:
        base[key] = value
    doc = json.loads(json.dumps(with_section(section, base)))  # what a JSON file can hold
    try:
        validate_document(doc)
    except ScenarioError as error:
        assert str(error).startswith((f"{section}", "scenario"))
        assert "\n" not in str(error)
