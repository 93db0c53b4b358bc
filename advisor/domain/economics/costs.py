"""Cost of one option in each mode: buy and host, rent dedicated servers, or cloud GPU-hours.

Every function is a small formula on :class:`EconomicsInputs`; amounts are exact ``Decimal``
CNY (no rounding here: :mod:`advisor.domain.economics.money` rounds for display, the
result rounds its summary figures). ``hours`` is training hours per year.

Buy and host, per year:
  electricity = servers × (full kW × training % × hours + idle kW × (8760 − hours))
                × PUE × price per kWh        (PUE left out when the price already includes it)
  demand      = servers × full kW × training % × PUE × basic charge per kW-month × 12
                (two-part tariffs passed through; 0 when none is given)
  colocation  = racks × rack fee × 12; racks from the rack's power limit and rack units
  maintenance = purchase × maintenance % (per year)
  capital     = purchase up front, minus the book value left at the end of the horizon
                (straight line over the depreciation years down to the salvage %)
Rent: rent per server-month × servers × months rented (hours ÷ 730, at least the shortest
      term, at most 12): the rent is taken to include hosting and power.
Cloud: GPU-hours per run × runs (hours ÷ hours per run) × price per GPU-hour.
Buy and rent move data to and from the public cloud when the buyer keeps part of the work
there (M2): GB per run × runs × price per GB. Pure cloud does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal

from advisor.domain.economics.inputs import (
    HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    MONTHS_PER_YEAR,
    EconomicsInputs,
)

BUY = "buy"
RENT = "rent"
CLOUD = "cloud"
MODES = (BUY, RENT, CLOUD)

HUNDRED = Decimal(100)


# --- Racks -------------------------------------------------------------------------------


def servers_per_rack_by_power(inputs: EconomicsInputs) -> int:
    ratio = inputs.site.rack_power_limit_kw / inputs.load.power_full_kw
    return int(ratio.to_integral_value(rounding=ROUND_FLOOR))


def servers_per_rack_by_space(inputs: EconomicsInputs) -> int:
    return inputs.site.rack_units_per_rack // inputs.load.rack_units


def servers_per_rack(inputs: EconomicsInputs) -> int:
    """How many servers one rack takes; at least 1 (a server over the limit needs its own rack)."""
    return max(1, min(servers_per_rack_by_power(inputs), servers_per_rack_by_space(inputs)))


def server_exceeds_rack(inputs: EconomicsInputs) -> bool:
    return servers_per_rack_by_power(inputs) < 1 or servers_per_rack_by_space(inputs) < 1


def racks_needed(inputs: EconomicsInputs) -> int:
    per_rack = servers_per_rack(inputs)
    return -(-inputs.load.server_count // per_rack)  # ceiling division


# --- Energy ------------------------------------------------------------------------------


def training_kw_per_server(inputs: EconomicsInputs) -> Decimal:
    return inputs.load.power_full_kw * inputs.assumptions.training_power_pct / HUNDRED


def it_energy_kwh_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    """IT energy of all servers: training draw for ``hours``, idle draw for the rest of the year."""
    load = inputs.load
    per_server = training_kw_per_server(inputs) * hours + load.power_idle_kw * (
        HOURS_PER_YEAR - hours
    )
    return load.server_count * per_server


def effective_pue(inputs: EconomicsInputs) -> Decimal:
    """The PUE applied to IT energy: 1 when the site's power price already includes cooling."""
    site = inputs.site
    return Decimal(1) if site.price_includes_pue or site.power_in_rack_fee else site.pue


def effective_tariff_cny_per_kwh(inputs: EconomicsInputs) -> Decimal:
    """The price of a kWh: nothing extra when power is included in the rack fee."""
    return Decimal(0) if inputs.site.power_in_rack_fee else inputs.site.tariff_cny_per_kwh


def electricity_cny_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    kwh = it_energy_kwh_per_year(inputs, hours)
    return kwh * effective_pue(inputs) * effective_tariff_cny_per_kwh(inputs)


def demand_charge_cny_per_year(inputs: EconomicsInputs) -> Decimal:
    """Basic charge on the peak facility kW (training draw × PUE), passed-through power only."""
    site = inputs.site
    if site.price_includes_pue or site.power_in_rack_fee:
        return Decimal(0)
    peak_kw = inputs.load.server_count * training_kw_per_server(inputs) * site.pue
    return peak_kw * site.demand_charge_cny_per_kw_month * MONTHS_PER_YEAR


# --- Buy and host ------------------------------------------------------------------------


def purchase_cny(inputs: EconomicsInputs) -> Decimal:
    return inputs.prices.purchase_cny_per_server * inputs.load.server_count


def colocation_cny_per_year(inputs: EconomicsInputs) -> Decimal:
    return racks_needed(inputs) * inputs.site.rack_fee_cny_per_month * MONTHS_PER_YEAR


def maintenance_cny_per_year(inputs: EconomicsInputs) -> Decimal:
    return purchase_cny(inputs) * inputs.assumptions.maintenance_pct_per_year / HUNDRED


def book_value_cny(inputs: EconomicsInputs, years: Decimal) -> Decimal:
    """Straight-line book value after ``years``: down to the salvage % at the end of depreciation."""
    a = inputs.assumptions
    cost = purchase_cny(inputs)
    salvage = cost * a.salvage_pct / HUNDRED
    used = min(Decimal(years), Decimal(a.depreciation_years))
    return cost - (cost - salvage) * used / a.depreciation_years


def residual_value_cny(inputs: EconomicsInputs) -> Decimal:
    """What the servers are still worth at the end of the horizon (credited to buying)."""
    return book_value_cny(inputs, Decimal(inputs.assumptions.horizon_years))


# --- Usage -------------------------------------------------------------------------------


def runs_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    return hours / inputs.load.hours_per_run


def transfer_cny_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    a = inputs.assumptions
    return runs_per_year(inputs, hours) * a.transfer_gb_per_run * a.transfer_cny_per_gb


def rented_months_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    months = hours / HOURS_PER_MONTH
    return min(Decimal(MONTHS_PER_YEAR), max(inputs.assumptions.rent_min_months, months))


def rent_cny_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    per_month = inputs.prices.rent_cny_per_server_month * inputs.load.server_count
    return per_month * rented_months_per_year(inputs, hours)


def cloud_gpu_hours_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    return runs_per_year(inputs, hours) * inputs.load.gpu_hours_per_run


def cloud_cny_per_year(inputs: EconomicsInputs, hours: Decimal) -> Decimal:
    return cloud_gpu_hours_per_year(inputs, hours) * inputs.prices.cloud_cny_per_gpu_hour


# --- One mode, priced --------------------------------------------------------------------


@dataclass(frozen=True)
class ModeCost:
    """A mode priced for given hours per year over the horizon (exact Decimal CNY).

    ``running_cny_per_year`` holds the yearly components by name (electricity,
    colocation, maintenance, rent, cloud_compute, data_transfer).
    """

    mode: str
    hours_per_year: Decimal
    horizon_years: int
    upfront_cny: Decimal
    running_cny_per_year: dict[str, Decimal]
    residual_value_cny: Decimal
    runs_per_year: Decimal

    @property
    def running_total_cny_per_year(self) -> Decimal:
        return sum(self.running_cny_per_year.values(), Decimal(0))

    @property
    def running_cny_per_month(self) -> Decimal:
        return self.running_total_cny_per_year / MONTHS_PER_YEAR

    @property
    def cash_total_cny(self) -> Decimal:
        """Everything paid over the horizon, without the residual value."""
        return self.upfront_cny + self.running_total_cny_per_year * self.horizon_years

    @property
    def horizon_total_cny(self) -> Decimal:
        """Cost of the horizon net of the residual value of what is owned at its end."""
        return self.cash_total_cny - self.residual_value_cny

    @property
    def cny_per_year(self) -> Decimal:
        return self.horizon_total_cny / self.horizon_years

    @property
    def cny_per_run(self) -> Decimal | None:
        if self.runs_per_year == 0:
            return None
        return self.cny_per_year / self.runs_per_year


def mode_is_priced(inputs: EconomicsInputs, mode: str) -> bool:
    price = {
        BUY: inputs.prices.purchase_cny_per_server,
        RENT: inputs.prices.rent_cny_per_server_month,
        CLOUD: inputs.prices.cloud_cny_per_gpu_hour,
    }[mode]
    return price is not None


def buy_cost(inputs: EconomicsInputs, hours: Decimal) -> ModeCost:
    return ModeCost(
        mode=BUY,
        hours_per_year=hours,
        horizon_years=inputs.assumptions.horizon_years,
        upfront_cny=purchase_cny(inputs),
        running_cny_per_year={
            "electricity": electricity_cny_per_year(inputs, hours),
            "demand_charge": demand_charge_cny_per_year(inputs),
            "colocation": colocation_cny_per_year(inputs),
            "maintenance": maintenance_cny_per_year(inputs),
            "data_transfer": transfer_cny_per_year(inputs, hours),
        },
        residual_value_cny=residual_value_cny(inputs),
        runs_per_year=runs_per_year(inputs, hours),
    )


def rent_cost(inputs: EconomicsInputs, hours: Decimal) -> ModeCost:
    return ModeCost(
        mode=RENT,
        hours_per_year=hours,
        horizon_years=inputs.assumptions.horizon_years,
        upfront_cny=Decimal(0),
        running_cny_per_year={
            "rent": rent_cny_per_year(inputs, hours),
            "data_transfer": transfer_cny_per_year(inputs, hours),
        },
        residual_value_cny=Decimal(0),
        runs_per_year=runs_per_year(inputs, hours),
    )


def cloud_cost(inputs: EconomicsInputs, hours: Decimal) -> ModeCost:
    return ModeCost(
        mode=CLOUD,
        hours_per_year=hours,
        horizon_years=inputs.assumptions.horizon_years,
        upfront_cny=Decimal(0),
        running_cny_per_year={"cloud_compute": cloud_cny_per_year(inputs, hours)},
        residual_value_cny=Decimal(0),
        runs_per_year=runs_per_year(inputs, hours),
    )


_COSTERS = {BUY: buy_cost, RENT: rent_cost, CLOUD: cloud_cost}


def mode_cost(inputs: EconomicsInputs, mode: str, hours: Decimal | None = None) -> ModeCost | None:
    """``mode`` priced at ``hours`` per year (default: the buyer's); ``None`` when not offered."""
    if not mode_is_priced(inputs, mode):
        return None
    if hours is None:
        hours = inputs.assumptions.training_hours_per_year
    return _COSTERS[mode](inputs, Decimal(hours))


def annual_cost_cny(inputs: EconomicsInputs, mode: str, hours: Decimal) -> Decimal:
    """Average cost per year over the horizon (net of residual value) at ``hours`` per year."""
    return mode_cost(inputs, mode, hours).cny_per_year
