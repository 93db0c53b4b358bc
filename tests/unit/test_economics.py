"""Economics: cost lines on hand-worked numbers, both figures, payback, sites, series.

The worked example (arithmetic written out in each test): one 8-GPU server, 10.2 kW at full
load, 3.06 kW idle, 8 U; a run takes 7.5 h on it. Site: 0.60 CNY/kWh, PUE 1.25, 8,000 CNY per
rack-month, 12 kW and 42 U per rack. Prices: 1,200,000 CNY per server to buy, 75,000 per
server-month to rent, 2.36 per card-hour in the cloud. Assumptions: full power while training,
maintenance 5 % a year, shortest rental term one month, no data moved to a public cloud.
"""

import math
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
    ServerLoad,
    Site,
    compare_sites,
    evaluate,
    format_cny,
    round_cny,
)
from advisor.domain.economics.compare import break_even_hours, payback_month
from advisor.domain.economics.costs import (
    ModeCostCache,
    card_hours,
    default_resale_pct,
    hosted_months,
    mode_cost,
    racks_needed,
    rent_months,
)
from advisor.domain.economics.inputs import BASIS_OVERRIDE, HOURS_PER_MONTH, Assumptions

LOAD = ServerLoad(
    server_count=1,
    gpus_per_server=8,
    power_full_kw=D("10.2"),
    power_idle_kw=D("3.06"),
    rack_units=8,
    gpu_hours_per_run=D(60),
    hours_per_run=D("7.5"),
)
GUIYANG = Site(
    key="gy",
    name="Guiyang",
    tariff_cny_per_kwh=D("0.60"),
    pue=D("1.25"),
    rack_fee_cny_per_month=D(8000),
    rack_power_limit_kw=D(12),
)
PRICES = Prices(
    purchase_cny_per_server=D(1_200_000),
    rent_cny_per_server_month=D(75_000),
    cloud_cny_per_gpu_hour=D("2.36"),
)
ONCE = Assumptions()
PROGRAMME = Assumptions(usage="programme", runs_per_year=D(12), horizon_years=3)


def inputs(assumptions=ONCE, load=LOAD, site=GUIYANG, prices=PRICES) -> EconomicsInputs:
    return EconomicsInputs(load=load, site=site, prices=prices, assumptions=assumptions)


def amounts(cost) -> dict[str, D]:
    return {line.item: line.amount_cny for line in cost.lines}


# --- Cloud: the cards of the option, the hours it runs ------------------------------------


CLOUD_CASES = [
    # cards per instance, hours per run, usage, card-hours, amount
    (1, "7.5", ONCE, "7.50", "17.70"),  # 1 × 7.5 × 2.36
    (6, "3.6", ONCE, "21.60", "50.98"),  # 6 × 3.6 = 21.6; × 2.36 = 50.976
    (1, "61", ONCE, "61.00", "143.96"),
    (1, "7.5", PROGRAMME, "270.00", "637.20"),  # 12 runs × 3 years × 7.5 h
    (8, "0.94", PROGRAMME, "270.72", "638.90"),  # 8 × 0.94 × 36 = 270.72; × 2.36 = 638.8992
]


@pytest.mark.parametrize(("cards", "hours", "usage", "quantity", "amount"), CLOUD_CASES)
def test_cloud_bills_the_cards_of_the_option_for_the_hours_it_runs(
    cards, hours, usage, quantity, amount
):
    load = replace(LOAD, gpus_per_server=cards, hours_per_run=D(hours))
    cost = mode_cost(
        inputs(usage, load=load, prices=Prices(cloud_cny_per_gpu_hour=D("2.36"))), CLOUD
    )
    (line,) = cost.lines
    assert (line.item, line.unit, line.unit_price_cny) == ("cloud_compute", "card_hour", D("2.36"))
    assert (line.quantity, line.amount_cny) == (D(quantity), D(amount))
    assert cost.cash_out_cny == cost.net_of_resale_cny == D(amount)


def test_the_same_offer_costs_more_with_more_cards_and_more_hours():
    def cost(cards, hours):
        load = replace(LOAD, gpus_per_server=cards, hours_per_run=D(hours))
        return mode_cost(inputs(load=load), CLOUD).cash_out_cny

    assert cost(1, "7.5") < cost(2, "7.5") < cost(8, "7.5")
    assert cost(1, "7.5") < cost(1, "15") < cost(1, "61")
    assert cost(8, "7.5") == 8 * cost(1, "7.5")


def test_card_hours_round_up_to_the_hundredth():
    load = replace(LOAD, gpus_per_server=3, hours_per_run=D("0.333"))
    assert card_hours(inputs(load=load)) == D("1.00")  # 0.999 → 1.00


# --- Rent: whole servers, whole months --------------------------------------------------


RENT_CASES = [
    # hours per run, usage, minimum term, months
    ("7.5", ONCE, 1, 1),
    ("7.5", ONCE, 6, 6),  # the shortest term asked
    ("1000", ONCE, 1, 2),  # 1,000 h = 1.37 months → 2
    ("100", replace(PROGRAMME, runs_per_year=D(4)), 1, 12),  # 4 months a year × 3
    ("100", PROGRAMME, 1, 36),  # 12 runs a year: every month
    ("100", replace(PROGRAMME, runs_per_year=D(4)), 3, 36),  # 4 runs × 3 months: capped at 12
    ("100", replace(PROGRAMME, runs_per_year=None, training_hours_per_year=D(2000)), 1, 36),
]


@pytest.mark.parametrize(("hours", "usage", "minimum", "months"), RENT_CASES)
def test_rent_is_whole_contract_months(hours, usage, minimum, months):
    usage = replace(usage, rent_min_months=D(minimum))
    case = inputs(usage, load=replace(LOAD, hours_per_run=D(hours)))
    assert rent_months(case) == months
    cost = mode_cost(case, RENT)
    assert amounts(cost) == {"rent": D(75_000) * months}
    assert cost.lines[0].quantity == months and cost.lines[0].unit == "server_month"


# --- Buy and host: every line, cash out and net -------------------------------------------


def test_buying_for_one_job_is_the_purchase_what_it_costs_to_run_and_the_resale():
    cost = mode_cost(inputs(), BUY)
    # Hosted one month (730 h): 7.5 h training at 10.2 kW, 722.5 h idle at 3.06 kW.
    # IT energy 76.5 + 2,210.85 = 2,287.35 kWh; × PUE 1.25 = 2,859.19 → 2,859 kWh × 0.60.
    assert amounts(cost) == {
        "purchase": D("1200000.00"),
        "electricity": D("1715.40"),
        "colocation": D("8000.00"),  # one rack (12 kW ÷ 10.2 kW = 1 server) × one month
        "maintenance": D("5000.00"),  # 1,200,000 × 5 % ÷ 12 = 5,000 a month × one month
    }
    assert cost.cash_out_cny == D("1214715.40")
    # Resold after a month: 30 % × 0.77 ** (1/12 − 3) = 64.3 % → 64 % (at most 65 %).
    assert cost.resale.amount_cny == D("-768000.00")
    assert cost.net_of_resale_cny == D("446715.40")
    assert cost.per_run_cny == cost.net_of_resale_cny and cost.per_year_cny is None


def test_buying_for_a_programme_is_hosted_over_the_horizon():
    usage = replace(PROGRAMME, runs_per_year=D(12))
    cost = mode_cost(inputs(usage, load=replace(LOAD, hours_per_run=D(100))), BUY)
    # 36 months = 26,280 h: 3,600 h training (12 runs × 100 h × 3), 22,680 h idle.
    # IT energy 36,720 + 69,400.8 = 106,120.8 kWh; × 1.25 = 132,651 kWh × 0.60 = 79,590.60.
    assert amounts(cost) == {
        "purchase": D("1200000.00"),
        "electricity": D("79590.60"),
        "colocation": D("288000.00"),
        "maintenance": D("180000.00"),
    }
    assert cost.cash_out_cny == D("1747590.60")
    assert cost.resale.amount_cny == D("-360000.00")  # 30 % after three years
    assert cost.net_of_resale_cny == D("1387590.60")
    assert cost.runs == 36 and cost.per_run_cny == D("38544.18")  # 1,387,590.60 ÷ 36
    assert cost.per_year_cny == D("462530.20")


def test_every_line_is_its_unit_price_times_its_quantity_and_the_totals_are_the_lines():
    for usage in (ONCE, PROGRAMME):
        for mode in (BUY, RENT, CLOUD):
            cost = mode_cost(inputs(usage), mode)
            for line in (*cost.lines, *([cost.resale] if cost.resale else [])):
                sign = -1 if line.item == "resale" else 1
                assert line.amount_cny == sign * round_cny(line.unit_price_cny * line.quantity)
            assert cost.cash_out_cny == sum(line.amount_cny for line in cost.lines)
            resale = cost.resale.amount_cny if cost.resale else 0
            assert cost.net_of_resale_cny == cost.cash_out_cny + resale


def test_own_room_costs_have_no_rack_fee_line():
    room = replace(GUIYANG, rack_fee_cny_per_month=D(0))
    assert "colocation" not in amounts(mode_cost(inputs(site=room), BUY))


def test_power_in_the_rack_fee_means_no_electricity_line():
    site = replace(GUIYANG, power_in_rack_fee=True)
    assert "electricity" not in amounts(mode_cost(inputs(site=site), BUY))


def test_demand_charge_is_on_the_peak_facility_kw_for_the_months_hosted():
    site = replace(GUIYANG, demand_charge_cny_per_kw_month=D(35))
    line = next(i for i in mode_cost(inputs(site=site), BUY).lines if i.item == "demand_charge")
    assert (line.quantity, line.amount_cny) == (D("12.75"), D("446.25"))  # 10.2 × 1.25 × 1


def test_data_transfer_is_charged_per_run_when_buying_or_renting():
    usage = replace(PROGRAMME, transfer_gb_per_run=D(500))
    for mode in (BUY, RENT):
        line = next(i for i in mode_cost(inputs(usage), mode).lines if i.item == "data_transfer")
        assert (line.quantity, line.amount_cny) == (D(18000), D("4680.00"))  # 36 × 500 × 0.26
    assert "data_transfer" not in amounts(mode_cost(inputs(usage), CLOUD))


@pytest.mark.parametrize(
    ("years", "percent"),
    [("0.0833", 64), ("1", 51), ("2", 39), ("3", 30), ("5", 18), ("0", 65)],
)
def test_the_resale_rule_of_thumb(years, percent):
    assert default_resale_pct(D(years)) == percent


def test_the_buyer_s_resale_figure_replaces_the_rule():
    cost = mode_cost(inputs(replace(ONCE, resale_pct=D(10))), BUY)
    assert cost.resale.amount_cny == D("-120000.00")


def test_racks_follow_power_and_space():
    assert racks_needed(inputs(load=replace(LOAD, server_count=3))) == 3  # 12 kW: one a rack
    wide = replace(GUIYANG, rack_power_limit_kw=D(40))
    assert racks_needed(inputs(load=replace(LOAD, server_count=5), site=wide)) == 2  # 3 per rack


def test_hosting_for_one_long_job_is_its_months():
    assert hosted_months(inputs(load=replace(LOAD, hours_per_run=D(1000)))) == 2


# --- One payback statement ------------------------------------------------------------------


def programme_inputs(runs=12, hours="100"):
    usage = replace(PROGRAMME, runs_per_year=D(runs))
    return inputs(usage, load=replace(LOAD, hours_per_run=D(hours)))


def test_buying_pays_back_against_renting_in_a_month_and_from_hours_a_year():
    case = programme_inputs()
    result = evaluate(case)
    # Rent 36 × 75,000 = 2,700,000 = 75,000 a month; owning runs 547,590.60 ÷ 36 = 15,210.85
    # a month: saves 59,789.15 a month; 1,200,000 ÷ 59,789.15 = 20.07 → month 21.
    assert payback_month(result.costs[BUY], result.costs[RENT]) == 21
    # Over 3 years buying costs 1,728,312.60 + 16.065 × h; renting 225,000 × months a year,
    # months = ceil(h ÷ 100): the first step where renting costs more is 8 months (from 700 h).
    assert break_even_hours(case) == 700
    assert result.payback.month == 21 and result.payback.break_even_hours_per_year == 700
    message = result.payback.message
    assert message.params == {"month": 21, "horizon_months": 36, "years": 3, "hours": 700}
    statements = [m for m in result.messages if "pays back" in m.template]
    assert statements == [message]


def test_buying_does_not_pay_back_says_so_once_and_nothing_else():
    case = programme_inputs(runs=2)  # rent only 2 months a year
    result = evaluate(case)
    assert result.payback.month is None and result.payback.break_even_hours_per_year is None
    assert "does not pay back within 3 years" in result.payback.message.render()
    assert [m for m in result.messages if "pay back" in m.template] == [result.payback.message]


def test_one_job_has_no_payback_statement():
    assert evaluate(inputs()).payback is None


def test_a_programme_that_needs_more_hours_than_a_year_has_is_said():
    result = evaluate(programme_inputs(runs=100, hours="100"))  # 10,000 h a year
    assert not result.fits_in_a_year
    assert any("more than a year has" in m.template for m in result.messages)


# --- Series, overrides, validation, sites ----------------------------------------------------


def test_the_cumulative_cash_ends_at_the_cash_out():
    result = evaluate(programme_inputs())
    for mode, values in result.monthly.cumulative_cny.items():
        assert values[-1] == result.costs[mode].cash_out_cny
        assert values == sorted(values)
    assert result.monthly.cumulative_cny[BUY][0] == D(1_200_000)
    assert result.monthly.net_of_resale_cny[BUY] == result.costs[BUY].net_of_resale_cny


def test_overrides_replace_figures_and_say_they_are_the_buyer_s():
    result = evaluate(inputs(), Overrides(tariff_cny_per_kwh=D("0.40"), resale_pct=D(50)))
    assert result.inputs.site.tariff_cny_per_kwh == D("0.40")
    assert result.inputs.provenance_of("tariff_cny_per_kwh").basis == BASIS_OVERRIDE
    assert result.costs[BUY].resale.amount_cny == D("-600000.00")


def test_the_applied_resale_rule_is_among_the_figures():
    records = {r.key: r for r in evaluate(inputs()).assumptions}
    assert records["resale_pct"].value == 64 and records["resale_pct"].flag == "LOW"


@pytest.mark.parametrize(
    "usage",
    [
        Assumptions(usage="programme"),  # neither runs nor hours
        Assumptions(usage="programme", runs_per_year=D(2), training_hours_per_year=D(9)),
        Assumptions(rent_min_months=D("1.5")),
        Assumptions(resale_pct=D(101)),
        Assumptions(usage="weekly"),
    ],
)
def test_unpriceable_usage_is_refused(usage):
    with pytest.raises(EconomicsInputError):
        inputs(usage)


def test_a_part_checked_once_still_names_each_bad_figure():
    """Parts are checked once per object (validate): a part that passed is not checked again,
    one that failed is refused every time, and the first bad part in order is named."""
    bad_load = replace(LOAD, server_count=0)
    bad_site = replace(GUIYANG, pue=D("0.9"))
    inputs()  # every part passes, and is remembered as checked
    for _ in range(2):
        with pytest.raises(EconomicsInputError, match="server_count"):
            inputs(load=bad_load)
    with pytest.raises(EconomicsInputError, match="pue"):
        inputs(site=bad_site)
    with pytest.raises(EconomicsInputError, match="server_count"):
        inputs(load=bad_load, site=bad_site)


def test_sites_differ_by_parts_that_add_up_to_the_difference():
    shanghai = replace(
        GUIYANG,
        key="sh",
        name="Shanghai",
        tariff_cny_per_kwh=D("0.75"),
        pue=D("1.30"),
        rack_fee_cny_per_month=D(9000),
    )
    comparison = compare_sites([programme_inputs(), replace(programme_inputs(), site=shanghai)])
    (difference,) = comparison.differences
    base, other = comparison.results["gy"], comparison.results["sh"]
    assert (
        difference.total_cny
        == other.costs[BUY].net_of_resale_cny - base.costs[BUY].net_of_resale_cny
    )
    assert sum(difference.parts_cny.values()) == difference.total_cny
    assert round_cny(difference.parts_cny["rack_fee"], 0) == 36000  # 1,000 more × 36 months
    assert difference.messages[0].params["difference"] == round_cny(difference.total_cny, 0)


def test_cny_reads_in_both_languages():
    assert format_cny(D("1234567.5")) == "¥1,234,568"
    assert format_cny(D(-5), translate=lambda _: "{amount} 元") == "-5 元"


# --- docs/economics.md's worked examples, line by line ----------------------------------------

DOCS_LOAD = ServerLoad(
    server_count=1,
    gpus_per_server=8,
    power_full_kw=D("10.2"),
    power_idle_kw=D("3.06"),
    rack_units=8,
    gpu_hours_per_run=D(800),
    hours_per_run=D(100),
)
DOCS_SITE = Site(
    key="guiyang",
    name="Guiyang (Gui'an)",
    tariff_cny_per_kwh=D("0.35"),
    pue=D("1.2"),
    rack_fee_cny_per_month=D(5000),
    rack_power_limit_kw=D(20),
)
DOCS_PRICES = Prices(
    purchase_cny_per_server=D(2_700_000),
    rent_cny_per_server_month=D(70_000),
    cloud_cny_per_gpu_hour=D("48.85"),
)
DOCS_PROGRAMME = Assumptions(usage="programme", runs_per_year=D(20))
DOCS_EXAMPLES = [
    # usage, mode, {item: (unit price, quantity, amount)}, cash out, resale, net of resale
    (ONCE, CLOUD, {"cloud_compute": ("48.85", "800.00", "39080.00")}, "39080.00", None, "39080.00"),
    (ONCE, RENT, {"rent": ("70000", "1", "70000.00")}, "70000.00", None, "70000.00"),
    (
        ONCE,
        BUY,
        {
            "purchase": ("2700000", "1", "2700000.00"),
            "electricity": ("0.35", "3537", "1237.95"),
            "colocation": ("5000", "1", "5000.00"),
            "maintenance": ("11250.00", "1", "11250.00"),
        },
        "2717487.95",
        "-1728000.00",
        "989487.95",
    ),
    (
        DOCS_PROGRAMME,
        BUY,
        {
            "purchase": ("2700000", "1", "2700000.00"),
            "electricity": ("0.35", "147908", "51767.80"),
            "colocation": ("5000", "36", "180000.00"),
            "maintenance": ("135000.00", "3", "405000.00"),  # a year's fee × 3 years
        },
        "3336767.80",
        "-810000.00",
        "2526767.80",
    ),
    (
        DOCS_PROGRAMME,
        RENT,
        {"rent": ("70000", "36", "2520000.00")},
        "2520000.00",
        None,
        "2520000.00",
    ),
    (
        DOCS_PROGRAMME,
        CLOUD,
        {"cloud_compute": ("48.85", "48000.00", "2344800.00")},
        "2344800.00",
        None,
        "2344800.00",
    ),
]


@pytest.mark.parametrize(("usage", "mode", "lines", "cash", "resale", "net"), DOCS_EXAMPLES)
def test_the_documented_worked_examples(usage, mode, lines, cash, resale, net):
    cost = mode_cost(
        EconomicsInputs(load=DOCS_LOAD, site=DOCS_SITE, prices=DOCS_PRICES, assumptions=usage),
        mode,
    )
    got = {line.item: (line.unit_price_cny, line.quantity, line.amount_cny) for line in cost.lines}
    assert got == {item: tuple(D(v) for v in values) for item, values in lines.items()}
    assert cost.cash_out_cny == D(cash)
    assert (cost.resale.amount_cny if cost.resale else None) == (D(resale) if resale else None)
    assert cost.net_of_resale_cny == D(net)


def test_the_documented_programme_does_not_pay_back_against_rent():
    result = evaluate(
        EconomicsInputs(
            load=DOCS_LOAD, site=DOCS_SITE, prices=DOCS_PRICES, assumptions=DOCS_PROGRAMME
        )
    )
    assert result.payback.month is None and result.payback.break_even_hours_per_year is None
    assert "does not pay back within 3 years" in result.payback.message.render()


# --- Mode costs cached per load, site, assumptions and price for one recommendation (0067, 0087)


def test_a_cached_mode_cost_is_the_mode_cost_and_is_shared_by_equal_parts():
    kept_mode_cost = ModeCostCache().mode_cost

    usage = Assumptions()
    first = EconomicsInputs(LOAD, GUIYANG, PRICES, usage)
    other_prices = EconomicsInputs(LOAD, GUIYANG, replace(PRICES), usage)
    for mode in (BUY, RENT, CLOUD):
        assert kept_mode_cost(first, mode) == mode_cost(first, mode)
        assert kept_mode_cost(other_prices, mode) is kept_mode_cost(first, mode)


def test_a_cached_mode_cost_tells_apart_what_it_reads():
    kept_mode_cost = ModeCostCache().mode_cost

    usage = Assumptions()
    base = EconomicsInputs(LOAD, GUIYANG, PRICES, usage)
    written_apart = replace(base, prices=replace(PRICES, purchase_cny_per_server=D("1200000.0")))
    bought = kept_mode_cost(written_apart, BUY)
    assert bought is not kept_mode_cost(base, BUY)
    assert str(bought.lines[0].unit_price_cny) == "1200000.0"
    other_site = replace(base, site=replace(GUIYANG, tariff_cny_per_kwh=D("0.70")))
    assert kept_mode_cost(other_site, BUY) != kept_mode_cost(base, BUY)
    # Renting reads no site: one rent for both sites.
    assert kept_mode_cost(other_site, RENT) is kept_mode_cost(base, RENT)
    other_usage = replace(base, assumptions=replace(usage, rent_min_months=D(2)))
    assert kept_mode_cost(other_usage, RENT) == mode_cost(other_usage, RENT)
    assert kept_mode_cost(other_usage, RENT) != kept_mode_cost(base, RENT)
    assert kept_mode_cost(replace(base, prices=Prices()), BUY) is None


def test_each_recommendation_has_its_own_mode_costs():
    inputs = EconomicsInputs(LOAD, GUIYANG, PRICES, Assumptions())
    first, second = ModeCostCache(), ModeCostCache()
    assert first.mode_cost(inputs, BUY) is first.mode_cost(inputs, BUY)
    assert second.mode_cost(inputs, BUY) is not first.mode_cost(inputs, BUY)
    assert second.mode_cost(inputs, BUY) == first.mode_cost(inputs, BUY)


def test_one_job_is_priced_for_itself_and_says_so_without_a_horizon():
    """A one-off job has no three-year horizon (buyer review Nm4): its figures name the job as
    the period, and its hosting, rent and resale follow the months the job holds the servers;
    a programme keeps its horizon of years."""
    once = evaluate(inputs())
    keys = [a.key for a in once.assumptions]
    assert "horizon_years" not in keys and "usage" in keys
    period = next(a for a in once.assumptions if a.key == "usage")
    assert period.message.render().startswith("Period: this one job")
    buy = once.costs["buy"]
    assert buy.months == math.ceil(LOAD.hours_per_run / HOURS_PER_MONTH) and buy.runs == 1
    assert buy.per_year_cny is None
    programme = evaluate(programme_inputs())
    keys = [a.key for a in programme.assumptions]
    assert "horizon_years" in keys and "usage" not in keys
    assert programme.costs["buy"].months == 36
