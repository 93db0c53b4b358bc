"""What the economics service prices: the servers, the site, the prices, the assumptions.

Pure Python (no Django). Money is ``Decimal`` in CNY; units are in the field names
(``_cny``, ``_kw``, ``_h``, ``_pct``, ``_gb``). Every figure that reaches a result has a
:class:`Provenance` (quote, example, official tariff, assumption, the buyer's own figure …)
and the buyer can replace any of them with :class:`Overrides`.

The sizing service builds :class:`ServerLoad`; the economics service does not import it.
Selectors (``advisor/catalog/economics.py``) turn catalog rows into :class:`Site` and
:class:`Prices`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields, replace
from datetime import date
from decimal import Decimal

from advisor.domain.i18n import N_, Message

HOURS_PER_YEAR = Decimal(8760)
MONTHS_PER_YEAR = 12
HOURS_PER_MONTH = HOURS_PER_YEAR / MONTHS_PER_YEAR  # 730 h, the average calendar month
# Idle draw of a GPU server as a share of its maximum power, when neither the sizing nor
# the catalog gives one. Assumption (no public measurement in the research): idle GPUs,
# CPUs, fans and NICs of an 8-GPU HGX server; the buyer overrides it.
IDLE_SHARE_OF_MAX = Decimal("0.30")

# Where a figure comes from. The presentation shows the label next to every figure.
BASIS_QUOTE = "quote"
BASIS_EXAMPLE = "example"
BASIS_OFFICIAL = "official"
BASIS_MARKET = "market"
BASIS_CLAIM = "claim"
BASIS_CATALOG = "catalog"
BASIS_SIZING = "sizing"
BASIS_ASSUMPTION = "assumption"
BASIS_OVERRIDE = "override"

BASIS_LABELS = {
    BASIS_QUOTE: N_("vendor quote"),
    BASIS_EXAMPLE: N_("example price, not a quote"),
    BASIS_OFFICIAL: N_("official figure"),
    BASIS_MARKET: N_("market report, not a quote"),
    BASIS_CLAIM: N_("claim by the vendor or a local government, verify"),
    BASIS_CATALOG: N_("catalog figure"),
    BASIS_SIZING: N_("from the sizing"),
    BASIS_ASSUMPTION: N_("assumption, enter your own figure"),
    BASIS_OVERRIDE: N_("your figure"),
}


class EconomicsInputError(ValueError):
    """An input the model cannot price (negative money, zero hours per run …)."""


def to_decimal(value) -> Decimal:
    """``value`` as a Decimal; floats go through ``str`` so 0.1 stays 0.1."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        return Decimal(str(value))
    return Decimal(value)


# Where a site figure was found (docs/decisions/0029-tariffs-price-fallback.md): the site's own
# figure, its province's (policy zone's), a national figure, or the buyer's.
LEVEL_SITE = "site"
LEVEL_ZONE = "zone"
LEVEL_NATIONAL = "national"
LEVEL_ASSUMED = "assumed"
# A server price taken from a server with the same accelerator and count (no offer of its own).
LEVEL_EQUIVALENT = "equivalent"


@dataclass(frozen=True)
class Provenance:
    basis: str = BASIS_ASSUMPTION
    source: str = ""
    as_of: date | None = None
    # Confidence flag of the published figure (vendors.choices.SourceFlag values: OFF, OFF-T,
    # PRESS, MKT, VEND, DER, LOW) and the fallback level it was found at; "" when not applicable.
    flag: str = ""
    level: str = ""
    # Kind of the strongest source stating the figure (advisor/domain/sources.py); "" if none.
    kind: str = ""

    def __post_init__(self):
        if self.basis not in BASIS_LABELS:
            raise EconomicsInputError(f"unknown basis {self.basis!r}")


@dataclass(frozen=True)
class ServerLoad:
    """The hardware and the job, as the sizing service reports them (per server)."""

    server_count: int
    gpus_per_server: int
    power_full_kw: Decimal
    power_idle_kw: Decimal
    rack_units: int
    gpu_hours_per_run: Decimal
    hours_per_run: Decimal


@dataclass(frozen=True)
class Site:
    """A data center's cost figures.

    ``tariff_cny_per_kwh`` is what one kWh of facility energy costs: the grid tariff when
    the data center passes power through, or the data center's own power price. When the
    data center's price is per kWh of IT energy with cooling already included, set
    ``price_includes_pue`` and the PUE is not applied again. When power is included in the
    rack fee (``power_in_rack_fee``), electricity costs nothing extra and the rack's power
    limit is the power the fee includes. ``demand_charge_cny_per_kw_month`` is the basic
    (capacity) charge of a two-part tariff passed through on the servers' peak facility kW.
    """

    key: str
    name: str
    tariff_cny_per_kwh: Decimal
    pue: Decimal
    rack_fee_cny_per_month: Decimal
    rack_power_limit_kw: Decimal
    rack_units_per_rack: int = 42
    price_includes_pue: bool = False
    power_in_rack_fee: bool = False
    demand_charge_cny_per_kw_month: Decimal = Decimal(0)
    name_zh: str | None = None  # the site's name as a Chinese reader reads it, when catalogued


@dataclass(frozen=True)
class Prices:
    """Prices of one server model from one vendor; ``None`` when a mode is not offered."""

    purchase_cny_per_server: Decimal | None = None
    rent_cny_per_server_month: Decimal | None = None
    cloud_cny_per_gpu_hour: Decimal | None = None


# How the buyer uses the capacity (docs/economics.md): one job, or a programme of runs a year.
USAGE_ONCE = "once"
USAGE_PROGRAMME = "programme"
USAGES = (USAGE_ONCE, USAGE_PROGRAMME)


@dataclass(frozen=True)
class Assumptions:
    """The buyer's usage and the figures no catalog row holds. Defaults: see DEFAULT_PROVENANCE.

    ``usage`` is one job (``once``: priced per run) or a ``programme`` over ``horizon_years``,
    stated as ``runs_per_year`` (equal work for every option) or, in documents written before
    runs were asked, as ``training_hours_per_year`` (hours each option's capacity trains).
    ``resale_pct`` is what the servers fetch at the end, in per cent of the purchase price;
    ``None``: the rule of thumb of :func:`advisor.domain.economics.costs.default_resale_pct`.
    """

    usage: str = USAGE_ONCE
    runs_per_year: Decimal | None = None
    training_hours_per_year: Decimal | None = None
    horizon_years: int = 3
    training_power_pct: Decimal = Decimal(100)
    maintenance_pct_per_year: Decimal = Decimal(5)
    resale_pct: Decimal | None = None
    rent_min_months: Decimal = Decimal(1)
    transfer_gb_per_run: Decimal = Decimal(0)
    transfer_cny_per_gb: Decimal = Decimal("0.26")

    @property
    def is_programme(self) -> bool:
        return self.usage == USAGE_PROGRAMME


_FROM_SIZING = Provenance(BASIS_SIZING)
_ASSUMED = Provenance()
# Why each default in Assumptions is what it is (shown with every result).
DEFAULT_PROVENANCE: dict[str, Provenance] = {
    "usage": Provenance(BASIS_ASSUMPTION, N_("One job unless you say it is a programme of runs.")),
    "runs_per_year": Provenance(BASIS_ASSUMPTION, N_("Your programme: runs a year.")),
    "training_hours_per_year": Provenance(
        BASIS_ASSUMPTION, N_("Your programme: training hours a year on each option's capacity.")
    ),
    "horizon_years": Provenance(
        BASIS_ASSUMPTION, N_("Three years, the payback window buyers usually ask about.")
    ),
    "training_power_pct": Provenance(
        BASIS_ASSUMPTION,
        N_(
            "Fine-tuning runs long and continuous at full load; measured draw is usually below "
            "the rated maximum, so this leans against buying."
        ),
    ),
    "maintenance_pct_per_year": Provenance(
        BASIS_ASSUMPTION,
        N_(
            "Rule of thumb, no public price list: a support contract, spares and remote hands. "
            "Enter the vendor's service quote."
        ),
    ),
    "resale_pct": Provenance(
        BASIS_ASSUMPTION,
        N_(
            "Rule of thumb from used-market figures: an H100 system in its third year resold at "
            "about 45 % of a new one (Silicon Data, as reported in the press, 2025); SpotWire's "
            "eBay-based index gives 0.46 at three years, falling about 23 % a year "
            "(https://www.spotwire.ai/data/valuator_data.json, 2026-06-04). Taken at the "
            "conservative end for China and domestic accelerators, where no figure is published: "
            "30 % at three years, 23 % less for each further year, at most 65 % within the first "
            "year. Enter a dealer's buy-back offer."
        ),
        date(2026, 6, 4),
        flag="LOW",
    ),
    "rent_min_months": Provenance(
        BASIS_ASSUMPTION,
        N_(
            "Rent is paid in whole months; the shortest term of cloud subscriptions and GPU "
            "rental platforms is one month (e.g. Inspur Cloud, Huawei Cloud); ask the vendor."
        ),
    ),
    "transfer_gb_per_run": Provenance(
        BASIS_ASSUMPTION, N_("No data moved to or from a public cloud unless you enter it.")
    ),
    "transfer_cny_per_gb": Provenance(
        BASIS_MARKET,
        N_(
            "Qiniu Kodo internet egress list price, 0–100 TB, mainland China "
            "(https://www.qiniu.com/prices/kodo, transcribed 2026-10-07); check your provider."
        ),
        date(2026, 10, 7),
    ),
}


@dataclass(frozen=True)
class EconomicsInputs:
    load: ServerLoad
    site: Site
    prices: Prices
    assumptions: Assumptions = field(default_factory=Assumptions)
    # Provenance of the load, site and price figures, keyed like Overrides' fields;
    # assumptions fall back to DEFAULT_PROVENANCE.
    provenance: dict[str, Provenance] = field(default_factory=dict)

    def __post_init__(self):
        validate(self)

    def provenance_of(self, key: str) -> Provenance:
        if key in self.provenance:
            return self.provenance[key]
        if _GROUP_OF.get(key) == "load":
            return _FROM_SIZING
        return DEFAULT_PROVENANCE.get(key, _ASSUMED)


@dataclass(frozen=True)
class Overrides:
    """The buyer's own figures; ``None`` keeps the default."""

    runs_per_year: Decimal | None = None
    training_hours_per_year: Decimal | None = None
    horizon_years: int | None = None
    training_power_pct: Decimal | None = None
    maintenance_pct_per_year: Decimal | None = None
    resale_pct: Decimal | None = None
    rent_min_months: Decimal | None = None
    transfer_gb_per_run: Decimal | None = None
    transfer_cny_per_gb: Decimal | None = None
    tariff_cny_per_kwh: Decimal | None = None
    pue: Decimal | None = None
    rack_fee_cny_per_month: Decimal | None = None
    rack_power_limit_kw: Decimal | None = None
    rack_units_per_rack: int | None = None
    demand_charge_cny_per_kw_month: Decimal | None = None
    power_full_kw: Decimal | None = None
    power_idle_kw: Decimal | None = None
    purchase_cny_per_server: Decimal | None = None
    rent_cny_per_server_month: Decimal | None = None
    cloud_cny_per_gpu_hour: Decimal | None = None


_GROUP_OF = {
    **{f.name: "assumptions" for f in fields(Assumptions)},
    "tariff_cny_per_kwh": "site",
    "pue": "site",
    "rack_fee_cny_per_month": "site",
    "rack_power_limit_kw": "site",
    "rack_units_per_rack": "site",
    "demand_charge_cny_per_kw_month": "site",
    "power_full_kw": "load",
    "power_idle_kw": "load",
    "server_count": "load",
    "hours_per_run": "load",
    "gpu_hours_per_run": "load",
    "gpus_per_server": "load",
    "purchase_cny_per_server": "prices",
    "rent_cny_per_server_month": "prices",
    "cloud_cny_per_gpu_hour": "prices",
}
_INTEGER_FIELDS = {"horizon_years", "rack_units_per_rack"}
_NO_OVERRIDES = Overrides()


def apply_overrides(inputs: EconomicsInputs, overrides: Overrides) -> EconomicsInputs:
    """A copy of ``inputs`` with the buyer's figures in place, each marked as theirs."""
    if overrides == _NO_OVERRIDES:
        return inputs  # no figure of the buyer's (most options): the same inputs, unread
    changes: dict[str, dict] = {"load": {}, "site": {}, "prices": {}, "assumptions": {}}
    provenance = dict(inputs.provenance)
    for item in fields(Overrides):
        value = getattr(overrides, item.name)
        if value is None:
            continue
        value = int(value) if item.name in _INTEGER_FIELDS else to_decimal(value)
        changes[_GROUP_OF[item.name]][item.name] = value
        provenance[item.name] = Provenance(BASIS_OVERRIDE)
    if not any(changes.values()):
        return inputs  # no figure of the buyer's: the same inputs
    return replace(
        inputs,
        load=replace(inputs.load, **changes["load"]),
        site=replace(inputs.site, **changes["site"]),
        prices=replace(inputs.prices, **changes["prices"]),
        assumptions=replace(inputs.assumptions, **changes["assumptions"]),
        provenance=provenance,
    )


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise EconomicsInputError(message)


def validate(inputs: EconomicsInputs) -> None:
    """Raise :class:`EconomicsInputError` naming the first figure the model cannot price.

    The parts are checked in order (load, site, prices, assumptions), so the first bad figure
    is named; every time (~1 µs a part: 0.6 ms of the 295-option recommendation)."""
    _check_load(inputs.load)
    _check_site(inputs.site)
    _check_prices(inputs.prices)
    _check_assumptions(inputs.assumptions)


def _check_load(load: ServerLoad) -> None:
    _require(load.server_count >= 1, "server_count must be at least 1")
    _require(load.gpus_per_server >= 1, "gpus_per_server must be at least 1")
    _require(load.power_full_kw > 0, "power_full_kw must be positive")
    _require(0 <= load.power_idle_kw <= load.power_full_kw, "power_idle_kw must be 0..full")
    _require(load.rack_units >= 1, "rack_units must be at least 1")
    _require(load.hours_per_run > 0, "hours_per_run must be positive")
    _require(load.gpu_hours_per_run > 0, "gpu_hours_per_run must be positive")


def _check_site(site: Site) -> None:
    _require(site.tariff_cny_per_kwh >= 0, "tariff_cny_per_kwh must not be negative")
    _require(site.pue >= 1, "pue must be at least 1")
    _require(site.rack_fee_cny_per_month >= 0, "rack_fee_cny_per_month must not be negative")
    _require(site.rack_power_limit_kw > 0, "rack_power_limit_kw must be positive")
    _require(site.rack_units_per_rack >= 1, "rack_units_per_rack must be at least 1")
    _require(
        site.demand_charge_cny_per_kw_month >= 0,
        "demand_charge_cny_per_kw_month must not be negative",
    )


def _check_prices(prices: Prices) -> None:
    for name in ("purchase_cny_per_server", "rent_cny_per_server_month", "cloud_cny_per_gpu_hour"):
        value = getattr(prices, name)
        _require(value is None or value >= 0, f"{name} must not be negative")


def _check_assumptions(a: Assumptions) -> None:
    _require(a.usage in USAGES, f"usage must be one of {USAGES}")
    if a.is_programme:
        _require(
            (a.runs_per_year is None) != (a.training_hours_per_year is None),
            "a programme needs runs_per_year or training_hours_per_year (one of them)",
        )
    _require(a.runs_per_year is None or a.runs_per_year > 0, "runs_per_year must be positive")
    hours = a.training_hours_per_year
    _require(hours is None or 0 < hours <= HOURS_PER_YEAR, "training_hours_per_year 1..8760")
    _require(1 <= a.horizon_years <= 15, "horizon_years must be 1..15")
    _require(0 <= a.training_power_pct <= 100, "training_power_pct must be 0..100")
    _require(0 <= a.maintenance_pct_per_year <= 100, "maintenance_pct_per_year must be 0..100")
    _require(a.resale_pct is None or 0 <= a.resale_pct <= 100, "resale_pct must be 0..100")
    _require(
        1 <= a.rent_min_months <= 120 and a.rent_min_months == int(a.rent_min_months),
        "rent_min_months must be a whole number of months, 1..120",
    )
    _require(a.transfer_gb_per_run >= 0, "transfer_gb_per_run must not be negative")
    _require(a.transfer_cny_per_gb >= 0, "transfer_cny_per_gb must not be negative")


# --- The assumptions listed with every result ------------------------------------------

_TEMPLATES = {
    "server_count": N_("Servers or instances: {value}"),
    "hours_per_run": N_("Hours per training run: {value} h"),
    "runs_per_year": N_("Training runs a year: {value}"),
    "training_hours_per_year": N_("Training hours a year on this capacity: {value} h"),
    # One job has no horizon of years: it is priced for the months it holds the servers.
    "usage": N_(
        "Period: this one job, priced for the whole months it holds the servers (no horizon "
        "of years)"
    ),
    "horizon_years": N_("Horizon (years): {value}"),
    "training_power_pct": N_("Power drawn while training: {value} per cent of full load"),
    "power_full_kw": N_("Full-load power per server: {value} kW"),
    "power_idle_kw": N_("Idle power per server (outside training hours): {value} kW"),
    "tariff_cny_per_kwh": N_("Electricity price: {value} CNY/kWh"),
    "pue": N_("PUE of the data center: {value}"),
    "rack_fee_cny_per_month": N_("Rack fee: {value} CNY per rack per month"),
    "rack_power_limit_kw": N_("Power limit per rack: {value} kW"),
    "rack_units_per_rack": N_("Usable space per rack: {value} U"),
    "demand_charge_cny_per_kw_month": N_("Demand (basic) charge: {value} CNY per kW per month"),
    "maintenance_pct_per_year": N_("Maintenance: {value} per cent of the purchase price per year"),
    "resale_pct": N_("Resale value at the end: {value} per cent of the purchase price"),
    "purchase_cny_per_server": N_("Purchase price: {value} CNY per server"),
    "rent_cny_per_server_month": N_("Rent: {value} CNY per server per month"),
    "cloud_cny_per_gpu_hour": N_("Cloud price: {value} CNY per GPU-hour"),
    "rent_min_months": N_("Shortest rental term (months): {value}"),
    "transfer_gb_per_run": N_(
        "Data moved between a public cloud and the servers: {value} GB per run"
    ),
    "transfer_cny_per_gb": N_("Data transfer price: {value} CNY/GB"),
}


@dataclass(frozen=True)
class Assumption:
    """One figure the result rests on, with where it comes from."""

    key: str
    value: Decimal | int | bool | None
    message: Message
    basis: str
    basis_label: str
    source: str
    as_of: date | None
    flag: str = ""  # the published figure's confidence flag (Provenance.flag)
    level: str = ""  # where it was found: site, zone, national, assumed (Provenance.level)
    kind: str = ""  # the kind of its strongest source (Provenance.kind)


def _value_of(inputs: EconomicsInputs, key: str):
    group = getattr(inputs, _GROUP_OF[key])
    return getattr(group, key)


def _plain(value):
    """A figure as the buyer would type it: 0.35, 1.2, 2000 (no exponent, no trailing zeros)."""
    if isinstance(value, Decimal):
        text = format(value.normalize(), "f")
        return text
    return value


def assumption_records(inputs: EconomicsInputs) -> list[Assumption]:
    """Every figure behind a result, in a stable order, with its provenance."""
    records = (assumption_record(inputs, key) for key in _TEMPLATES)
    return [record for record in records if record is not None]


def assumption_record(inputs: EconomicsInputs, key: str) -> Assumption | None:
    """The figure ``key`` behind a result with its provenance; None when it has no value. One
    job's period is the job itself (``usage``); a programme's is its horizon of years."""
    if key in _PERIOD_KEYS and (key == "horizon_years") != inputs.assumptions.is_programme:
        return None
    value = _value_of(inputs, key)
    if value is None:
        return None
    provenance = inputs.provenance_of(key)
    # Options at one site share its figures, options of one server its prices: a record of a
    # plain figure with a plain source is made once (records are immutable).
    if type(value) in _PLAIN_FIGURES and isinstance(provenance.source, str):
        return _cached_record(key, value, type(value), str(value), provenance)
    return _record(key, value, provenance)  # a structured figure or a worded source


_PLAIN_FIGURES = frozenset({Decimal, int, bool, float, str})
_PERIOD_KEYS = frozenset({"usage", "horizon_years"})


@functools.lru_cache(maxsize=10_000)
def _cached_record(key: str, value, kind: type, text: str, provenance: Provenance) -> Assumption:
    """``_record``, cached: ``kind`` and ``text`` (the value's type and ``str``) join the key so
    that equal values written apart (``1``, ``1.0``, ``Decimal("1.00")``) get their own record."""
    return _record(key, value, provenance)


def _record(key: str, value, provenance: Provenance) -> Assumption:
    return Assumption(
        key=key,
        value=value,
        message=Message(_TEMPLATES[key], {"value": _plain(value)}),
        basis=provenance.basis,
        basis_label=BASIS_LABELS[provenance.basis],
        source=provenance.source,
        as_of=provenance.as_of,
        flag=provenance.flag,
        level=provenance.level,
        kind=provenance.kind,
    )
