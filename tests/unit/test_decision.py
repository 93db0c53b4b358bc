"""The decision on top of the options: folded rows, a shortlist, the runner-up, the dead end."""

from dataclasses import replace
from decimal import Decimal

from advisor.domain.recommend import CloudCandidate, Procurement, recommend
from advisor.domain.recommend.decision import (
    blocking_requirements,
    decide,
    fold,
    shortlist,
)
from tests.unit.test_recommend import TODAY, hardware, scenario, site


def four_makers_at_five_sites():
    servers = [
        hardware("dgx-h100", "nvidia-hopper"),
        hardware("hgx-h100-8gpu", "nvidia-hopper"),
        hardware("dell-xe9680-h100", "nvidia-hopper"),
    ]
    sites = [site(key) for key in ("a", "b", "c", "d", "e")]
    return recommend(scenario(), servers, sites, Procurement(modes=("rent",)), today=TODAY)


def test_identical_rentals_fold_into_one_choice():
    result = four_makers_at_five_sites()
    ranks = {o.key: i for i, o in enumerate(result.rankings["recommended"], start=1)}
    choices = fold(result.options, ranks)
    assert len(result.options) == 15
    assert len(choices) == 1
    (choice,) = choices
    assert choice.rank == 1 and choice.equivalents == 14
    assert len(choice.servers) == 3 and len(choice.places) == 5


def test_the_shortlist_keeps_one_row_per_accelerator_and_mode():
    servers = [hardware("dgx-h100", "nvidia-hopper"), hardware("hgx-a100-80gb-8gpu", "ampere")]
    sites = [site("cheap", tariff="0.30"), site("dear", tariff="0.90")]
    result = recommend(scenario(), servers, sites, today=TODAY)
    choices = fold(result.options, {})
    kept, hidden = shortlist(choices)
    keys = [(c.option.hardware.accelerator.key, c.option.mode) for c in kept]
    assert len(keys) == len(set(keys)) == 4  # 2 accelerators × buy, rent
    assert hidden == len(choices) - 4
    assert kept[0].option.site.data_center.key == "cheap"


def test_the_decision_names_the_runner_up_in_another_mode():
    candidate = replace(
        hardware("dgx-h100", "nvidia-hopper", buy=900_000, rent=90_000),
        clouds=(
            CloudCandidate(
                key="c", provider="Cloud", price_cny_per_gpu_hour=Decimal(40), instance_gpus=(8,)
            ),
        ),
    )
    result = recommend(scenario(), [candidate], [site()], today=TODAY)
    decision = decide(result)
    assert decision.recommended is result.rankings["recommended"][0]
    assert decision.runner_up is not None
    assert decision.runner_up.mode != decision.recommended.mode
    assert decision.difference_cny == decision.runner_up.cost_cny - decision.recommended.cost_cny
    assert decision.difference_cny >= 0


def test_a_dead_end_names_the_requirement_and_how_many_it_would_let_through():
    unlicensed = site("x", vendor=replace(site().vendor, licences=()))
    servers = [hardware("dgx-h100", "nvidia-hopper"), hardware("hgx-a100-80gb-8gpu", "ampere")]
    procurement = Procurement(
        modes=("buy",), required_rules=("VENDOR-TELECOM-LICENCE",), domestic_only=True
    )
    result = recommend(scenario(), servers, [unlicensed], procurement, today=TODAY)
    assert not result.rankings["recommended"]
    blockers = {b.code: b for b in blocking_requirements(result.options)}
    assert blockers["domestic"].removes == 2
    licence = next(c for c in blockers if "VENDOR-TELECOM-LICENCE" in c)
    assert blockers[licence].removes == 2
    # Each option fails both: lifting one alone lets none through.
    assert blockers["domestic"].would_qualify == blockers[licence].would_qualify == 0


def test_lifting_the_only_requirement_lets_options_through():
    procurement = Procurement(modes=("buy",), domestic_only=True)
    result = recommend(scenario(), [hardware("dgx-h100", "x")], [site()], procurement, today=TODAY)
    (blocker,) = blocking_requirements(result.options)
    assert (blocker.code, blocker.removes, blocker.would_qualify) == ("domestic", 1, 1)


def test_domestic_preferred_breaks_ties_between_equal_options():
    """The same rent for two servers: without a preference the option keys decide; with
    domestic accelerators preferred, the domestic one ranks first. Nothing else moves."""
    servers = [
        hardware("dgx-h100", "nvidia-hopper"),
        hardware("hgx-h100-8gpu", "nvidia-hopper", domestic=True),  # marked so for the test
    ]
    plain = recommend(scenario(), servers, [site()], Procurement(modes=("rent",)), today=TODAY)
    first, second = plain.rankings["recommended"]
    assert first.cost_cny == second.cost_cny and not first.hardware.domestic
    preferred = Procurement(modes=("rent",), prefer_domestic=True)
    result = recommend(scenario(), servers, [site()], preferred, today=TODAY)
    first, second = result.rankings["recommended"]
    assert first.hardware.domestic and not second.hardware.domestic
    decision = decide(result, prefer_domestic=True)
    assert decision.best_domestic is first and decision.domestic_rank == 1
    assert decision.domestic_difference_cny == 0


def test_domestic_preferred_never_outranks_a_cheaper_option_and_is_named():
    servers = [
        hardware("dgx-h100", "nvidia-hopper", rent=90_000),
        hardware("hgx-h100-8gpu", "nvidia-hopper", domestic=True, rent=100_000),
    ]
    procurement = Procurement(modes=("rent",), prefer_domestic=True)
    result = recommend(scenario(), servers, [site()], procurement, today=TODAY)
    cheaper, domestic = result.rankings["recommended"]
    assert not cheaper.hardware.domestic
    decision = decide(result, prefer_domestic=True)
    assert decision.recommended is cheaper and decision.best_domestic is domestic
    assert decision.domestic_rank == 2
    assert decision.domestic_difference_cny == domestic.cost_cny - cheaper.cost_cny > 0
    assert decide(result).best_domestic is None  # no preference: nothing named


def test_requirements_that_only_together_keep_options_out_are_combined():
    """Issue 51: two qualifications the vendor has not shown each remove every option, and
    lifting either alone lets none through; the combined answer names both and how many
    qualify without them."""
    from advisor.domain.recommend.decision import combined_requirements

    bare = site("x", vendor=replace(site().vendor, certificates=None))  # none on record
    servers = [hardware("dgx-h100", "nvidia-hopper"), hardware("hgx-a100-80gb-8gpu", "ampere")]
    procurement = Procurement(modes=("buy",), required_rules=("VENDOR-ISO27001", "VENDOR-MLPS3"))
    result = recommend(scenario(), servers, [bare], procurement, today=TODAY)
    assert not result.rankings["recommended"]
    blockers = blocking_requirements(result.options)
    assert len(blockers) == 2 and all(b.would_qualify == 0 for b in blockers)
    combined = combined_requirements(result.options)
    assert combined is not None
    assert set(combined.codes) == {"required:VENDOR-ISO27001", "required:VENDOR-MLPS3"}
    assert combined.would_qualify == 2
    # Lifting the deadline as well would change nothing: it is not named.
    assert all(code.startswith("required:") for code in combined.codes)


def test_no_combined_answer_when_one_requirement_alone_does_it():
    from advisor.domain.recommend.decision import combined_requirements

    procurement = Procurement(modes=("buy",), domestic_only=True)
    result = recommend(scenario(), [hardware("dgx-h100", "x")], [site()], procurement, today=TODAY)
    assert combined_requirements(result.options) is None
