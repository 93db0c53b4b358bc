"""The CLIs keep the README's promise: bad input exits 2 with one line naming the field.

An independent probe found tracebacks (unchecked ``site``/``procurement`` values, JSON nested
100,000 deep), values silently replaced (``years: 0`` became 3, ``"budget_cny": "lots"``
ignored, ``hours_per_year: 0`` gave a brief costing 0 CNY), ``issue_brief --user <approver>``
issuing a brief, and a bad ``--output`` path failing after the brief had been numbered.
"""

import json
import subprocess
import sys
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.brief.models import Brief, BriefCounter
from advisor.domain import document as domain_document
from advisor.results import forms as results_forms
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from advisor.wizard import forms as wizard_forms
from tests.integration.test_recommend_catalog import SCENARIO
from tests.support.briefs import signing_settings
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from tests.unit.test_document_validation import BAD
from vendors.choices import SiteCooling
from vendors.models import Accelerator, DataCenter

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path, payload, name="scenario.json") -> Path:
    path = tmp_path / name
    path.write_text(payload if isinstance(payload, str) else json.dumps(payload))
    return path


def refused(*args) -> str:
    """The one line a command refused its input with (exit status 2)."""
    with pytest.raises(CommandError) as error:
        call_command(*args, stdout=StringIO(), stderr=StringIO())
    assert error.value.returncode == 2, error.value
    line = str(error.value)
    assert "\n" not in line
    return line


# Bad documents from the validator's table, run through each command that reads them.
CLI_CASES = [case for case in BAD if case[1].split(".")[0] in ("procurement", "site")]


@pytest.mark.django_db
@pytest.mark.parametrize("command", ["recommend", "size", "issue_brief"])
@pytest.mark.parametrize(("doc", "field", "words"), CLI_CASES, ids=[c[1] for c in CLI_CASES])
def test_every_command_refuses_a_bad_section_value(tmp_path, command, doc, field, words):
    # The scenario half must be the catalog's (recommend and issue_brief price it).
    doc = {**SCENARIO, **{k: v for k, v in doc.items() if k in ("site", "procurement")}}
    path = write(tmp_path, doc)
    extra = {
        "recommend": [],
        "size": [],
        "issue_brief": ["--user", "nobody", "--output", str(tmp_path / "out.pdf")],
    }[command]
    line = refused(command, "--input", str(path), *extra)
    assert line.startswith(f"{field}: ") and words in line


HOSTILE_FILES = [
    ("[" * 100_000 + "]" * 100_000, "input: JSON nested too deeply"),
    ('{"procurement": ' * 50_000 + "1" + "}" * 50_000, "input: JSON nested too deeply"),
    ('{"years": ' + "9" * 5000 + "}", "input: not valid JSON"),
    ("x" * (1024 * 1024 + 1), "input: larger than 1024 KiB"),
    ("\udcff", "input: cannot read"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "message"), HOSTILE_FILES, ids=["list", "obj", "int", "big", "utf8"]
)
def test_hostile_files_are_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "hostile.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    assert refused("recommend", "--input", str(path)).startswith(message)


@pytest.mark.django_db
def test_deeply_nested_section_is_refused_before_validation(tmp_path):
    nested = json.dumps({**SCENARIO, "procurement": {"overrides": {"pue": [[[[[[]]]]]] * 1}}})
    nested = nested.replace("[[[[[[]]]]]]", "[" * 200 + "]" * 200)
    line = refused("recommend", "--input", str(write(tmp_path, nested)))
    assert line.startswith("scenario: is nested more than")


def test_a_real_process_exits_2_with_one_line_on_stderr(tmp_path):
    """Outside the test runner: exit status 2 and one line, no traceback (100k-deep JSON)."""
    path = tmp_path / "deep.json"
    path.write_text('{"procurement": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = subprocess.run(
        [sys.executable, "manage.py", "recommend", "--input", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["CommandError: input: JSON nested too deeply"]


# --- issue_brief: the preparer's role and the output path, before a number is taken -------


@pytest.fixture
def brief_env(pki_dir, tmp_path, settings):
    load_catalog()
    settings.BRIEF_SIGNING = signing_settings(pki_dir)
    settings.MEDIA_ROOT = tmp_path / "media"


def numbers_taken() -> int:
    return sum(counter.last for counter in BriefCounter.objects.all())


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_env")
@pytest.mark.parametrize(
    ("role", "message"),
    [
        (APPROVER, "user: 'someone' may not issue briefs"),
        (None, "user: 'someone' may not issue briefs"),
    ],
)
def test_issue_brief_refuses_a_user_who_may_not_issue(tmp_path, role, message):
    make_user("someone", *([role] if role else []))
    line = refused(
        "issue_brief",
        "--input",
        str(write(tmp_path, SCENARIO)),
        "--user",
        "someone",
        "--output",
        str(tmp_path / "brief.pdf"),
    )
    assert line.startswith(message)
    assert not Brief.objects.exists() and numbers_taken() == 0


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_env")
def test_issue_brief_refuses_a_deactivated_user(tmp_path):
    make_user("gone", PROCUREMENT_STAFF, is_active=False)
    line = refused(
        "issue_brief",
        "--input",
        str(write(tmp_path, SCENARIO)),
        "--user",
        "gone",
        "--output",
        str(tmp_path / "b.pdf"),
    )
    assert line == "user: 'gone' is deactivated"


@pytest.mark.django_db
@pytest.mark.usefixtures("brief_env")
@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("missing/folder/brief.pdf", "output: folder"),
        (".", "is a directory"),
        ("scenario.json/brief.pdf", "scenario.json is not a folder"),
    ],
)
def test_issue_brief_checks_the_output_before_taking_a_number(tmp_path, output, message):
    make_user("buyer", PROCUREMENT_STAFF)
    line = refused(
        "issue_brief",
        "--input",
        str(write(tmp_path, SCENARIO)),
        "--user",
        "buyer",
        "--output",
        str(tmp_path / output),
    )
    assert message in line
    assert not Brief.objects.exists() and numbers_taken() == 0


# --- The validator's limits are the wizard's (one set of numbers, compared) --------------


def test_document_limits_match_the_wizard_and_figures_forms():
    room = wizard_forms.SiteStepForm.base_fields
    # Documents written before runs were asked may give hours a year; the wizard asks runs.
    not_asked = {"procurement.hours_per_year"}
    for key, (low, high) in domain_document.LIMITS.items():
        if key in not_asked:
            continue
        section, *rest = key.split(".")
        name = rest[-1]
        field = (
            room[name] if section == "site" else wizard_forms.ProcurementStepForm.base_fields[name]
        )
        assert (field.min_value, field.max_value) == (low, high), key
    for table, limits in (
        (results_forms.SITE_FIELDS, domain_document.SITE_FIGURE_LIMITS),
        (results_forms.PRICE_FIELDS, domain_document.PRICE_FIGURE_LIMITS),
        (results_forms.GENERAL_FIELDS, domain_document.GENERAL_FIGURE_LIMITS),
    ):
        for name, _label, low, high in table:
            assert (Decimal(low), Decimal(high)) == tuple(map(Decimal, map(str, limits[name]))), (
                name
            )
    assert set(domain_document.COOLING_KINDS) == set(SiteCooling.values)
    qualifications = {code for code, _label in wizard_forms.QUALIFICATION_CHOICES}
    assert set(domain_document.QUALIFICATIONS) == qualifications


# --- Fuzzing the CLIs: any value in any procurement field exits 0 or 2, never a traceback --

FIELD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
    st.sampled_from(["NaN", "lots", "2027-02-30", "0", "three", "1e999", "buy", "0.48"]),
    st.lists(st.sampled_from(["buy", "lease", "", "air", 3]), max_size=3),
    st.dictionaries(st.sampled_from(["example-guian", "pue", "x"]), st.integers(), max_size=2),
)


@pytest.mark.django_db
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    command=st.sampled_from(["recommend", "size"]),
    key=st.sampled_from([*domain_document.PROCUREMENT_KEYS, "typo"]),
    value=FIELD_VALUES,
)
def test_fuzzed_cli_input_exits_0_or_2(tmp_path_factory, command, key, value):
    if not DataCenter.objects.exists():  # once: the examples share the test's database
        load_catalog()
    tmp = tmp_path_factory.mktemp("fuzz")
    text = json.dumps(
        {**SCENARIO, "site": {"data_centers": ["example-guian"]}, "procurement": {key: value}}
    )
    path = write(tmp, text)
    extra = []
    if command == "size":  # the scenario leaves the accelerator open; size needs one
        extra = ["--accelerator", Accelerator.objects.order_by("key").first().key]
    try:
        call_command(command, "--input", str(path), *extra, stdout=StringIO(), stderr=StringIO())
    except CommandError as error:
        assert error.returncode == 2
        assert "\n" not in str(error)
        assert str(error).startswith(("procurement", "input", "scenario"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("procurement", "line"),
    [
        (
            {"site_overrides": {"nowhere": {"pue": 1.3}}},
            "procurement.site_overrides.nowhere: nowhere is not a data center in the catalog.",
        ),
        (
            {"price_overrides": {"no-such-server": {"purchase_cny_per_server": 1000000}}},
            "procurement.price_overrides.no-such-server: no-such-server is not a server model "
            "in the catalog.",
        ),
    ],
    ids=["site", "price"],
)
def test_own_figures_for_an_unknown_key_are_refused(tmp_path, procurement, line):
    """A figure for a data center or server the catalog does not hold would be read by nobody:
    the command names it instead of ignoring it."""
    load_catalog()
    path = write(tmp_path, {**SCENARIO, "procurement": procurement})
    assert refused("recommend", "--input", str(path)) == line


@pytest.mark.django_db
def test_own_figures_for_known_keys_are_used(tmp_path):
    load_catalog()
    document = {
        **SCENARIO,
        "site": {"data_centers": ["example-guian"]},
        "procurement": {
            "modes": ["buy"],
            "site_overrides": {"example-guian": {"pue": 1.25}},
            "price_overrides": {"atlas-800t-a2": {"purchase_cny_per_server": 1500000}},
        },
    }
    out = StringIO()
    call_command(
        "recommend",
        "--input",
        str(write(tmp_path, document)),
        "--format",
        "json",
        "--all",
        stdout=out,
    )
    options = json.loads(out.getvalue())["options"]
    atlas = [o for o in options if o["server"] == "atlas-800t-a2" and o["cost"]]
    assert atlas
    purchase = next(line for line in atlas[0]["cost"]["lines"] if line["item"] == "purchase")
    assert Decimal(purchase["unit_price_cny"]) == Decimal(1500000)
