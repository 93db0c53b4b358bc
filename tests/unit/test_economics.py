"""Economics: hand-computed examples, closed-form break-even and payback, chart series.

The worked example used throughout (arithmetic written out in each test):
two 8-GPU servers, 10 kW at full load, 2 kW idle, 8 U each; a run takes 100 h and
1,600 GPU-hours; the buyer trains 2,000 h a year over 3 years.
Site: 0.50 CNY/kWh, PUE 1.25, 8,000 CNY per rack-month, 20 kW and 42 U per rack.
Prices: 2,000,000 CNY per server to buy, 60,000 per server-month to rent, 40 per GPU-hour.
Assumptions: 100 % of full power while training, maintenance 5 %/year, depreciation
5 years to a 5 % residual, shortest rental term 1 month, no hybrid data transfer.
"""

from dataclasses import replace
from decimal import Decimal as D

import pytest

from advisor.domain.economics import (
    BUY,
    CLOUD,
    RENT,
    EconomicsInputError,
    EconomicsInputs,
    Overrides,
    Prices,
    Provenance,
    ServerLoad,
    Site,
    compare_sites,
    evaluate,
    format_cny,
    round_cny,
)
from advisor.domain.economics.compare import break_even_hours, hours_for_payback
from advisor.domain.economics.costs import (
    electricity_cny_per_year,
    it_energy_kwh_per_year,
    mode_cost,
    racks_needed,
    rent_cny_per_year,
    residual_value_cny,
)
from advisor.domain.economics.inputs import BASIS_EXAMPLE, BASIS_OVERRIDE
from advisor.domain.i18n import Message

LOAD = ServerLoad(
    server_count=2,
    gpus_per_server=8,
    power_full_kw=D(10),
    power_idle_kw=D(2),
    rack_units=8,
    gpu_hours_per_run=D(1600),
    hours_per_run=D(100),
)
GUIYANG = Site(
    key="gy",
    name="Guiyang",
    tariff_cny_per_kwh=D("0.50"),
    pue=D("1.25"),
    rack_fee_cny_per_month=D(8000),
    rack_power_limit_kw=D(20),
)
SHANGHAI = Site(
    key="sh",
    name="Shanghai",
    tariff_cny_per_kwh=D("0.80"),
    pue=D("1.40"),
    rack_fee_cny_per_month=D(10000),
    rack_power_limit_kw=D(10),
)
PRICES = Prices(
    purchase_cny_per_server=D(2_000_000),
    rent_cny_per_server_month=D(60_000),
    cloud_cny_per_gpu_hour=D(40),
)


def example(site=GUIYANG, **assumption_overrides) -> EconomicsInputs:
    inputs = EconomicsInputs(load=LOAD, site=site, prices=PRICES)
    if assumption_overrides:
        inputs = replace(inputs, assumptions=replace(inputs.assumptions, **assumption_overrides))
    return inputs


# --- Buy and host, by hand ---------------------------------------------------------------


def test_racks_from_power_and_space():
    # 20 kW / 10 kW = 2 servers by power; 42 U // 8 U = 5 by space; 2 per rack → 1 rack
    assert racks_needed(example()) == 1
    # Shanghai: 10 kW / 10 kW = 1 per rack → 2 racks
    assert racks_needed(example(SHANGHAI)) == 2
    # 6 servers at 20 kW: 2 per rack → 3 racks
    six = replace(example(), load=replace(LOAD, server_count=6))
    assert racks_needed(six) == 3


def test_electricity_by_hand():
    # IT energy = 2 servers × (10 kW × 2000 h + 2 kW × (8760 − 2000) h)
    #           = 2 × (20,000 + 13,520) = 67,040 kWh
    inputs = example()
    assert it_energy_kwh_per_year(inputs, D(2000)) == D(67_040)
    # cost = 67,040 kWh × PUE 1.25 × 0.50 CNY/kWh = 41,900 CNY
    assert electricity_cny_per_year(inputs, D(2000)) == D(41_900)


def test_electricity_uses_training_power_share():
    # at 80 %: 2 × (8 kW × 2000 + 2 kW × 6760) = 2 × (16,000 + 13,520) = 59,040 kWh
    inputs = example(training_power_pct=D(80))
    assert it_energy_kwh_per_year(inputs, D(2000)) == D(59_040)


def test_power_price_that_includes_cooling_is_not_multiplied_by_pue():
    inputs = example(replace(GUIYANG, price_includes_pue=True))
    # 67,040 kWh × 0.50 = 33,520
    assert electricity_cny_per_year(inputs, D(2000)) == D(33_520)
    assert any("already includes cooling" in m.template for m in evaluate(inputs).messages)


def test_power_included_in_the_rack_fee_costs_nothing_extra():
    inputs = example(replace(GUIYANG, power_in_rack_fee=True))
    assert electricity_cny_per_year(inputs, D(2000)) == 0
    assert any("included in the rack fee" in m.template for m in evaluate(inputs).messages)


def test_demand_charge_on_the_peak_facility_kw():
    # 2 servers × 10 kW × PUE 1.25 = 25 kW peak; × 36.1 CNY/kW-month × 12 = 10,830 a year
    inputs = example(replace(GUIYANG, demand_charge_cny_per_kw_month=D("36.1")))
    assert mode_cost(inputs, BUY).running_cny_per_year["demand_charge"] == D(10_830)
    # not charged again when the price is metered at the rack or power is in the fee
    metered = example(replace(inputs.site, price_includes_pue=True))
    assert mode_cost(metered, BUY).running_cny_per_year["demand_charge"] == 0
    # in a site comparison it is its own part: 3 × 10,830 = 32,490
    diff = compare_sites([example(), inputs]).differences[0]
    assert diff.parts_cny["demand_charge"] == D(32_490)
    assert diff.parts_cny["other"] == 0


def test_residual_value_straight_line():
    # 4,000,000 − (4,000,000 − 5 % × 4,000,000) × 3/5 = 4,000,000 − 2,280,000 = 1,720,000
    assert residual_value_cny(example()) == D(1_720_000)
    # past the depreciation years only the salvage value is left: 5 % × 4,000,000 = 200,000
    assert residual_value_cny(example(horizon_years=7)) == D(200_000)


def test_buy_cost_by_hand():
    cost = mode_cost(example(), BUY)
    assert cost.upfront_cny == D(4_000_000)
    assert cost.running_cny_per_year == {
        "electricity": D(41_900),
        "demand_charge": D(0),
        "colocation": D(96_000),  # 1 rack × 8,000 × 12
        "maintenance": D(200_000),  # 5 % × 4,000,000
        "data_transfer": D(0),
    }
    # cash: 4,000,000 + 3 × 337,900 = 5,013,700; net of residual 1,720,000 = 3,293,700
    assert cost.cash_total_cny == D(5_013_700)
    assert cost.horizon_total_cny == D(3_293_700)
    assert cost.cny_per_year == D(1_097_900)
    # 2000 h ÷ 100 h per run = 20 runs; 1,097,900 ÷ 20 = 54,895 per run
    assert cost.cny_per_run == D(54_895)


def test_rent_and_cloud_by_hand():
    inputs = example()
    # rent: 2 servers × 60,000 × 2000/730 months = 328,767.12… a year
    assert rent_cny_per_year(inputs, D(2000)) == D(120_000) * D(2000) / D(730)
    # shortest term: 100 h a year still pays 1 month = 120,000
    assert rent_cny_per_year(inputs, D(100)) == D(120_000)
    # all year: at most 12 months = 1,440,000
    assert rent_cny_per_year(inputs, D(8760)) == D(1_440_000)
    # cloud: 20 runs × 1,600 GPU-h × 40 = 1,280,000 a year, 3,840,000 over 3 years
    cloud = mode_cost(inputs, CLOUD)
    assert cloud.running_cny_per_year == {"cloud_compute": D(1_280_000)}
    assert cloud.horizon_total_cny == D(3_840_000)
    assert cloud.cny_per_run == D(64_000)


def test_hybrid_data_transfer_is_charged_to_buy_and_rent_not_cloud():
    # 20 runs × 500 GB × 0.26 CNY/GB = 2,600 CNY a year
    inputs = example(transfer_gb_per_run=D(500))
    assert mode_cost(inputs, BUY).running_cny_per_year["data_transfer"] == D(2600)
    assert mode_cost(inputs, RENT).running_cny_per_year["data_transfer"] == D(2600)
    assert "data_transfer" not in mode_cost(inputs, CLOUD).running_cny_per_year
    assert any("public cloud adds" in m.template for m in evaluate(inputs).messages)


# --- Result: cheapest, break-even, payback -----------------------------------------------


def test_cheapest_mode_at_the_stated_hours():
    result = evaluate(example())
    # rent 3 × 328,767.12 = 986,301.37 < buy 3,293,700 < cloud 3,840,000
    assert result.cheapest_mode == RENT
    assert result.summary_cny(RENT)["horizon_total"] == D("986301.37")
    # all year round, buying wins: buy 3 × (1,077,900 + 10 × 8760) = 3,496,500 vs rent 4,320,000
    assert evaluate(example(training_hours_per_year=D(8760))).cheapest_mode == BUY


def test_break_even_against_rent_closed_form():
    # yearly buy cost = F + m·H with
    #   F = (4,000,000 − 1,720,000)/3 + 96,000 + 200,000 + idle 2 × 2 kW × 8760 h × 1.25 × 0.5
    #     = 760,000 + 296,000 + 21,900 = 1,077,900
    #   m = 2 × (10 − 2) kW × 1.25 × 0.50 = 10 CNY per training hour
    # yearly rent = 120,000 × H / 730 (above the 1-month minimum)
    # H* = F / (120,000/730 − m) = 1,077,900 × 730 / (120,000 − 7,300) = 6,981.96 h
    expected = D(1_077_900) * 730 / (D(120_000) - D(7_300))
    hours = break_even_hours(example(), RENT)
    assert abs(hours - expected) < D("1e-9")
    assert round(hours, 2) == D("6981.96")
    result = evaluate(example())
    assert result.break_even[RENT].message.params == {"hours": "6,982"}


def test_break_even_against_cloud_closed_form():
    # cloud yearly = H / 100 × 1,600 × 40 = 640·H; H* = 1,077,900 / (640 − 10) = 1,710.95 h
    hours = break_even_hours(example(), CLOUD)
    assert abs(hours - D(1_077_900) / D(630)) < D("1e-9")


def test_break_even_never_and_always():
    cheap_rent = replace(example(), prices=replace(PRICES, rent_cny_per_server_month=D(5000)))
    assert break_even_hours(cheap_rent, RENT) is None
    assert "never" in evaluate(cheap_rent).break_even[RENT].message.template
    free_servers = replace(example(), prices=replace(PRICES, purchase_cny_per_server=D(0)))
    site = replace(GUIYANG, rack_fee_cny_per_month=D(0), tariff_cny_per_kwh=D(0))
    free = replace(free_servers, site=site)
    assert break_even_hours(free, CLOUD) == 0


def test_payback_against_cloud_closed_form():
    # buy running 337,900 a year; cloud 1,280,000 a year
    # payback = 4,000,000 / ((1,280,000 − 337,900) / 12) = 48,000,000 / 942,100 = 50.95 months
    result = evaluate(example())
    payback = result.payback[CLOUD]
    assert abs(payback.months - D(48_000_000) / D(942_100)) < D("1e-20")
    assert payback.within_horizon is False  # 50.95 > 36 months
    assert payback.message.params["months"] == "51.0"
    assert payback.message.params["years"] == "4.2"


def test_hours_for_a_payback_within_the_horizon_closed_form():
    # running per year: buy 317,900 + 10·H (racks, maintenance, idle + training power),
    # cloud 640·H; payback in 36 months needs a saving of 4,000,000 × 12 / 36 a year:
    #   630·H − 317,900 = 1,333,333.33…  ⇒  H = (1,333,333.33… + 317,900) / 630 = 2,621.0 h
    expected = (D(4_000_000) * 12 / 36 + D(317_900)) / 630
    hours = hours_for_payback(example(), CLOUD, D(36))
    assert abs(hours - expected) < D("1e-9")
    result = evaluate(example())
    assert abs(result.payback_in_horizon_from_hours[CLOUD] - expected) < D("1e-9")
    # renting's running cost is below buying's up to 12 months a year: never in 36 months
    assert result.payback_in_horizon_from_hours[RENT] is None


def test_payback_never_when_renting_runs_cheaper_month_by_month():
    # rent 328,767.12 a year < buy running 337,900 a year: buying never catches up
    payback = evaluate(example()).payback[RENT]
    assert payback.months is None
    assert "never" in payback.message.template


def test_payback_matches_the_month_the_series_cross():
    result = evaluate(example(training_hours_per_year=D(6000)))
    months = result.payback[CLOUD].months
    buy, cloud = result.monthly.cumulative_cny[BUY], result.monthly.cumulative_cny[CLOUD]
    first_cheaper = next(m for m in result.monthly.months if buy[m] <= cloud[m])
    assert first_cheaper == int(months) + 1  # months is not a whole number here


# --- Chart series ------------------------------------------------------------------------


def test_monthly_series_starts_at_upfront_and_has_horizon_plus_one_points():
    result = evaluate(example())
    series = result.monthly
    assert series.months == list(range(37))
    for mode in (BUY, RENT, CLOUD):
        assert len(series.cumulative_cny[mode]) == 37
    assert series.cumulative_cny[BUY][0] == D("4000000.00")
    assert series.cumulative_cny[RENT][0] == D("0.00")
    # month 1: 4,000,000 + 337,900 / 12 = 4,028,158.333… → 4,028,158.33
    assert series.cumulative_cny[BUY][1] == D("4028158.33")
    # month 36: the cash total 5,013,700
    assert series.cumulative_cny[BUY][-1] == D("5013700.00")
    assert series.cumulative_cny[CLOUD][-1] == D("3840000.00")
    assert series.residual_value_cny[BUY] == D("1720000.00")


def test_hours_series_covers_the_year():
    series = evaluate(example()).by_hours
    assert series.hours_per_year[0] == 0 and series.hours_per_year[-1] == 8760
    assert len(series.hours_per_year) == 13  # every 730 h
    # at 0 h buying still pays F = 1,077,900 a year
    assert series.cny_per_year[BUY][0] == D("1077900.00")
    # the buy-minus-rent gap changes sign between 6,570 h and 7,300 h (break-even 6,981.96 h)
    gaps = [b - r for b, r in zip(series.cny_per_year[BUY], series.cny_per_year[RENT], strict=True)]
    assert gaps[9] > 0 > gaps[10]


# --- Assumptions and overrides -----------------------------------------------------------


def test_every_assumption_is_listed_with_its_provenance():
    inputs = replace(
        example(),
        provenance={"purchase_cny_per_server": Provenance(BASIS_EXAMPLE, "dealer report")},
    )
    result = evaluate(inputs)
    keys = {a.key for a in result.assumptions}
    for key in (
        "tariff_cny_per_kwh",
        "pue",
        "training_power_pct",
        "maintenance_pct_per_year",
        "purchase_cny_per_server",
        "rent_cny_per_server_month",
        "cloud_cny_per_gpu_hour",
        "transfer_cny_per_gb",
    ):
        assert key in keys
    purchase = next(a for a in result.assumptions if a.key == "purchase_cny_per_server")
    assert purchase.basis == BASIS_EXAMPLE and purchase.source == "dealer report"
    assert purchase.message.render() == "Purchase price: 2000000 CNY per server"
    assert any("not quotes" in m.template for m in result.messages)
    for record in result.assumptions:
        assert record.source or record.basis in ("assumption", "catalog", "sizing", "override")


def test_overrides_replace_figures_and_are_marked_as_the_buyers():
    result = evaluate(example(), Overrides(tariff_cny_per_kwh=D("0.35"), pue=D("1.5")))
    # 67,040 kWh × 1.5 × 0.35 = 35,196
    assert result.costs[BUY].running_cny_per_year["electricity"] == D(35_196)
    tariff = next(a for a in result.assumptions if a.key == "tariff_cny_per_kwh")
    assert tariff.basis == BASIS_OVERRIDE and tariff.value == D("0.35")


def test_override_of_an_impossible_value_is_refused():
    with pytest.raises(EconomicsInputError, match="pue"):
        evaluate(example(), Overrides(pue=D("0.9")))
    with pytest.raises(EconomicsInputError, match="training_hours_per_year"):
        evaluate(example(), Overrides(training_hours_per_year=D(9000)))


def test_a_mode_without_a_price_is_left_out_and_said_so():
    inputs = replace(example(), prices=replace(PRICES, cloud_cny_per_gpu_hour=None))
    result = evaluate(inputs)
    assert CLOUD not in result.costs and CLOUD not in result.break_even
    assert any("cloud is not priced" in m.template for m in result.messages)


def test_server_over_the_rack_limit_gets_its_own_rack_and_a_warning():
    inputs = example(replace(GUIYANG, rack_power_limit_kw=D(8)))
    assert racks_needed(inputs) == 2
    assert any("high-density rack" in m.template for m in evaluate(inputs).messages)


# --- Sites -------------------------------------------------------------------------------


def test_site_difference_is_explained_by_tariff_pue_and_fees():
    comparison = compare_sites([example(GUIYANG), example(SHANGHAI)])
    diff = comparison.differences[0]
    # 3-year IT energy 3 × 67,040 = 201,120 kWh
    # tariff: 201,120 × (0.80 − 0.50) × (1.25 + 1.40)/2 = 79,945.2
    # PUE:    201,120 × (1.40 − 1.25) × (0.50 + 0.80)/2 = 19,609.2
    #   (together 201,120 × (1.40 × 0.80 − 1.25 × 0.50) = 99,554.4)
    # rack fee:  (10,000 − 8,000) × (1 + 2)/2 racks × 36 months = 108,000
    # rack count: (2 − 1) racks × (8,000 + 10,000)/2 × 36 = 324,000
    assert diff.parts_cny == {
        "tariff": D("79945.2"),
        "pue": D("19609.2"),
        "demand_charge": D(0),
        "rack_fee": D(108_000),
        "rack_count": D(324_000),
        "other": D(0),
    }
    assert diff.total_cny == D("531554.4")
    headline = diff.messages[0]
    assert headline.params["difference"] == "531,554"
    assert "more" in headline.template


def test_site_comparison_needs_two_sites():
    with pytest.raises(ValueError):
        compare_sites([example()])


def test_break_even_is_the_last_crossing():
    # Cheap servers in cheap racks: purchase 100,000 each, rack fee 3,800 a month.
    #   F = (200,000 − 86,000)/3 + 10,000 maintenance + 45,600 racks + 21,900 idle = 115,500
    # At 0 h buying (115,500) is cheaper than the 1-month minimum rent (120,000); at 730 h it
    # is dearer (115,500 + 10 × 730 = 122,800 > 120,000); it is cheaper again from
    #   H* = 115,500 × 730 / (120,000 − 7,300) = 748.14 h, the break-even reported.
    cheap = replace(
        example(replace(GUIYANG, rack_fee_cny_per_month=D(3800))),
        prices=replace(PRICES, purchase_cny_per_server=D(100_000)),
    )
    assert mode_cost(cheap, BUY, D(0)).cny_per_year == D(115_500)
    hours = break_even_hours(cheap, RENT)
    assert abs(hours - D(115_500) * 730 / D(112_700)) < D("1e-9")
    assert round(hours, 2) == D("748.14")


# --- Money display -------------------------------------------------------------------------


def test_round_cny_is_half_up():
    assert round_cny(D("0.005")) == D("0.01")
    assert round_cny(D("2.5"), 0) == D(3)
    assert round_cny(D("-2.5"), 0) == D(-3)


def test_format_cny_in_both_languages():
    chinese = {"¥{amount}": "{amount} 元"}
    assert format_cny(D("1234567.4")) == "¥1,234,567"
    assert format_cny(D("1234567.4"), translate=lambda t: chinese.get(t, t)) == "1,234,567 元"
    assert format_cny(D("-0.004"), 2) == "¥0.00"


# --- Snapshot for drafts and the brief ------------------------------------------------------


def test_snapshot_is_json_and_keeps_the_figures():
    import json

    from advisor.domain.economics.snapshot import snapshot

    record = json.loads(json.dumps(snapshot(evaluate(example()))))
    assert record["costs"]["buy"]["horizon_total"] == "3293700.00"
    assert record["costs"]["buy"]["running_per_year"]["electricity"] == "41900.00"
    assert record["break_even_hours"] == {"rent": "6982.0", "cloud": "1711.0"}
    assert record["payback_months"] == {"rent": None, "cloud": "51.0"}
    assert len(record["monthly"]["cumulative_cny"]["buy"]) == 37
    assert record["monthly"]["cumulative_cny"]["buy"][0] == "4000000.00"
    tariff = next(a for a in record["assumptions"] if a["key"] == "tariff_cny_per_kwh")
    assert tariff["template"] == "Electricity price: {value} CNY/kWh"
    assert tariff["params"] == {"value": "0.5"}
    rendered = Message(**record["messages"][0]).render()
    assert rendered.startswith("At 2,000 training hours a year, renting costs least")
