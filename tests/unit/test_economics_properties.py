"""Economics properties over random inputs: lines reconcile, every lever moves the right way."""

from dataclasses import replace
from decimal import Decimal as D

from hypothesis import given
from hypothesis import strategies as st

from advisor.domain.economics import (
    BUY,
    CLOUD,
    RENT,
    EconomicsInputs,
    Prices,
    ServerLoad,
    Site,
    evaluate,
    round_cny,
)
from advisor.domain.economics.compare import payback_month
from advisor.domain.economics.costs import mode_cost
from advisor.domain.economics.inputs import Assumptions


def decimals(low, high, places=2):
    return st.decimals(min_value=D(low), max_value=D(high), places=places)


@st.composite
def usages(draw):
    if draw(st.booleans()):
        return Assumptions(rent_min_months=D(draw(st.integers(1, 12))))
    return Assumptions(
        usage="programme",
        runs_per_year=D(draw(st.integers(1, 24))),
        horizon_years=draw(st.integers(1, 6)),
        rent_min_months=D(draw(st.integers(1, 6))),
        transfer_gb_per_run=draw(decimals("0", "5000", 0)),
    )


@st.composite
def options(draw):
    full_kw = draw(decimals("0.5", "15", 1))
    load = ServerLoad(
        server_count=draw(st.integers(1, 16)),
        gpus_per_server=draw(st.sampled_from([1, 2, 4, 8])),
        power_full_kw=full_kw,
        power_idle_kw=(full_kw * draw(decimals("0", "0.6"))).quantize(D("0.001")),
        rack_units=draw(st.integers(1, 10)),
        gpu_hours_per_run=draw(decimals("1", "20000", 0)),
        hours_per_run=draw(decimals("0.01", "300", 2)),
    )
    site = Site(
        key="s",
        name="Site",
        tariff_cny_per_kwh=draw(decimals("0.1", "1.5", 4)),
        pue=draw(decimals("1.0", "2.0")),
        rack_fee_cny_per_month=draw(decimals("0", "20000", 0)),
        rack_power_limit_kw=draw(decimals("5", "60", 0)),
        demand_charge_cny_per_kw_month=draw(decimals("0", "40", 1)),
    )
    prices = Prices(
        purchase_cny_per_server=draw(decimals("100000", "4000000", 0)),
        rent_cny_per_server_month=draw(decimals("5000", "200000", 0)),
        cloud_cny_per_gpu_hour=draw(decimals("1", "80")),
    )
    return EconomicsInputs(load=load, site=site, prices=prices, assumptions=draw(usages()))


@given(options())
def test_every_total_is_its_lines_to_the_fen(inputs):
    for mode in (BUY, RENT, CLOUD):
        cost = mode_cost(inputs, mode)
        lines = [*cost.lines, *([cost.resale] if cost.resale else [])]
        for line in lines:
            expected = round_cny(line.unit_price_cny * line.quantity)
            assert line.amount_cny == (-expected if line.item == "resale" else expected)
        assert cost.cash_out_cny == sum(line.amount_cny for line in cost.lines)
        assert cost.net_of_resale_cny == sum(line.amount_cny for line in lines)
        assert cost.net_of_resale_cny <= cost.cash_out_cny


@given(options(), st.integers(2, 8))
def test_cloud_scales_with_the_cards_billed(inputs, factor):
    bigger = replace(
        inputs, load=replace(inputs.load, gpus_per_server=inputs.load.gpus_per_server * factor)
    )
    small, large = (mode_cost(i, CLOUD).lines[0] for i in (inputs, bigger))
    assert large.quantity >= small.quantity * factor - D("0.01") * factor
    assert large.amount_cny >= small.amount_cny


@given(options(), decimals("0.01", "1", 2))
def test_a_dearer_tariff_never_makes_buying_cheaper(inputs, extra):
    dearer = replace(
        inputs, site=replace(inputs.site, tariff_cny_per_kwh=inputs.site.tariff_cny_per_kwh + extra)
    )
    assert mode_cost(dearer, BUY).cash_out_cny >= mode_cost(inputs, BUY).cash_out_cny
    assert mode_cost(dearer, RENT).cash_out_cny == mode_cost(inputs, RENT).cash_out_cny


@given(options())
def test_more_runs_never_cost_less(inputs):
    a = inputs.assumptions
    if not a.is_programme:
        return
    more = replace(inputs, assumptions=replace(a, runs_per_year=a.runs_per_year + 1))
    for mode in (BUY, RENT, CLOUD):
        assert mode_cost(more, mode).cash_out_cny >= mode_cost(inputs, mode).cash_out_cny


@given(options())
def test_payback_statement_is_one_and_consistent(inputs):
    result = evaluate(inputs)
    if not inputs.assumptions.is_programme:
        assert result.payback is None
        return
    month = payback_month(result.costs[BUY], result.costs[RENT])
    assert result.payback.month == month
    if month is not None:
        horizon = inputs.assumptions.horizon_years * 12
        assert 1 <= month <= horizon
        hours = result.payback.break_even_hours_per_year
        assert hours is not None and hours <= 8760
    statements = [m for m in result.messages if "pay" in m.template and "back" in m.template]
    assert len(statements) == 1


@given(options())
def test_the_chart_ends_at_the_cash_out(inputs):
    result = evaluate(inputs)
    for mode, values in result.monthly.cumulative_cny.items():
        assert values[-1] == result.costs[mode].cash_out_cny
        assert all(a <= b for a, b in zip(values, values[1:], strict=False))
