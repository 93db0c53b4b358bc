"""What one option costs in one mode, as lines a finance director can recompute.

Every cost is a list of :class:`CostLine`: a unit price × a quantity = an amount. Quantities
are rounded to what the line shows (whole servers, racks, months and kWh; card-hours to the
hundredth) and every amount is rounded half up to the fen, so each line multiplies out exactly
and the totals are the sums of the lines (docs/economics.md).

Two figures, never one ambiguous one: **cash out** (everything paid over the period) and
**net of resale** (cash out minus what the servers fetch at its end, an explicit assumption).

The period is one job (``usage = "once"``) or a programme of runs over ``horizon_years``:

- cloud: card-hours = cards billed × hours per run × runs, at the price per card-hour;
- rent: whole servers × whole contract months. One job rents for its run, at least the
  shortest term; a programme rents each run's months (at least the shortest term each), at
  most twelve a year. Rent includes hosting and power;
- buy and host: the purchase, electricity for the training hours and the idle rest of the
  months hosted (× PUE), the demand charge and the rack fees for those months, maintenance,
  and the resale at the end. Hosting is at least one month, a programme the whole horizon;
- data transfer to and from a public cloud when buying or renting (GB per run × runs).

Pure Python, exact ``Decimal`` CNY.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal

from advisor.domain.cache import PerObjects
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
FEN = Decimal("0.01")

# Line items (words in advisor/presentation/labels.py, "cost") and their units ("unit").
PURCHASE = "purchase"
ELECTRICITY = "electricity"
DEMAND_CHARGE = "demand_charge"
COLOCATION = "colocation"
MAINTENANCE = "maintenance"
RENT_LINE = "rent"
CLOUD_COMPUTE = "cloud_compute"
DATA_TRANSFER = "data_transfer"
RESALE = "resale"
ONE_OFF = frozenset({PURCHASE})  # paid at the start; every other line is spread over the months


def fen(amount: Decimal) -> Decimal:
    return amount.quantize(FEN, rounding=ROUND_HALF_UP)


def _whole(value: Decimal) -> Decimal:
    return value.quantize(Decimal(1), rounding=ROUND_HALF_UP)


def _up(value: Decimal, places: int = 0) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_CEILING)


@dataclass(frozen=True)
class CostLine:
    """``unit_price_cny`` × ``quantity`` = ``amount_cny`` (to the fen); resale is negative."""

    item: str
    unit_price_cny: Decimal
    quantity: Decimal
    unit: str
    amount_cny: Decimal


def line(item: str, unit_price, quantity, unit: str, sign: int = 1) -> CostLine:
    unit_price, quantity = Decimal(unit_price), Decimal(quantity)
    return CostLine(item, unit_price, quantity, unit, sign * fen(unit_price * quantity))


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
    return -(-inputs.load.server_count // servers_per_rack(inputs))


# --- The period --------------------------------------------------------------------------


def runs_per_year(inputs: EconomicsInputs) -> Decimal:
    """A programme's runs a year; a programme stated in hours: hours ÷ hours per run."""
    a = inputs.assumptions
    if a.runs_per_year is not None:
        return a.runs_per_year
    return a.training_hours_per_year / inputs.load.hours_per_run


def total_runs(inputs: EconomicsInputs) -> Decimal:
    a = inputs.assumptions
    return runs_per_year(inputs) * a.horizon_years if a.is_programme else Decimal(1)


def training_hours(inputs: EconomicsInputs) -> Decimal:
    """Wall-clock training hours over the period (one run, or every run of the programme)."""
    a = inputs.assumptions
    if a.is_programme and a.training_hours_per_year is not None and a.runs_per_year is None:
        return a.training_hours_per_year * a.horizon_years
    return inputs.load.hours_per_run * total_runs(inputs)


def hours_needed_per_year(inputs: EconomicsInputs) -> Decimal:
    """Training hours a programme needs each year on this capacity (0 for one job)."""
    a = inputs.assumptions
    return training_hours(inputs) / a.horizon_years if a.is_programme else Decimal(0)


def fits_in_a_year(inputs: EconomicsInputs) -> bool:
    """Whether the programme's runs fit in the hours of a year on this capacity."""
    return hours_needed_per_year(inputs) <= HOURS_PER_YEAR


def months_per_run(inputs: EconomicsInputs) -> int:
    """Whole months one run holds the servers: its hours, at least the shortest rental term."""
    run_months = math.ceil(inputs.load.hours_per_run / HOURS_PER_MONTH)
    return max(int(inputs.assumptions.rent_min_months), run_months, 1)


def rent_months(inputs: EconomicsInputs) -> int:
    """Server-months rented per server over the period."""
    a = inputs.assumptions
    if not a.is_programme:
        return months_per_run(inputs)
    per_year = math.ceil(runs_per_year(inputs) * months_per_run(inputs))
    return min(MONTHS_PER_YEAR, per_year) * a.horizon_years


def hosted_months(inputs: EconomicsInputs) -> int:
    """Months owned servers are hosted (rack fees, idle power): the horizon, or the one job."""
    a = inputs.assumptions
    if a.is_programme:
        return a.horizon_years * MONTHS_PER_YEAR
    return max(1, math.ceil(inputs.load.hours_per_run / HOURS_PER_MONTH))


def resale_pct(inputs: EconomicsInputs) -> Decimal:
    a = inputs.assumptions
    if a.resale_pct is not None:
        return a.resale_pct
    return default_resale_pct(Decimal(hosted_months(inputs)) / MONTHS_PER_YEAR)


# Rule of thumb for the resale value (its sources: inputs.DEFAULT_PROVENANCE["resale_pct"]).
RESALE_AT_THREE_YEARS = Decimal("0.30")
RESALE_KEPT_PER_YEAR = Decimal("0.77")
RESALE_MAX = Decimal("0.65")


@functools.lru_cache(maxsize=256)
def default_resale_pct(years: Decimal) -> Decimal:
    """Per cent of the purchase price a used server fetches after ``years``: 30 % at three
    years, 23 % less for each further year (and more for each year less), at most 65 %."""
    fraction = float(RESALE_AT_THREE_YEARS) * float(RESALE_KEPT_PER_YEAR) ** float(years - 3)
    return _whole(Decimal(str(min(float(RESALE_MAX), fraction))) * HUNDRED)


# --- Lines -------------------------------------------------------------------------------


def _transfer(inputs: EconomicsInputs) -> list[CostLine]:
    a = inputs.assumptions
    gigabytes = _whole(a.transfer_gb_per_run * total_runs(inputs))
    if gigabytes <= 0:
        return []
    return [line(DATA_TRANSFER, a.transfer_cny_per_gb, gigabytes, "gb")]


def card_hours(inputs: EconomicsInputs) -> Decimal:
    """Card-hours billed: every card of the instances, for every training hour."""
    load = inputs.load
    return _up(load.server_count * load.gpus_per_server * training_hours(inputs), 2)


def cloud_lines(inputs: EconomicsInputs) -> list[CostLine]:
    return [
        line(CLOUD_COMPUTE, inputs.prices.cloud_cny_per_gpu_hour, card_hours(inputs), "card_hour")
    ]


def rent_lines(inputs: EconomicsInputs) -> list[CostLine]:
    quantity = inputs.load.server_count * rent_months(inputs)
    rent = line(RENT_LINE, inputs.prices.rent_cny_per_server_month, quantity, "server_month")
    return [rent, *_transfer(inputs)]


def training_kw_per_server(inputs: EconomicsInputs) -> Decimal:
    return inputs.load.power_full_kw * inputs.assumptions.training_power_pct / HUNDRED


def effective_pue(inputs: EconomicsInputs) -> Decimal:
    """The PUE applied to IT energy: 1 when the site's power price already includes cooling."""
    site = inputs.site
    return Decimal(1) if site.price_includes_pue or site.power_in_rack_fee else site.pue


def effective_tariff_cny_per_kwh(inputs: EconomicsInputs) -> Decimal:
    """The price of a kWh: nothing extra when power is included in the rack fee."""
    return Decimal(0) if inputs.site.power_in_rack_fee else inputs.site.tariff_cny_per_kwh


def it_energy_kwh(inputs: EconomicsInputs) -> Decimal:
    """IT energy of all servers over the hosted months: training draw, then idle."""
    load = inputs.load
    hours = training_hours(inputs)
    idle = max(Decimal(0), hosted_months(inputs) * HOURS_PER_MONTH - hours)
    return load.server_count * (training_kw_per_server(inputs) * hours + load.power_idle_kw * idle)


def facility_kwh(inputs: EconomicsInputs) -> Decimal:
    return _whole(it_energy_kwh(inputs) * effective_pue(inputs))


def peak_facility_kw(inputs: EconomicsInputs) -> Decimal:
    return inputs.load.server_count * training_kw_per_server(inputs) * effective_pue(inputs)


def buy_lines(inputs: EconomicsInputs) -> list[CostLine]:
    """Purchase and what owning costs over the hosted months (without the resale)."""
    site, load, a = inputs.site, inputs.load, inputs.assumptions
    months = hosted_months(inputs)
    price = inputs.prices.purchase_cny_per_server
    lines = [line(PURCHASE, price, load.server_count, "server")]
    tariff = effective_tariff_cny_per_kwh(inputs)
    if tariff > 0:
        lines.append(line(ELECTRICITY, tariff, facility_kwh(inputs), "kwh"))
    demand = site.demand_charge_cny_per_kw_month
    if demand > 0 and not (site.price_includes_pue or site.power_in_rack_fee):
        kw_months = fen(peak_facility_kw(inputs)) * months
        lines.append(line(DEMAND_CHARGE, demand, kw_months, "kw_month"))
    if site.rack_fee_cny_per_month > 0:
        rack_months = racks_needed(inputs) * months
        lines.append(line(COLOCATION, site.rack_fee_cny_per_month, rack_months, "rack_month"))
    if a.maintenance_pct_per_year > 0:
        lines += maintenance_lines(price * load.server_count * a.maintenance_pct_per_year, months)
    return [*lines, *_transfer(inputs)]


def maintenance_lines(per_year_pct_cny: Decimal, months: int) -> list[CostLine]:
    """Maintenance by the year for the whole years held, by the month for the months left
    (``per_year_pct_cny``: the price × servers × per cent a year). A year's fee is a whole
    number of fen when the price is, so 36 months at 5 % of 1,600,000 read 80,000.00 × 3 =
    240,000.00, not a month's rounded 6,666.67 × 36 = 240,000.12."""
    per_year = per_year_pct_cny / HUNDRED
    years, rest = divmod(months, MONTHS_PER_YEAR)
    lines = []
    if years:
        lines.append(line(MAINTENANCE, fen(per_year), years, "year"))
    if rest:
        lines.append(line(MAINTENANCE, fen(per_year / MONTHS_PER_YEAR), rest, "month"))
    return lines


def resale_line(inputs: EconomicsInputs) -> CostLine:
    per_server = fen(inputs.prices.purchase_cny_per_server * resale_pct(inputs) / HUNDRED)
    return line(RESALE, per_server, inputs.load.server_count, "server", sign=-1)


# --- One mode, priced --------------------------------------------------------------------


@dataclass(frozen=True)
class ModeCost:
    """One mode priced over the period: its cash lines and, for owned servers, the resale."""

    mode: str
    usage: str
    horizon_years: int
    runs: Decimal  # runs in the period (1 for one job)
    months: int  # months the servers are held (hosted or rented); 0 for cloud
    lines: tuple[CostLine, ...]
    resale: CostLine | None = None

    # The two totals are read many times per option (ranking, reasons, records): each is
    # summed once (the lines are fixed: the dataclass is frozen).
    @functools.cached_property
    def cash_out_cny(self) -> Decimal:
        """Everything paid over the period: the sum of the lines."""
        return sum((item.amount_cny for item in self.lines), Decimal(0))

    @functools.cached_property
    def net_of_resale_cny(self) -> Decimal:
        """Cash out minus the resale of what is owned at the end."""
        return self.cash_out_cny + (self.resale.amount_cny if self.resale else Decimal(0))

    @property
    def one_off_cny(self) -> Decimal:
        return sum((i.amount_cny for i in self.lines if i.item in ONE_OFF), Decimal(0))

    @property
    def recurring_cny(self) -> Decimal:
        return self.cash_out_cny - self.one_off_cny

    @property
    def per_run_cny(self) -> Decimal:
        """Net cost per run (the programme's net ÷ its runs; one job: its net)."""
        return fen(self.net_of_resale_cny / self.runs) if self.runs else self.net_of_resale_cny

    @property
    def per_year_cny(self) -> Decimal | None:
        if self.usage != "programme":
            return None
        return fen(self.net_of_resale_cny / self.horizon_years)


def mode_price(inputs: EconomicsInputs, mode: str):
    """The price ``mode`` is priced at (per server, server-month or GPU-hour); None: not offered."""
    prices = inputs.prices
    if mode == BUY:
        return prices.purchase_cny_per_server
    if mode == RENT:
        return prices.rent_cny_per_server_month
    return prices.cloud_cny_per_gpu_hour


def mode_is_priced(inputs: EconomicsInputs, mode: str) -> bool:
    return mode_price(inputs, mode) is not None


def mode_cost(inputs: EconomicsInputs, mode: str) -> ModeCost | None:
    """``mode`` priced over the buyer's period; ``None`` when the mode has no price."""
    if not mode_is_priced(inputs, mode):
        return None
    a = inputs.assumptions
    lines = {BUY: buy_lines, RENT: rent_lines, CLOUD: cloud_lines}[mode](inputs)
    months = {BUY: hosted_months, RENT: rent_months, CLOUD: lambda _: 0}[mode](inputs)
    return ModeCost(
        mode=mode,
        usage=a.usage,
        horizon_years=a.horizon_years,
        runs=total_runs(inputs),
        months=months,
        lines=tuple(lines),
        resale=resale_line(inputs) if mode == BUY else None,
    )


class ModeCostCache:
    """``mode_cost(inputs, mode)``, made once per server load, site (buying only), assumptions
    and price, for one recommendation (it holds one and passes it down, as ``Sizings``; decisions
    0067 and 0087): a recommendation prices ~150 server × site pairs from a few loads (servers
    with the same load share one object), one set of assumptions and a few prices, and renting
    does not read the site at all.

    The key determines the value: ``mode_cost`` reads the load, the assumptions, the site (only
    ``buy_lines``) and, of the prices, only this mode's, nothing else of the inputs (not their
    provenance). The parts are kept by identity (``PerObjects``: frozen, kept alive, checked
    with ``is``), the price by its ``repr``, which tells its type and exponent apart
    (``Decimal("5")`` and ``Decimal("5.0")`` are equal but print apart). Shared values are
    frozen (``ModeCost``, its lines), so options may share them."""

    def __init__(self):
        self._made = PerObjects(limit=4096)

    def mode_cost(self, inputs: EconomicsInputs, mode: str) -> ModeCost | None:
        price = mode_price(inputs, mode)
        if price is None:
            return None
        parts = (inputs.load, inputs.assumptions)
        if mode == BUY:
            parts = (*parts, inputs.site)
        return self._made.get(parts, lambda: mode_cost(inputs, mode), (mode, repr(price)))
