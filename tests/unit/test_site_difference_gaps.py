"""A site difference is built only from components both sites have a figure of their own for
(docs/decisions/0105): a demand charge on one side against none on record on the other, or a
site's own PUE against a national placeholder, is left out of the difference and said so."""

from dataclasses import replace
from decimal import Decimal as D

from advisor.domain.economics import (
    BUY,
    EconomicsInputs,
    Prices,
    ServerLoad,
    Site,
    compare_sites,
    evaluate,
    round_cny,
)
from advisor.domain.economics.compare import (
    SITE_LEFT_OUT,
    SITE_LEFT_OUT_NATIONAL_DEMAND,
    SITE_LESS,
    SITE_LESS_PARTIAL,
    SITE_MORE,
    SITE_PART,
    SITE_SAME_PARTIAL,
    has_own_figure,
)
from advisor.domain.economics.inputs import (
    BASIS_ASSUMPTION,
    BASIS_OFFICIAL,
    LEVEL_NATIONAL,
    LEVEL_ZONE,
    Assumptions,
    Provenance,
)

LOAD = ServerLoad(
    server_count=1,
    gpus_per_server=8,
    power_full_kw=D("10.2"),
    power_idle_kw=D("3.06"),
    rack_units=8,
    gpu_hours_per_run=D(60),
    hours_per_run=D("7.5"),
)
PRICES = Prices(purchase_cny_per_server=D(1_200_000))
PROGRAMME = Assumptions(usage="programme", runs_per_year=D(12), horizon_years=3)
ZONE_TABLE = Provenance(BASIS_OFFICIAL, "province table", level=LEVEL_ZONE, flag="OFF")
NATIONAL = Provenance(BASIS_ASSUMPTION, "national placeholder", level=LEVEL_NATIONAL)

GUIAN = Site(
    key="gy",
    name="Gui'an",
    name_zh="贵安",
    tariff_cny_per_kwh=D("0.56"),
    pue=D("1.20"),
    rack_fee_cny_per_month=D(5000),
    rack_power_limit_kw=D(12),
    demand_charge_cny_per_kw_month=D(35),
)
HOHHOT = replace(
    GUIAN,
    key="nm",
    name="Hohhot",
    name_zh="呼和浩特",
    tariff_cny_per_kwh=D("0.40"),
    pue=D("1.25"),
    demand_charge_cny_per_kw_month=D(0),
)


def inputs(site: Site, provenance: dict) -> EconomicsInputs:
    return EconomicsInputs(
        load=LOAD, site=site, prices=PRICES, assumptions=PROGRAMME, provenance=provenance
    )


def own(demand=True) -> dict:
    figures = {
        "tariff_cny_per_kwh": ZONE_TABLE,
        "pue": ZONE_TABLE,
        "rack_fee_cny_per_month": ZONE_TABLE,
    }
    return {**figures, "demand_charge_cny_per_kw_month": ZONE_TABLE} if demand else figures


def difference(base, other):
    comparison = compare_sites([base, other])
    (diff,) = comparison.differences
    return comparison, diff


def test_a_demand_charge_on_one_side_only_is_left_out_and_said():
    comparison, diff = difference(inputs(GUIAN, own()), inputs(HOHHOT, own(demand=False)))
    base = comparison.results["gy"]
    other = comparison.results["nm"]
    paid = sum(i.amount_cny for i in base.costs[BUY].lines if i.item == "demand_charge")
    assert paid > 0  # Gui'an pays a demand charge, Hohhot has none on record
    assert "demand_charge" not in diff.parts_cny
    assert diff.left_out_cny == {"demand_charge": -paid}
    # The stated difference leaves the demand charge out; its parts add up to it.
    cost_difference = other.costs[BUY].net_of_resale_cny - base.costs[BUY].net_of_resale_cny
    assert diff.total_cny == cost_difference + paid
    assert diff.cost_difference_cny == cost_difference
    assert sum(diff.parts_cny.values()) == diff.total_cny
    headline, *lines = diff.messages
    assert headline.template == SITE_LESS_PARTIAL  # Hohhot is cheaper
    said = [m for m in lines if m.template == SITE_LEFT_OUT["demand_charge"]]
    assert len(said) == 1
    assert said[0].params["missing"] == "Hohhot" and said[0].params["missing_zh"] == "呼和浩特"
    assert said[0].params["known"] == "Gui'an"
    assert said[0].params["amount"] == round_cny(paid, 0)
    # No line states a demand-charge difference.
    assert not any(m.template == SITE_PART["demand_charge"] for m in lines)


def test_a_demand_charge_known_on_both_sides_is_compared():
    hohhot = replace(HOHHOT, demand_charge_cny_per_kw_month=D("32.8"))
    comparison, diff = difference(inputs(GUIAN, own()), inputs(hohhot, own()))
    assert diff.left_out_cny == {}
    assert diff.parts_cny["demand_charge"] != 0
    assert diff.messages[0].template in (SITE_MORE, SITE_LESS)
    base, other = comparison.results["gy"], comparison.results["nm"]
    assert diff.total_cny == other.costs[BUY].net_of_resale_cny - base.costs[BUY].net_of_resale_cny


def test_a_national_demand_charge_is_named_as_the_placeholder_it_is():
    """A demand charge the national mean stands in for is not "none on record": the line says a
    national figure stands in and what it would count, as for the tariff and the PUE."""
    hohhot = replace(HOHHOT, demand_charge_cny_per_kw_month=D("35.5"))
    placeholder = {**own(), "demand_charge_cny_per_kw_month": NATIONAL}
    _, diff = difference(inputs(GUIAN, own()), inputs(hohhot, placeholder))
    assert "demand_charge" in diff.left_out_cny and "demand_charge" not in diff.parts_cny
    said = [m for m in diff.messages if m.template == SITE_LEFT_OUT_NATIONAL_DEMAND]
    assert len(said) == 1 and said[0].params["missing"] == "Hohhot"
    assert said[0].params["amount"] == round_cny(diff.left_out_cny["demand_charge"], 0)
    assert not any(m.template == SITE_LEFT_OUT["demand_charge"] for m in diff.messages)


def test_a_national_pue_placeholder_is_not_compared_with_a_sites_own():
    placeholder = {**own(demand=False), "pue": NATIONAL}
    hohhot = replace(HOHHOT, pue=D("1.5"))
    _, diff = difference(inputs(GUIAN, own()), inputs(hohhot, {**placeholder}))
    assert "pue" in diff.left_out_cny and "pue" not in diff.parts_cny
    assert any(m.template == SITE_LEFT_OUT["pue"] for m in diff.messages)


def test_a_demand_charge_needs_a_figure_or_a_reason_to_be_known():
    def known(site):
        return has_own_figure(evaluate(inputs(site, {})), "demand_charge")

    assert known(GUIAN)  # stated by the caller
    assert not known(HOHHOT)  # the default zero
    assert known(replace(HOHHOT, power_in_rack_fee=True))  # none applies


def test_everything_left_out_says_the_rest_costs_the_same():
    bare = {"tariff_cny_per_kwh": NATIONAL, "pue": NATIONAL, "rack_fee_cny_per_month": NATIONAL}
    twin = replace(GUIAN, key="tw", name="Twin", name_zh="双", tariff_cny_per_kwh=D("0.70"))
    twin = replace(twin, pue=D("1.5"), demand_charge_cny_per_kw_month=D(0))
    _, diff = difference(inputs(GUIAN, own()), inputs(twin, bare))
    assert set(diff.left_out_cny) == {"tariff", "pue", "demand_charge"}
    assert round_cny(diff.total_cny, 0) == 0
    assert diff.messages[0].template == SITE_SAME_PARTIAL
