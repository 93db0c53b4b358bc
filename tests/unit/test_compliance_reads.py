"""Each rule's ``reads`` (the facts it depends on) matches its code.

Options that share the facts a rule reads share its finding (engine.SharedFindings): a rule that
read a fact it does not declare would hand one option's finding to another. The facts a rule
reads are found in its code: every ``facts.<field>`` in the rule's function and in the module's
helpers it passes ``facts`` to.
"""

from __future__ import annotations

import ast
import inspect
import sys
from datetime import date

import pytest

from advisor.domain.compliance.base import Status
from advisor.domain.compliance.engine import (
    ALL_RULES_BY_ID,
    SharedFindings,
    Verdict,
    evaluate,
    verdict_of,
)
from advisor.domain.compliance.facts import (
    ComplianceInput,
    DataCenterFacts,
    OptionFacts,
    PolicyZoneFacts,
    VendorFacts,
)


def _functions(module) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(inspect.getsource(module))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _reads(function: ast.FunctionDef, parameter: str, functions: dict, seen: set) -> set[str]:
    """The ``parameter.<field>`` names ``function`` reads, through the helpers it passes it to."""
    if (function.name, parameter) in seen:
        return set()
    seen.add((function.name, parameter))
    found = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == parameter
        ):
            found.add(node.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            helper = functions.get(node.func.id)
            for position, argument in enumerate(node.args):
                if isinstance(argument, ast.Name) and argument.id == parameter:
                    assert helper is not None, f"{function.name} passes {parameter} on unseen"
                    inner = helper.args.args[position].arg
                    found |= _reads(helper, inner, functions, seen)
    return found


@pytest.mark.parametrize("rule_id", sorted(ALL_RULES_BY_ID))
def test_a_rule_declares_exactly_the_facts_its_code_reads(rule_id):
    rule = ALL_RULES_BY_ID[rule_id]
    module = sys.modules[rule.evaluate.__module__]
    functions = _functions(module)
    function = functions[rule.evaluate.__name__]
    facts_parameter = function.args.args[0].arg
    assert _reads(function, facts_parameter, functions, set()) == set(rule.reads), rule_id


SITES = (
    DataCenterFacts(key="a", pue=1.2, pue_basis="measured", ups_backup_min=15),
    DataCenterFacts(key="b", pue=1.9, pue_basis="measured", ups_backup_min=5),
    DataCenterFacts(key="c"),
)
ZONE = PolicyZoneFacts(key="zone", pue_limit=1.3)
VENDOR = VendorFacts(key="vendor")
TODAY = date(2026, 12, 1)


def test_shared_findings_are_the_findings_each_option_gets_alone():
    shared = SharedFindings()
    for _ in range(2):  # the second round is served from what the first evaluated
        for site in SITES:
            facts = ComplianceInput(TODAY, data_center=site, vendor=VENDOR, zone=ZONE)
            assert evaluate(facts, shared=shared).findings == evaluate(facts).findings


def test_options_with_the_same_site_facts_share_one_finding_object():
    shared = SharedFindings()
    first, second = (
        {
            f.rule_id: f
            for f in evaluate(
                ComplianceInput(TODAY, data_center=SITES[0], vendor=VENDOR, zone=ZONE),
                shared=shared,
            ).findings
        }
        for _ in range(2)
    )
    other = {
        f.rule_id: f
        for f in evaluate(
            ComplianceInput(TODAY, data_center=SITES[1], vendor=VENDOR, zone=ZONE), shared=shared
        ).findings
    }
    assert all(second[r] is first[r] for r in first if ALL_RULES_BY_ID[r].reads)
    assert other["SITE-PUE"].status is Status.FAIL and first["SITE-PUE"].status is Status.PASS
    assert other["VENDOR-NETWORK"] is first["VENDOR-NETWORK"]  # the same vendor's facts


RACKS = (
    DataCenterFacts(key="a", max_rack_kw=20, cooling_kinds=("air",), rack_max_load_kg=900),
    DataCenterFacts(key="b", max_rack_kw=60, cooling_kinds=("direct-liquid",)),
    DataCenterFacts(key="c"),
    DataCenterFacts(key="d", max_rack_kw=20.0, cooling_kinds=("air",), rack_max_load_kg=100),
)
LOADS = (
    OptionFacts(server_power_max_kw=10.2, servers_per_rack=1, server_weight_kg=130),
    OptionFacts(server_power_max_kw=10.2, server_power_typical_kw=7, servers_per_rack=4),
    OptionFacts(),
    OptionFacts(server_power_max_kw=10.2, servers_per_rack=1, server_weight_kg=230),
)


def test_every_server_at_every_site_gets_the_report_it_gets_alone():
    """An option reads its site's and its hardware's findings as kept parts; the rules reading
    both (rack power, cooling, floor load) are its own."""
    shared = SharedFindings()
    reports = {}
    for _ in range(2):
        for load in LOADS:
            for site in RACKS:
                facts = ComplianceInput(TODAY, option=load, data_center=site, vendor=VENDOR)
                report = evaluate(facts, shared=shared)
                assert report == evaluate(facts)
                reports[load, site.key] = report
    power = {key: r.finding("SITE-RACK-POWER").status for key, r in reports.items()}
    assert power[LOADS[0], "a"] is Status.PASS and power[LOADS[1], "a"] is Status.FAIL
    assert power[LOADS[1], "b"] is Status.PASS and power[LOADS[2], "b"] is Status.UNKNOWN
    # Pairs that compare the same figures share the rack rules' findings (Rule.reads_values);
    # a figure of its own (another weight, another rated load) gets its own.
    same, heavier = reports[LOADS[0], "a"], reports[LOADS[3], "a"]
    assert same.finding("SITE-RACK-POWER") is heavier.finding("SITE-RACK-POWER")
    assert same.finding("SITE-RACK-COOLING") is heavier.finding("SITE-RACK-COOLING")
    assert same.finding("SITE-FLOOR-LOAD") != heavier.finding("SITE-FLOOR-LOAD")
    assert same.finding("SITE-FLOOR-LOAD") != reports[LOADS[0], "d"].finding("SITE-FLOOR-LOAD")


def test_a_shared_report_s_verdict_is_the_verdict_of_all_its_findings():
    """The verdict is put together from each kept part's (the worst of them): it is the one
    ``verdict_of`` gives over every finding, for not eligible, incomplete and other reports."""
    shared = SharedFindings()
    verdicts = set()
    for load in LOADS:
        for site in (*RACKS, *SITES):
            facts = ComplianceInput(TODAY, option=load, data_center=site, vendor=VENDOR, zone=ZONE)
            report = evaluate(facts, shared=shared)
            assert report.verdict is verdict_of(report.findings)
            verdicts.add(report.verdict)
    assert {Verdict.NOT_ELIGIBLE, Verdict.INCOMPLETE} <= verdicts


@pytest.mark.parametrize(
    "rule_id", [r for r in sorted(ALL_RULES_BY_ID) if ALL_RULES_BY_ID[r].reads_values]
)
def test_equal_values_read_give_equal_findings(rule_id):
    """A rule's ``reads_values`` hold everything its outcome depends on: across every pair of
    the racks and loads above, equal values give equal findings."""
    rule = ALL_RULES_BY_ID[rule_id]
    by_values = {}
    for load in LOADS:
        for site in RACKS:
            facts = ComplianceInput(TODAY, option=load, data_center=site, vendor=VENDOR)
            finding = evaluate(facts).finding(rule_id)
            assert by_values.setdefault(rule.reads_values(facts), finding) == finding
    assert len(by_values) > 2
