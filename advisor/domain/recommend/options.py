"""Enumerate procurement options for a job and rank them.

An option is a server model (with its accelerator) × a data center (with its hosting vendor
and policy zone). For each server model the job is sized once: the fewest whole servers that
hold it, then more servers (up to ``max_servers``) when the deadline needs them. Each sized
hardware choice is then checked against every site (compliance) and priced there
(economics). Options that do not qualify stay in the list with their reasons.

Pure Python: the caller (``advisor/catalog/candidates.py``) turns catalog rows into the
candidate dataclasses below.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields, replace
from datetime import date
from decimal import Decimal

from advisor.domain.cache import PerObject
from advisor.domain.compliance.base import Severity
from advisor.domain.compliance.engine import (
    CLOUD_RULES,
    OWN_ROOM_RULES,
    ComplianceReport,
    SharedFindings,
    Verdict,
    evaluate,
    own_room,
    rule_name,
    verdict_of,
)
from advisor.domain.compliance.facts import (
    AvailabilityFacts,
    BuyerRequirement,
    CloudFacts,
    ComplianceInput,
    DataCenterFacts,
    OptionFacts,
    PolicyZoneFacts,
    VendorFacts,
)
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS, Parameters
from advisor.domain.economics import compare as economics
from advisor.domain.economics.confidence import Confidence, weakest
from advisor.domain.economics.costs import ModeCostCache
from advisor.domain.economics.inputs import (
    BASIS_EXAMPLE,
    IDLE_SHARE_OF_MAX,
    Assumptions,
    EconomicsInputs,
    Overrides,
    Prices,
    Provenance,
    ServerLoad,
    Site,
)
from advisor.domain.economics.tariff import EffectivePrice
from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.i18n import N_, Message, Nn_
from advisor.domain.questionnaire.declared import DeclaredFact
from advisor.domain.scenario import Scenario
from advisor.domain.sizing.estimate import SizingResult, size
from advisor.domain.sizing.parallelism import PlacementSearch

# W1: fine-tuning runs on one multi-GPU server or a small cluster, not a pre-training fleet.
DEFAULT_MAX_SERVERS = 8
MODES = ("buy", "rent", "cloud")
RENT_MODE = "rent"
# An option's mode: how the capacity is obtained. "own" is buying for the buyer's own room
# (priced as buying, without a colocation fee); the economics knows buy, rent and cloud.
OWN_MODE = "own"
OPTION_MODES = ("buy", "own", "rent", "cloud")


def economics_mode(mode: str) -> str:
    return "buy" if mode == OWN_MODE else mode


# The key of the buyer's own room, which stands in for a data center (``site.room``).
OWN_ROOM_KEY = "own-room"
DOMESTIC_STACKS = ("cann",)  # Huawei Ascend; extend when other domestic stacks are catalogued


@dataclass(frozen=True)
class HardwareCandidate:
    accelerator: AcceleratorSpec
    server: ServerSpec
    family: str  # maker and architecture, e.g. "NVIDIA Hopper" (for display)
    domestic: bool
    availability: AvailabilityFacts | None = None
    prices: Prices = Prices()
    price_provenance: dict[str, Provenance] = field(default_factory=dict)
    # The software the vendor declares the server ships with (questionnaire); None: the
    # buyer's requirement from the procurement applies.
    buyer: BuyerRequirement | None = None
    # GPU-hours of this server model sold by cloud providers (each its own option).
    clouds: tuple[CloudCandidate, ...] = ()


@dataclass(frozen=True)
class CloudCandidate:
    """A cloud offer: GPU-hours from a provider in a region, sold in instances of some sizes.

    Not a data center: site rules do not apply; the cloud checks do (data residency, the
    provider's certificates, the accelerator's export-control status).
    """

    key: str  # the offer's key
    provider: str
    price_cny_per_gpu_hour: Decimal
    provenance: Provenance = Provenance(BASIS_EXAMPLE)
    region: str | None = None
    mainland_china: bool | None = None  # None: the catalog does not say where it runs
    provider_zh: str | None = None  # the names a Chinese reader reads (None: as above)
    region_zh: str | None = None
    vendor: VendorFacts = VendorFacts()  # the provider's certificates, when catalogued
    instance_gpus: tuple[int, ...] = ()  # sizes sold (GPUs per instance); empty: whole servers
    buyer: BuyerRequirement | None = None  # the instance image's software, when declared


@dataclass(frozen=True)
class Place:
    """A place's name and its Chinese name (``local_name`` picks one for the reader)."""

    name: str
    name_zh: str | None = None


@dataclass(frozen=True)
class Capacity:
    """How an option obtains its GPUs: how many instances (or servers) of what size."""

    how: str  # "buy" / "rent" (whole servers at a data center) or "cloud"
    instances: int
    gpus_per_instance: int
    gpus_used: int  # what the training layout uses
    provider: str | None = None
    region: str | None = None

    @property
    def gpus(self) -> int:
        return self.instances * self.gpus_per_instance

    @property
    def idle_gpus(self) -> int:
        return max(0, self.gpus - self.gpus_used)


@dataclass(frozen=True)
class SiteCandidate:
    data_center: DataCenterFacts
    vendor: VendorFacts
    zone: PolicyZoneFacts
    # Figures the catalog lacks are named in ``missing_costs`` (Overrides field names) and
    # hold a placeholder in ``costs``; the option is priced only when the buyer supplies them.
    costs: Site
    cost_provenance: dict[str, Provenance] = field(default_factory=dict)
    missing_costs: tuple[str, ...] = ()
    # Offers that depend on the site (rent and cloud at this data center, its vendor's price).
    prices_by_server: dict[str, Prices] = field(default_factory=dict)
    price_provenance_by_server: dict[str, dict[str, Provenance]] = field(default_factory=dict)
    # The time-of-use table behind the electricity price, when one is used (for display).
    tariff_breakdown: EffectivePrice | None = None

    def prices_for(self, hardware: HardwareCandidate) -> tuple[Prices, dict[str, Provenance]]:
        key = hardware.server.key
        if key in self.prices_by_server:
            return self.prices_by_server[key], self.price_provenance_by_server.get(key, {})
        return hardware.prices, hardware.price_provenance


@dataclass(frozen=True)
class Procurement:
    modes: tuple[str, ...] = MODES  # which of buy / rent / cloud the buyer considers
    budget_cny: Decimal | None = None  # ceiling on the horizon total of the chosen mode
    deadline_hours: float | None = None  # wall-clock the training must finish within
    include_accelerators: tuple[str, ...] = ()  # accelerator keys; empty: every accelerator
    exclude_accelerators: tuple[str, ...] = ()
    domestic_only: bool = False
    # Domestic accelerators preferred, not required: among options equal in qualifying and
    # cost, a domestic one ranks first (decision 0101).
    prefer_domestic: bool = False
    required_rules: tuple[str, ...] = ()  # rule ids that must pass, e.g. "VENDOR-MLPS"
    assumptions: Assumptions = Assumptions()
    buyer: BuyerRequirement = BuyerRequirement()
    max_servers: int = DEFAULT_MAX_SERVERS
    overrides: Overrides = Overrides()  # the buyer's own figures (tariff, prices, PUE …)

    def uncovered(self, site: SiteCandidate) -> tuple[str, ...]:
        """The site's missing cost figures that the buyer has not supplied either."""
        return tuple(n for n in site.missing_costs if getattr(self.overrides, n, None) is None)


@dataclass(frozen=True)
class Option:
    hardware: HardwareCandidate
    site: SiteCandidate
    sizing: SizingResult
    compliance: ComplianceReport
    economics: economics.EconomicsResult | None
    mode: str | None  # the cheapest of the buyer's modes at their hours per year
    cost_cny: Decimal | None  # that mode's horizon total
    reasons: tuple[Message, ...]  # why the option does not qualify (empty: it does)
    capacity: Capacity | None = None  # None: whole servers at the site (see ``obtained``)
    cloud: CloudCandidate | None = None  # set for a cloud option (no data center)
    # What each reason is about, in the order of ``reasons`` (``fit``, ``instance``,
    # ``domestic``, ``preferred``, ``excluded``, ``deadline``, ``veto:<rule>``,
    # ``required:<rule>``, ``time``, ``usage``, ``budget``): the results page counts options
    # by them ("which requirement removes how many").
    reason_codes: tuple[str, ...] = ()

    @property
    def meets_requirements(self) -> bool:
        """It fits the job and passes every requirement that can be checked without a price."""
        return not self.reasons

    @property
    def qualifies(self) -> bool:
        """It meets every requirement and is priced: it is compared and ranked."""
        return not self.reasons and self.cost_cny is not None

    @property
    def unpriced(self) -> bool:
        """It meets every requirement but has no price: it cannot be compared (nor checked
        against a budget), so it is neither ranked nor counted as qualifying."""
        return not self.reasons and self.cost_cny is None

    @property
    def cost(self):
        """The :class:`ModeCost` of the option's mode (its lines and totals); None: unpriced."""
        if self.economics is None or self.mode is None:
            return None
        return self.economics.costs.get(economics_mode(self.mode))

    @property
    def cash_out_cny(self) -> Decimal | None:
        cost = self.cost
        return None if cost is None else cost.cash_out_cny

    @property
    def is_own_room(self) -> bool:
        return self.site.data_center.key == OWN_ROOM_KEY and self.cloud is None

    @property
    def obtained(self) -> Capacity:
        """The capacity this option obtains; whole servers unless it says otherwise."""
        if self.capacity is not None:
            return self.capacity
        return Capacity(
            how=self.mode or "buy",
            instances=self.sizing.servers,
            gpus_per_instance=self.hardware.server.gpu_count,
            gpus_used=self.sizing.layout.gpus,
        )

    @property
    def is_cloud(self) -> bool:
        return self.cloud is not None

    @property
    def place(self) -> Place:
        """Where the capacity is, named in both languages: the data center, or the cloud
        provider and its region."""
        if self.cloud is not None:
            cloud = self.cloud
            english = " · ".join(p for p in (cloud.provider, cloud.region) if p)
            chinese = " · ".join(
                p
                for p in (cloud.provider_zh or cloud.provider, cloud.region_zh or cloud.region)
                if p
            )
            return Place(english, chinese)
        center = self.site.data_center
        return Place(center.name or "", getattr(center, "name_zh", None) or None)

    @property
    def place_name(self) -> str:
        """:attr:`place` in English (the CLI's table and JSON)."""
        return self.place.name

    # Read many times by the rankings' sort keys and the records: worked out once per option
    # (its fields are fixed: the dataclass is frozen; the stored form holds fields only).
    @functools.cached_property
    def time_to_train_hours(self) -> float | None:
        """Hours a run takes, to the 0.01 h every page, cost line and brief states."""
        if not self.sizing.time or self.sizing.time.time_to_train_hours is None:
            return None
        return float(run_hours(self.sizing.time.time_to_train_hours))

    @functools.cached_property
    def key(self) -> str:
        if self.cloud is not None:
            return f"{self.hardware.server.key}@cloud:{self.cloud.key}"
        base = f"{self.hardware.server.key}@{self.site.data_center.key}"
        return f"{base}:{RENT_MODE}" if self.mode == RENT_MODE else base

    @property
    def confidence(self) -> Confidence | None:
        """The weakest figure the cost rests on ("indicative: province tariff, press report")."""
        if self.economics is None or self.mode is None:
            return None
        return weakest(self.economics.inputs.provenance, economics_mode(self.mode))


@dataclass(frozen=True)
class Recommendation:
    options: tuple[Option, ...]  # best first (the "recommended" order)
    rankings: dict[str, tuple[Option, ...]]  # named rankings over qualifying options

    @property
    def unpriced(self) -> tuple[Option, ...]:
        """The options that meet every requirement but have no price, in display order: they
        follow the qualifying ones and are counted apart ("9 more unpriced")."""
        return tuple(o for o in self.options if o.unpriced)


@dataclass(frozen=True)
class RecommendRun:
    """A recommendation with what it was computed from: the job, the procurement, the day
    and the vendor's declared facts (the stored result that pages, CLI and briefs read)."""

    scenario: Scenario
    procurement: Procurement
    recommendation: Recommendation
    today: date
    declared: tuple[DeclaredFact, ...] = ()  # the document's ``declared`` section, checked


RANKING_LABELS = {
    "recommended": N_("Recommended: qualifying options, cheapest first"),
    "fastest_within_budget": N_("Fastest within budget"),
    "cheapest_meeting_deadline": N_("Cheapest that meets the deadline"),
    "best_compliance": N_("Best compliance"),
}


# --- Sizing one hardware choice --------------------------------------------------------------


class Sizings:
    """The sizings of one scenario, each made once per accelerator, GPU count and server: the
    hosted option and the cloud offers of one hardware ask for the same ones, and every sizing
    shares one placement search (its layouts and memory per GPU count). Accelerators and servers
    are told apart by identity and kept alive here; it lives for one recommendation."""

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.search = PlacementSearch(scenario)
        self._made: dict[tuple, SizingResult] = {}
        self._kept: list = []

    def size(self, accelerator: AcceleratorSpec, gpus: int, server: ServerSpec) -> SizingResult:
        key = (id(accelerator), gpus, id(server))
        result = self._made.get(key)
        if result is None:
            result = size(self.scenario, accelerator, gpus, server, search=self.search)
            self._made[key] = result
            self._kept.append((accelerator, server))
        return result


def _servers_needed(search: PlacementSearch, hardware: HardwareCandidate, max_servers: int):
    per_server = hardware.server.gpu_count
    fewest = search.fewest_gpus(
        hardware.accelerator, server=hardware.server, max_gpus=max_servers * per_server
    )
    return None if fewest is None else math.ceil(fewest.layout.gpus / per_server)


def size_hardware(
    scenario: Scenario,
    hardware: HardwareCandidate,
    procurement: Procurement,
    sizings: Sizings | None = None,
) -> SizingResult:
    """The whole-server sizing: fewest servers that hold the job, more if the deadline needs.
    ``sizings``: the recommendation's (``Sizings`` of this scenario), else one is made."""
    sizings = sizings or Sizings(scenario)
    accelerator, server = hardware.accelerator, hardware.server
    per_server = server.gpu_count
    servers = _servers_needed(sizings.search, hardware, procurement.max_servers)
    if servers is None:  # does not fit even on the largest cluster considered: show why
        return sizings.size(accelerator, per_server, server)
    result = sizings.size(accelerator, servers * per_server, server)
    while _misses_deadline(result, procurement) and servers < procurement.max_servers:
        servers += 1
        faster = sizings.size(accelerator, servers * per_server, server)
        if not faster.fits:
            break
        result = faster
    return result


def _misses_deadline(result: SizingResult, procurement: Procurement) -> bool:
    hours = result.time.time_to_train_hours if result.time else None
    return (
        procurement.deadline_hours is not None
        and hours is not None
        and (hours > procurement.deadline_hours)
    )


# --- Compliance and economics at one site ------------------------------------------------------


def _pcie_penalty_pct(result: SizingResult) -> float | None:
    time = result.time
    if time is None or time.communication is None or not time.step_time_s:
        return None
    exposed = time.communication.data_parallel_exposed_s + time.communication.tensor_parallel_s
    return 100.0 * exposed / time.step_time_s


def option_facts(result: SizingResult) -> OptionFacts:
    power, storage, network = result.power, result.storage, result.network
    topology = result.server.topology if result.server else None
    return OptionFacts(
        gpu_count=result.layout.gpus,
        server_count=result.servers,
        gpus_per_server=result.gpus_per_server,
        server_power_max_kw=power.max_kw_per_server if power else None,
        server_power_typical_kw=power.typical_kw_per_server if power else None,
        servers_per_rack=_servers_per_rack(result),
        server_weight_kg=result.server.weight_kg if result.server else None,
        sharded_across_gpus=min(result.layout.gpus, result.gpus_per_server) > 1,
        multi_node=network.multi_node if network else result.servers > 1,
        pcie_communication_penalty_pct=_pcie_penalty_pct(result)
        if topology == "pcie-switch"
        else None,
        nvme_needed_tb=storage.local_nvme_needed_tb,
        nvme_read_needed_gbs=storage.feed_read_gbs,
    )


def _servers_per_rack(result: SizingResult) -> int | None:
    """The sizing's rack packing; a one-server option fills one rack with that server.

    Without it the rack's power and weight stay unknown for every option (the sizing states
    no packing unless asked for a rack budget), and no answer of the vendor could settle the
    rack-power, cooling and floor-load findings.
    """
    if result.power is not None and result.power.servers_per_rack:
        return result.power.servers_per_rack
    return 1 if result.servers == 1 else None


_UNSET = object()  # a keyword not given (None is a value: no load known)


def server_load(result: SizingResult, pricing: PricingCache | None = None) -> ServerLoad | None:
    """The sizing as the economics reads it; with the recommendation's ``pricing``, one object
    for every server with the same figures (``PricingCache.one_load``), so what is priced per
    load is priced once for them."""
    time, power, server = result.time, result.power, result.server
    if time is None or time.time_to_train_hours is None or power is None or server is None:
        return None
    load = ServerLoad(
        server_count=result.servers,
        gpus_per_server=result.gpus_per_server,
        power_full_kw=Decimal(str(round(power.max_kw_per_server, 3))),
        power_idle_kw=Decimal(str(round(_idle_kw(result), 3))),
        rack_units=server.rack_units or UNKNOWN_SERVER_RACK_UNITS,
        gpu_hours_per_run=Decimal(str(round(time.gpu_hours, 3))),
        hours_per_run=run_hours(time.time_to_train_hours),
    )
    return pricing.one_load(load) if pricing is not None else load


_LOAD_FIELDS = tuple(item.name for item in fields(ServerLoad))


@functools.lru_cache(maxsize=4096)
def run_hours(hours: float) -> Decimal:
    """A run's wall-clock hours as every page, cost line and brief states them (0.01 h); kept
    per value (the rankings read each option's hours several times)."""
    return max(Decimal("0.01"), Decimal(str(round(hours, 2))))


# Height assumed for a server whose rack units the catalog lacks: the 8U of an NVIDIA DGX
# H100/H200 (DGX H100/H200 user guide), the tallest common 8-GPU chassis, so rack space is not
# under-counted.
UNKNOWN_SERVER_RACK_UNITS = 8


def _idle_kw(result: SizingResult) -> float:
    return result.power.max_kw_per_server * float(IDLE_SHARE_OF_MAX)


def one_server_per_rack(costs: Site, power_full_kw: Decimal) -> Site:
    """``costs`` with a rack's power limit set to one server's draw (the site states none)."""
    return replace(costs, rack_power_limit_kw=power_full_kw)


class PricingCache:
    """What the options of one recommendation share when they are priced: it lives for one
    recommendation and is passed down, as ``Sizings`` is (decision 0087).

    One copy of a site's figures per draw when the site states no power per rack (cached by the
    figures' identity, checked so a reused identity is never mistaken, and the draw as written:
    ``Decimal("12.0")`` and ``Decimal("12")`` are equal but print apart), so every server of
    that draw at the site prices with the same copy; one load per figures (``one_load``); and
    the mode costs (``ModeCostCache``), which those shared copies let options share."""

    def __init__(self):
        self.mode_costs = ModeCostCache()
        self._rack_limited = PerObject(limit=4096)
        self._loads: dict[tuple, ServerLoad] = {}

    def one_load(self, load: ServerLoad) -> ServerLoad:
        """The first load made with ``load``'s figures (a recommendation's 14 servers have 7
        loads), cached by each field's ``repr``, which determines the field: its type and
        value, and a Decimal's exponent (``Decimal("1.0")`` and ``Decimal("1.00")`` are equal
        but print apart), so the cached load reads the same as ``load`` everywhere."""
        key = tuple(repr(getattr(load, name)) for name in _LOAD_FIELDS)
        return self._loads.setdefault(key, load)

    def one_server_per_rack(self, costs: Site, power_full_kw: Decimal) -> Site:
        return self._rack_limited.get(
            costs, lambda site: one_server_per_rack(site, power_full_kw), str(power_full_kw)
        )


def price(
    result: SizingResult,
    hardware: HardwareCandidate,
    site: SiteCandidate,
    procurement,
    *,
    load: ServerLoad | None = _UNSET,
    pricing: PricingCache | None = None,
) -> economics.EconomicsResult | None:
    """Buying and renting ``hardware`` at ``site`` (the modes asked for that have a price).
    ``load``: ``server_load(result)``, when the caller has it (once per hardware); ``pricing``:
    the recommendation's ``PricingCache``, else one is made."""
    pricing = pricing or PricingCache()
    if load is _UNSET:
        load = server_load(result, pricing)
    if load is None:
        return None
    costs = site.costs
    uncovered = procurement.uncovered(site)
    if "rack_power_limit_kw" in uncovered:  # no power per rack known: one server per rack
        costs = pricing.one_server_per_rack(costs, load.power_full_kw)
        uncovered = tuple(name for name in uncovered if name != "rack_power_limit_kw")
    if uncovered:  # not even a national figure: the option stays, unpriced (never disqualified)
        return None
    prices, price_provenance = site.prices_for(hardware)
    offered = Prices(
        purchase_cny_per_server=prices.purchase_cny_per_server
        if "buy" in procurement.modes
        else None,
        rent_cny_per_server_month=prices.rent_cny_per_server_month
        if "rent" in procurement.modes and site.data_center.key != OWN_ROOM_KEY
        else None,
    )
    if offered == Prices():
        return None
    inputs = EconomicsInputs(
        load=load,
        site=costs,
        prices=offered,
        assumptions=procurement.assumptions,
        provenance={**site.cost_provenance, **price_provenance},
    )
    return economics.evaluate(inputs, procurement.overrides, cache=pricing.mode_costs)


def _net(result: economics.EconomicsResult | None, mode: str | None) -> Decimal | None:
    if result is None or mode is None:
        return None
    cost = result.costs.get(economics_mode(mode))
    return None if cost is None else cost.net_of_resale_cny


# --- Reasons an option does not qualify ------------------------------------------------------


def _fit_reason(result: SizingResult) -> Message | None:
    if result.fits:
        return None
    return Message(
        N_("does not fit: {need:,.1f} GiB needed per GPU, {have:,.1f} GiB available"),
        {"need": result.memory.total, "have": result.capacity_gib},
    )


def _filter_reasons(hardware: HardwareCandidate, procurement: Procurement) -> list:
    reasons = []
    if procurement.domestic_only and not hardware.domestic:
        reasons.append(("domestic", Message(N_("not a domestic accelerator"))))
    key = hardware.accelerator.key
    if procurement.include_accelerators and key not in procurement.include_accelerators:
        reasons.append(("preferred", Message(N_("accelerator not among your preferred ones"))))
    if key in procurement.exclude_accelerators:
        reasons.append(("excluded", Message(N_("accelerator excluded by you"))))
    return reasons


def _deadline_reason(result: SizingResult, procurement: Procurement) -> Message | None:
    if not _misses_deadline(result, procurement):
        return None
    return Message(
        N_("misses the deadline: {hours:,.0f} h to train, {deadline:,.0f} h allowed"),
        {"hours": result.time.time_to_train_hours, "deadline": procurement.deadline_hours},
    )


def with_required(report: ComplianceReport, procurement: Procurement) -> ComplianceReport:
    """The buyer's required qualifications are veto checks for this assessment."""
    required = set(procurement.required_rules)
    if not required:
        return report
    findings = tuple(
        replace(f, severity=Severity.BLOCKER) if f.rule_id in required else f
        for f in report.findings
    )
    return replace(report, findings=findings, verdict=verdict_of(findings))


def _compliance_reasons(report: ComplianceReport, procurement: Procurement) -> list:
    """The failed veto checks (only a report found not eligible has one) and the required
    qualifications not shown (only when the buyer requires some)."""
    if report.verdict is not Verdict.NOT_ELIGIBLE and not procurement.required_rules:
        return []
    blocked = [f for f in report.findings if f.is_failed_blocker]
    reasons = [
        (
            f"veto:{f.rule_id}",
            Message(N_("fails a veto check: {rule}"), {"rule": rule_name(f.rule_id)}),
        )
        for f in blocked
    ]
    failed = {f.rule_id for f in blocked}
    for finding in report.findings:
        required = finding.rule_id in procurement.required_rules
        if required and finding.rule_id not in failed and str(finding.status) != "pass":
            reasons.append(
                (
                    f"required:{finding.rule_id}",
                    Message(
                        N_("required qualification not shown: {rule}"), {"rule": finding.title}
                    ),
                )
            )
    return reasons


def _budget_reason(cash_out: Decimal | None, procurement: Procurement) -> Message | None:
    """The budget is money to spend: it is held against the cash out, not the net."""
    if procurement.budget_cny is None or cash_out is None or cash_out <= procurement.budget_cny:
        return None
    return Message(
        N_("over budget: {cost:,.0f} CNY to pay against a budget of {budget:,.0f} CNY"),
        {"cost": cash_out, "budget": procurement.budget_cny},
    )


def _usage_reason(result: economics.EconomicsResult | None) -> Message | None:
    if result is None or result.fits_in_a_year:
        return None
    return Message(N_("cannot run the programme: its runs need more hours than a year has"))


def _time_reason(result: SizingResult) -> Message | None:
    if result.time is not None and result.time.tokens_per_s is not None:
        return None
    return Message(
        N_(
            "training time cannot be estimated: the catalog has no dense BF16 peak for "
            "{accelerator}, so the option cannot be priced"
        ),
        {"accelerator": result.accelerator.name},
    )


MISSING_COST_REASONS = {
    "tariff_cny_per_kwh": N_(
        "not priced: the catalog has no electricity price, not even a national one; enter your own"
    ),
    "rack_fee_cny_per_month": N_(
        "not priced: the catalog has no rack fee, not even a national one; enter your own"
    ),
    "rack_power_limit_kw": N_(
        "cannot be priced at this site: the catalog has no power limit per rack; enter your own"
    ),
    "pue": N_("cannot be priced at this site: no PUE is known; enter your own"),
}


def price_notes(option: Option, procurement: Procurement) -> tuple[Message, ...]:
    """Why an option has no cost (not a reason to disqualify it)."""
    if option.cost_cny is not None or _time_reason(option.sizing) is not None:
        return ()
    uncovered = [n for n in procurement.uncovered(option.site) if n != "rack_power_limit_kw"]
    if uncovered:
        return tuple(Message(MISSING_COST_REASONS[name]) for name in uncovered)
    if option.is_cloud:
        return (Message(N_("no price per card-hour for this cloud offer")),)
    notes = []
    if "buy" in procurement.modes:
        notes.append(
            Message(N_("no purchase price for this server: enter a quote as your own figure"))
        )
    if "rent" in procurement.modes and not option.is_own_room:
        notes.append(
            Message(N_("no monthly rent for this server here: enter a quote as your own figure"))
        )
    return tuple(notes) or (Message(N_("no price for the procurement modes you chose")),)


# --- Putting it together ---------------------------------------------------------------------


def site_options(
    result: SizingResult,
    hardware: HardwareCandidate,
    site: SiteCandidate,
    procurement: Procurement,
    today: date,
    params: Parameters,
    *,
    shared: SharedFindings | None = None,
    option: OptionFacts | None = None,
    load: ServerLoad | None = _UNSET,
    pricing: PricingCache | None = None,
) -> list[Option]:
    """``hardware`` at ``site``: one option per asked mode (buy, rent) that has a price there,
    or one unpriced option when none has (a missing price never removes the option). In the
    buyer's own room only buying applies ("buy for your own room").

    ``shared`` and ``option`` (the sizing's facts, made once per hardware): findings whose facts
    other options share are evaluated once (``SharedFindings``); ``load`` (``server_load``,
    also once per hardware); ``pricing`` (the recommendation's ``PricingCache``)."""
    facts = ComplianceInput(
        today=today,
        option=option or option_facts(result),
        server=hardware.server,
        accelerator=hardware.accelerator,
        availability=hardware.availability,
        data_center=site.data_center,
        vendor=site.vendor,
        zone=site.zone,
        buyer=hardware.buyer or procurement.buyer,
    )
    own = site.data_center.key == OWN_ROOM_KEY
    if own:  # no hosting vendor: no vendor rule; what the buyer did not say is theirs to check
        report = own_room(evaluate(facts, params, rules=OWN_ROOM_RULES, shared=shared))
    else:
        report = evaluate(facts, params, shared=shared)
    report = with_required(report, procurement)
    priced = price(result, hardware, site, procurement, load=load, pricing=pricing)
    asked = [m for m in ("buy", "rent") if m in procurement.modes and not (own and m == "rent")]
    modes = [m for m in asked if priced is not None and m in priced.costs]
    # Unpriced, the option keeps the mode it is asked for (buying first): a missing price
    # never removes the option, nor its procurement mode.
    unpriced = not modes
    if unpriced:
        modes = asked[:1] or [None]
    options = []
    for mode in modes:
        shown = OWN_MODE if own and mode in ("buy", None) else mode
        cost = priced.costs.get(mode) if priced is not None and mode and not unpriced else None
        reasons, codes = _reasons(
            result,
            hardware,
            report,
            procurement,
            cost.cash_out_cny if cost else None,
            [("usage", _usage_reason(priced))],
        )
        options.append(
            Option(
                hardware=hardware,
                site=site,
                sizing=result,
                compliance=report,
                economics=priced,
                mode=shown,
                cost_cny=None if unpriced else _net(priced, mode),
                reasons=reasons,
                reason_codes=codes,
            )
        )
    return options


def _reasons(result, hardware, report, procurement, cash_out, extra) -> tuple[tuple, tuple]:
    """Why an option does not qualify, in the order the pages list them (hosted or cloud), and
    what each reason is about: ``(reasons, codes)``."""
    coded = [
        *extra,
        ("fit", _fit_reason(result)),
        *_filter_reasons(hardware, procurement),
        ("deadline", _deadline_reason(result, procurement)),
        *_compliance_reasons(report, procurement),
        ("time", _time_reason(result)),
        ("budget", _budget_reason(cash_out, procurement)),
    ]
    coded = [(code, message) for code, message in coded if message is not None]
    return tuple(m for _, m in coded), tuple(c for c, _ in coded)


def _standing(option: Option) -> int:
    """0: qualifies (priced), 1: meets the requirements but unpriced, 2: does not qualify."""
    return 0 if option.qualifies else (1 if option.unpriced else 2)


def _recommended_key(option: Option):
    return (
        _standing(option),
        option.cost_cny if option.cost_cny is not None else Decimal("Infinity"),
        option.time_to_train_hours if option.time_to_train_hours is not None else math.inf,
        option.key,
    )


def _compliance_key(option: Option):
    counts = option.compliance.counts
    return (counts["fail"], counts["warn"], counts["unknown"], *_recommended_key(option)[1:])


def _time_key(option: Option):
    hours = option.time_to_train_hours
    return (hours if hours is not None else math.inf, *_recommended_key(option)[1:])


def _domestic_first(ordered: list[Option]) -> list[Option]:
    """``ordered`` with, among neighbours equal in qualifying and cost, domestic accelerators
    first (each group's order otherwise kept)."""
    out: list[Option] = []
    group: list[Option] = []
    for option in ordered:
        if group and (option.qualifies, option.cost_cny) != (group[0].qualifies, group[0].cost_cny):
            out.extend(sorted(group, key=lambda o: not o.hardware.domestic))
            group = []
        group.append(option)
    out.extend(sorted(group, key=lambda o: not o.hardware.domestic))
    return out


def rank(options: list[Option], procurement: Procurement) -> Recommendation:
    ordered = sorted(options, key=_recommended_key)
    if procurement.prefer_domestic:
        ordered = _domestic_first(ordered)
    ordered = tuple(ordered)
    qualifying = [o for o in ordered if o.qualifies]
    return Recommendation(
        options=ordered,
        rankings={
            "recommended": tuple(qualifying),
            "fastest_within_budget": tuple(sorted(qualifying, key=_time_key)),
            "cheapest_meeting_deadline": tuple(qualifying),
            "best_compliance": tuple(sorted(qualifying, key=_compliance_key)),
        },
    )


def recommend(
    scenario: Scenario,
    hardware: list[HardwareCandidate],
    sites: list[SiteCandidate],
    procurement: Procurement = Procurement(),
    *,
    today: date,
    params: Parameters = DEFAULT_PARAMETERS,
) -> Recommendation:
    """Every hardware × site option for ``scenario``, ranked; non-qualifying ones kept.

    Each site's checks are made once for all servers there, each server's once for all sites
    (``SharedFindings``), each sizing is made once (``Sizings``), and the options share their
    pricing work (``PricingCache``)."""
    options = []
    hosted = "buy" in procurement.modes or "rent" in procurement.modes
    shared = SharedFindings()
    sizings = Sizings(scenario)
    pricing = PricingCache()
    for candidate in hardware:
        if hosted and sites:
            result = size_hardware(scenario, candidate, procurement, sizings)
            facts, load = option_facts(result), server_load(result, pricing)
            for site in sites:
                options += site_options(
                    result,
                    candidate,
                    site,
                    procurement,
                    today,
                    params,
                    shared=shared,
                    option=facts,
                    load=load,
                    pricing=pricing,
                )
        options += cloud_options(
            scenario, candidate, procurement, today, params, shared=shared, sizings=sizings
        )
    return rank(options, procurement)


# --- Cloud options: one instance of a size sold, cloud checks instead of site rules ---------


def size_instances(
    scenario: Scenario,
    hardware: HardwareCandidate,
    sizes: tuple[int, ...],
    procurement,
    sizings: Sizings | None = None,
) -> tuple[SizingResult, int, bool]:
    """The smallest instance sold that holds the job (the next sizes up when the deadline needs
    them): ``(sizing, GPUs per instance, fits an instance)``.

    The job runs on one instance: the GPUs of an instance share the server's interconnect
    (NVLink, HCCS), separate instances share none and the catalog states no network between
    them, so a job that needs more GPUs than the largest instance is sold with does not fit
    (its sizing on the largest instance is returned to say why). Without sizes (the offer does
    not say), whole servers. ``sizings``: the recommendation's, else one is made.
    """
    sizings = sizings or Sizings(scenario)
    per_server = hardware.server.gpu_count
    sizes = tuple(sorted(set(sizes))) or (per_server,)
    fewest = sizings.search.fewest_gpus(
        hardware.accelerator, server=hardware.server, max_gpus=max(sizes)
    )
    best = None
    if fewest is not None:
        for gpus in (k for k in sizes if k >= fewest.layout.gpus):
            result = sizings.size(hardware.accelerator, gpus, hardware.server)
            if not result.fits:
                continue
            best = best or (result, gpus)
            if not _misses_deadline(result, procurement):
                best = (result, gpus)
                break
    if best is None:
        largest = max(sizes)
        return sizings.size(hardware.accelerator, largest, hardware.server), largest, False
    return best[0], best[1], True


def _cloud_site(cloud: CloudCandidate) -> SiteCandidate:
    """No data center: a cloud bills card-hours, so no site figure enters its price."""
    return SiteCandidate(
        data_center=DataCenterFacts(),
        vendor=cloud.vendor
        if cloud.vendor.name or cloud.vendor.key
        else VendorFacts(name=cloud.provider),
        zone=PolicyZoneFacts(),
        costs=Site(
            key=f"cloud:{cloud.key}",
            name=cloud.provider,
            tariff_cny_per_kwh=Decimal(0),
            pue=Decimal(1),
            rack_fee_cny_per_month=Decimal(0),
            rack_power_limit_kw=Decimal(1000),
        ),
    )


def price_cloud(
    result: SizingResult,
    per_instance: int,
    cloud: CloudCandidate,
    procurement,
    site: SiteCandidate,
) -> economics.EconomicsResult | None:
    """Card-hours of this option's own instance: every card billed, for every training hour.
    ``site``: the option's stand-in site (``_cloud_site``)."""
    load = server_load(result)
    if load is None or "cloud" not in procurement.modes:
        return None
    load = replace(load, server_count=1, gpus_per_server=per_instance)
    inputs = EconomicsInputs(
        load=load,
        site=site.costs,
        prices=Prices(cloud_cny_per_gpu_hour=cloud.price_cny_per_gpu_hour),
        assumptions=procurement.assumptions,
        provenance={"cloud_cny_per_gpu_hour": cloud.provenance},
    )
    return economics.evaluate(inputs, procurement.overrides)


def _instance_reason(result: SizingResult, per_instance: int) -> Message:
    return Message.counted(
        Nn_(
            "does not fit the instance sizes sold: the job needs more than {gpus} GPU sharing "
            "one server's interconnect, and separate instances share none",
            "does not fit the instance sizes sold: the job needs more than {gpus} GPUs sharing "
            "one server's interconnect, and separate instances share none",
        ),
        "gpus",
        {"gpus": per_instance},
    )


def build_cloud_option(
    scenario: Scenario,
    hardware: HardwareCandidate,
    cloud: CloudCandidate,
    procurement: Procurement,
    today: date,
    params: Parameters,
    shared: SharedFindings | None = None,
    sizings: Sizings | None = None,
) -> Option:
    result, per_instance, fits = size_instances(
        scenario, hardware, cloud.instance_gpus, procurement, sizings
    )
    site = _cloud_site(cloud)
    facts = ComplianceInput(
        today=today,
        option=option_facts(result),
        server=hardware.server,
        accelerator=hardware.accelerator,
        availability=hardware.availability,
        vendor=site.vendor,
        buyer=cloud.buyer or procurement.buyer,
        cloud=CloudFacts(
            cloud.provider, cloud.region, cloud.mainland_china, cloud.provider_zh, cloud.region_zh
        ),
    )
    report = with_required(evaluate(facts, params, rules=CLOUD_RULES, shared=shared), procurement)
    priced = price_cloud(result, per_instance, cloud, procurement, site) if fits else None
    cost = priced.costs.get("cloud") if priced is not None else None
    extra = [("usage", _usage_reason(priced))]
    if not fits:
        extra.insert(0, ("instance", _instance_reason(result, per_instance)))
    reasons, codes = _reasons(
        result, hardware, report, procurement, cost.cash_out_cny if cost else None, extra
    )
    return Option(
        hardware=hardware,
        site=site,
        sizing=result,
        compliance=report,
        economics=priced,
        mode="cloud",
        cost_cny=cost.net_of_resale_cny if cost else None,
        reasons=reasons,
        reason_codes=codes,
        capacity=Capacity(
            how="cloud",
            instances=1,
            gpus_per_instance=per_instance,
            gpus_used=result.layout.gpus,
            provider=cloud.provider,
            region=cloud.region,
        ),
        cloud=cloud,
    )


# The figures a cloud option's cost rests on; the stand-in site figures (no data center) are
# not among them and are never shown.
CLOUD_FIGURES = (
    "cloud_cny_per_gpu_hour",
    "hours_per_run",
    "runs_per_year",
    "training_hours_per_year",
    "usage",
    "horizon_years",
)


def cost_figures(option: Option) -> tuple:
    """The assumptions behind the option's cost, as the buyer should read them."""
    if option.economics is None:
        return ()
    figures = option.economics.assumptions
    if option.is_cloud:
        figures = tuple(a for a in figures if a.key in CLOUD_FIGURES)
    elif option.mode == RENT_MODE:
        skipped = {"purchase_cny_per_server", "maintenance_pct_per_year", "resale_pct"}
        figures = tuple(a for a in figures if a.key not in skipped)
    return tuple(figures)


def cloud_options(
    scenario: Scenario,
    hardware: HardwareCandidate,
    procurement: Procurement,
    today: date,
    params: Parameters,
    shared: SharedFindings | None = None,
    sizings: Sizings | None = None,
) -> list[Option]:
    """One option per cloud offer of this hardware, when the buyer considers the cloud."""
    if "cloud" not in procurement.modes:
        return []
    return [
        build_cloud_option(scenario, hardware, cloud, procurement, today, params, shared, sizings)
        for cloud in hardware.clouds
    ]
