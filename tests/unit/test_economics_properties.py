"""Economics properties over random inputs: direction of every lever, closed forms, series."""

from dataclasses import replace
from decimal import Decimal as D

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from advisor.domain.economics import (
    BUY,
    CLOUD,
    RENT,
    EconomicsInputs,
    Overrides,
    Prices,
    ServerLoad,
    Site,
    compare_sites,
    evaluate,
)
from advisor.domain.economics.compare import break_even_hours, hours_for_payback
from advisor.domain.economics.costs import (
    annual_cost_cny,
    it_energy_kwh_per_year,
    mode_cost,
    racks_needed,
)


def decimals(low, high, places=2):
    return st.decimals(min_value=D(low), max_value=D(high), places=places)


@st.composite
def options(draw):
    full_kw = draw(decimals("0.5", "15", 1))
    load = ServerLoad(
        server_count=draw(st.integers(1, 16)),
        gpus_per_server=8,
        power_full_kw=full_kw,
        power_idle_kw=full_kw * draw(decimals("0", "0.6")),
        rack_units=draw(st.integers(1, 10)),
        gpu_hours_per_run=draw(decimals("1", "20000", 0)),
        hours_per_run=draw(decimals("1", "500", 0)),
    )
    site = Site(
        key="s",
        name="Site",
        tariff_cny_per_kwh=draw(decimals("0.1", "1.5")),
        pue=draw(decimals("1.0", "2.0")),
        rack_fee_cny_per_month=draw(decimals("0", "20000", 0)),
        rack_power_limit_kw=draw(decimals("5", "60", 0)),
    )
    prices = Prices(
        purchase_cny_per_server=draw(decimals("100000", "4000000", 0)),
        rent_cny_per_server_month=draw(decimals("5000", "200000", 0)),
        cloud_cny_per_gpu_hour=draw(decimals("1", "80")),
    )
    inputs = EconomicsInputs(load=load, site=site, prices=prices)
    hours = draw(decimals("0", "8760", 0))
    return replace(inputs, assumptions=replace(inputs.assumptions, training_hours_per_year=hours))


def uses_energy(inputs):
    return it_energy_kwh_per_year(inputs, inputs.assumptions.training_hours_per_year) > 0


def buy_total(inputs, **overrides):
    return evaluate(inputs, Overrides(**overrides)).costs[BUY].horizon_total_cny


@given(options(), decimals("0.01", "1"))
def test_higher_tariff_raises_buy_cost(inputs, step):
    tariff = inputs.site.tariff_cny_per_kwh
    higher = buy_total(inputs, tariff_cny_per_kwh=tariff + step)
    assert higher > buy_total(inputs) if uses_energy(inputs) else higher == buy_total(inputs)


@given(options(), decimals("0.01", "0.5"))
def test_higher_pue_raises_buy_cost(inputs, step):
    higher = buy_total(inputs, pue=inputs.site.pue + step)
    assert higher > buy_total(inputs) if uses_energy(inputs) else higher == buy_total(inputs)


@given(options(), decimals("1000", "500000", 0))
def test_higher_purchase_price_raises_buy_cost(inputs, step):
    price = inputs.prices.purchase_cny_per_server
    assert buy_total(inputs, purchase_cny_per_server=price + step) > buy_total(inputs)


@given(options(), decimals("1", "5000", 0))
def test_higher_rack_fee_raises_buy_cost_only(inputs, step):
    fee = inputs.site.rack_fee_cny_per_month
    before, after = evaluate(inputs), evaluate(inputs, Overrides(rack_fee_cny_per_month=fee + step))
    assert after.costs[BUY].horizon_total_cny > before.costs[BUY].horizon_total_cny
    assert after.costs[RENT].horizon_total_cny == before.costs[RENT].horizon_total_cny


@given(options(), decimals("1", "2000", 0))
def test_more_hours_narrow_rentings_advantage(inputs, extra):
    # Above the shortest rental term, each training hour costs a renter a 730th of the
    # monthly rent; when that is more than the hour costs an owner in electricity (always,
    # at real prices), buy − rent shrinks as hours grow.
    owner_per_hour = annual_cost_cny(inputs, BUY, D(1)) - annual_cost_cny(inputs, BUY, D(0))
    renter_per_hour = inputs.prices.rent_cny_per_server_month * inputs.load.server_count / 730
    assume(renter_per_hour >= owner_per_hour)
    hours = max(inputs.assumptions.training_hours_per_year, D(730))
    more = min(hours + extra, D(8760))
    assume(more > hours)
    gap = annual_cost_cny(inputs, BUY, hours) - annual_cost_cny(inputs, RENT, hours)
    gap_more = annual_cost_cny(inputs, BUY, more) - annual_cost_cny(inputs, RENT, more)
    assert gap_more <= gap


@given(options())
def test_break_even_against_cloud_matches_closed_form(inputs):
    # buy(H) = F + m·H, cloud(H) = c·H  ⇒  H* = F / (c − m) when 0 < H* ≤ 8760
    fixed = annual_cost_cny(inputs, BUY, D(0))
    slope_buy = annual_cost_cny(inputs, BUY, D(1)) - fixed
    slope_cloud = (
        inputs.load.gpu_hours_per_run / inputs.load.hours_per_run
    ) * inputs.prices.cloud_cny_per_gpu_hour
    hours = break_even_hours(inputs, CLOUD)
    if slope_cloud <= slope_buy or fixed / (slope_cloud - slope_buy) > 8760:
        assert hours is None
    else:
        assert abs(hours - fixed / (slope_cloud - slope_buy)) < D("1e-6")


@given(options())
def test_break_even_against_rent_matches_closed_form(inputs):
    # above 730 h: buy(H) = F + m·H, rent(H) = r·H/730 with r = rent per month for all servers
    # (below 730 h the rent is one month's; the break-even is the last crossing)
    fixed = annual_cost_cny(inputs, BUY, D(0))
    slope_buy = annual_cost_cny(inputs, BUY, D(1)) - fixed
    per_hour = inputs.prices.rent_cny_per_server_month * inputs.load.server_count / D(730)
    assume(per_hour > slope_buy)
    expected = fixed / (per_hour - slope_buy)
    assume(D(730) < expected <= D(8760))
    assert abs(break_even_hours(inputs, RENT) - expected) < D("1e-6")


@given(options(), decimals("5000", "100000", 0))
def test_dearer_rent_lowers_the_break_even(inputs, step):
    cheaper = break_even_hours(inputs, RENT)
    rent = inputs.prices.rent_cny_per_server_month + step
    dearer = break_even_hours(
        replace(inputs, prices=replace(inputs.prices, rent_cny_per_server_month=rent)), RENT
    )
    if cheaper is not None:
        assert dearer is not None and dearer <= cheaper


@given(options(), decimals("0.01", "1"))
def test_dearer_electricity_raises_the_break_even(inputs, step):
    before = break_even_hours(inputs, CLOUD)
    site = replace(inputs.site, tariff_cny_per_kwh=inputs.site.tariff_cny_per_kwh + step)
    after = break_even_hours(replace(inputs, site=site), CLOUD)
    if after is not None:
        assert before is not None and after >= before


@given(options())
def test_payback_is_upfront_over_monthly_saving(inputs):
    result = evaluate(inputs)
    buy, cloud = result.costs[BUY], result.costs[CLOUD]
    saving = (cloud.running_total_cny_per_year - buy.running_total_cny_per_year) / 12
    months = result.payback[CLOUD].months
    if saving <= 0:
        assert months is None
    else:
        assert abs(months - buy.upfront_cny / saving) < D("1e-9")


@settings(max_examples=50)
@given(options(), st.integers(1, 10))
def test_series_shape(inputs, years):
    result = evaluate(inputs, Overrides(horizon_years=years))
    series = result.monthly
    assert len(series.months) == years * 12 + 1
    for mode, values in series.cumulative_cny.items():
        assert len(values) == years * 12 + 1
        assert values[0] == round(result.costs[mode].upfront_cny, 2)
        assert all(a <= b for a, b in zip(values, values[1:], strict=False))
        assert all(v >= 0 for v in values)


@given(options(), st.sampled_from([RENT, CLOUD]))
def test_payback_hours_give_a_payback_within_the_horizon(inputs, against):
    # at the hours returned, the payback is the horizon (36 months) or less; just below, more
    hours = hours_for_payback(inputs, against, D(36))
    if hours is None:
        at_full = evaluate(inputs, Overrides(training_hours_per_year=D(8760)))
        months = at_full.payback[against].months
        assert months is None or months > 36
        return
    at = evaluate(inputs, Overrides(training_hours_per_year=hours)).payback[against].months
    assert at is not None and at <= D("36.000001")
    if hours > 1:
        below = evaluate(inputs, Overrides(training_hours_per_year=hours - 1)).payback[against]
        assert below.months is None or below.months > 36


@given(options())
def test_no_negative_costs(inputs):
    for mode in (BUY, RENT, CLOUD):
        cost = mode_cost(inputs, mode)
        assert all(v >= 0 for v in cost.running_cny_per_year.values())
        assert cost.horizon_total_cny >= 0
    assert racks_needed(inputs) >= 1


@given(options(), decimals("0.1", "1.5"), decimals("1.0", "2.0"), decimals("0", "20000", 0))
def test_site_difference_parts_add_up(inputs, tariff, pue, fee):
    other = replace(
        inputs.site,
        key="o",
        name="Other",
        tariff_cny_per_kwh=tariff,
        pue=pue,
        rack_fee_cny_per_month=fee,
    )
    diff = compare_sites([inputs, replace(inputs, site=other)]).differences[0]
    assert sum(diff.parts_cny.values()) == diff.total_cny
    assert abs(diff.parts_cny["other"]) < D("1e-12")
    if uses_energy(inputs) and tariff > inputs.site.tariff_cny_per_kwh:
        assert diff.parts_cny["tariff"] > 0
    if uses_energy(inputs) and pue < inputs.site.pue:
        assert diff.parts_cny["pue"] < 0
