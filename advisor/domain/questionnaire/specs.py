"""Every fact a vendor can be asked for, and which rules need it.

A fact is named by its catalog field (``DataCenter``, ``HostingVendor``, ``ServerModel``,
``Accelerator``); certificate facts are ``<kind>.<field>`` of the vendor's certificate of that
kind (``mlps.last_assessment_date``). ``RULE_FACTS`` maps every compliance rule that can be
unknown to the facts that settle it: a unit test checks that no rule is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from advisor.domain.compliance.dates import add_months
from advisor.domain.i18n import N_

# Subject kinds: who the fact is about (the key in the ``declared`` section names the row).
DATA_CENTER = "data-center"
OPERATOR = "operator"
SERVER = "server"
ACCELERATOR = "accelerator"
OFFER = "offer"  # one server model at one data center: "<server key>@<data center key>"
CLOUD_OFFER = "cloud-offer"  # one cloud offer (GPU instances of a provider), by its offer key
SUBJECT_KINDS = (DATA_CENTER, OPERATOR, CLOUD_OFFER, SERVER, ACCELERATOR, OFFER)
SUBJECT_LABELS = {
    DATA_CENTER: N_("Data center"),
    OPERATOR: N_("Operator"),
    CLOUD_OFFER: N_("Cloud offer"),
    SERVER: N_("Server"),
    ACCELERATOR: N_("Accelerator"),
    OFFER: N_("Offer"),
}

# Answer types.
NUMBER = "number"
INTEGER = "integer"
YES_NO = "yes-no"
DATE = "date"
CHOICE = "choice"
TEXT = "text"
ANSWER_TYPES = (NUMBER, INTEGER, YES_NO, DATE, CHOICE, TEXT)
TYPE_LABELS = {
    NUMBER: N_("number"),
    INTEGER: N_("whole number"),
    YES_NO: N_("yes/no"),
    DATE: N_("date (YYYY-MM-DD)"),
    CHOICE: N_("choice"),
    TEXT: N_("text"),
}
TEXT_MAX_LENGTH = 500


@dataclass(frozen=True)
class Fact:
    """One askable fact: where it lives, what an answer must look like, how to ask."""

    kind: str  # one of SUBJECT_KINDS
    name: str  # catalog field name (``<certificate kind>.<field>`` for certificates)
    type: str  # one of ANSWER_TYPES
    question: str  # N_() marker
    unit: str = ""  # plain or N_() marker
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    multiple: bool = False  # CHOICE: a comma-separated list of choices
    # How the recorded value goes stale: ("expired", ""), ("months" | "days", parameter key).
    stale: tuple[str, str] = ()
    # False: only this assessment can use it (no catalog field to promote it into).
    promotable: bool = True

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"


# How a dated fact goes stale (plain tuples, so facts pickle with the cached results).
_expired = ("expired", "")


def _months_old(parameter: str) -> tuple[str, str]:
    return ("months", parameter)


def _days_old(parameter: str) -> tuple[str, str]:
    return ("days", parameter)


def is_stale(fact: Fact, value, today: date, params) -> bool:
    """Whether a recorded ``value`` of ``fact`` is too old to rely on (expired, or older than
    the rule's parameter allows)."""
    if not fact.stale or not isinstance(value, date):
        return False
    how, parameter = fact.stale
    if how == "expired":
        return value < today
    if how == "months":
        return add_months(value, int(params[parameter])) < today
    return (today - value).days > int(params[parameter])


COOLING = ("air", "rear-door", "direct-liquid", "immersion")
SERVER_COOLING = ("air", "liquid")
POWER_PRICING = ("fixed", "pass-through", "included")
NIC_KINDS = ("infiniband", "roce", "ethernet")
TOPOLOGIES = ("nvswitch", "nvlink-pairs", "pcie-switch", "hccs-mesh", "xgmi-mesh")
AVAILABILITY = ("available", "licence-required", "not-available", "domestic")
ISO_EDITIONS = ("2013", "2022")

_DC = DATA_CENTER
_OP = OPERATOR

FACTS: tuple[Fact, ...] = (
    # --- data center: climate ------------------------------------------------------------
    Fact(_DC, "inlet_temp_min_c", NUMBER, N_("Lowest cold-aisle inlet temperature the room holds"), "°C", -10, 45),
    Fact(_DC, "inlet_temp_max_c", NUMBER, N_("Highest cold-aisle inlet temperature the room holds"), "°C", -10, 45),
    Fact(_DC, "humidity_min_pct", NUMBER, N_("Lowest inlet relative humidity the room holds"), "%", 0, 100),
    Fact(_DC, "humidity_max_pct", NUMBER, N_("Highest inlet relative humidity the room holds"), "%", 0, 100),
    Fact(_DC, "dew_point_min_c", NUMBER, N_("Lowest inlet dew point the humidity control holds"), "°C", -30, 40),
    Fact(_DC, "dew_point_max_c", NUMBER, N_("Highest inlet dew point the humidity control holds"), "°C", -30, 40),
    Fact(_DC, "humidity_control", YES_NO, N_("Does the room have precision humidity control (humidify and dehumidify)?")),
    Fact(_DC, "climate_mean_rh_pct", NUMBER, N_("Mean outdoor relative humidity at the site over a year"), "%", 0, 100),
    # --- data center: energy and power ---------------------------------------------------
    Fact(_DC, "pue_measured", NUMBER, N_("Measured annual PUE of the data center (last full year)"), "", 1, 3),
    Fact(_DC, "max_kw_per_rack", NUMBER, N_("Maximum power you supply and cool per rack"), "kW", 1, 300),
    Fact(_DC, "cooling_available", CHOICE, N_("Cooling you offer for our racks (one or more, separated by commas)"), choices=COOLING, multiple=True),
    Fact(_DC, "power_feeds", INTEGER, N_("Number of independent utility power feeds"), "", 1, 8),
    Fact(_DC, "ups_minutes", NUMBER, N_("UPS battery backup time at full load"), N_("min"), 0, 600),
    Fact(_DC, "generator_start_s", NUMBER, N_("Time for the diesel generators to start automatically"), N_("s"), 0, 600),
    Fact(_DC, "hvdc", YES_NO, N_("Do you supply servers with high-voltage DC (HVDC)?")),
    Fact(_DC, "hvdc_efficiency_pct", NUMBER, N_("HVDC conversion efficiency (when you supply HVDC)"), "%", 50, 100),
    Fact(_DC, "floor_load_kg_per_m2", NUMBER, N_("Rated floor load in the room for our racks"), "kg/m²", 100, 20000),
    # --- data center: network ------------------------------------------------------------
    Fact(_DC, "latency_east_china_ms", NUMBER, N_("Network latency from the site to East China (Shanghai)"), "ms", 0, 1000),
    Fact(_DC, "latency_south_china_ms", NUMBER, N_("Network latency from the site to South China (Guangzhou)"), "ms", 0, 1000),
    Fact(_DC, "packet_loss_pct", NUMBER, N_("Packet loss on your backbone links"), "%", 0, 100),
    # --- data center: price quote --------------------------------------------------------
    Fact(_DC, "rack_fee_cny_per_month", NUMBER, N_("Rack fee per month (quote)"), N_("CNY/month"), 0, 10_000_000),
    Fact(_DC, "rack_fee_kw", NUMBER, N_("Power included in the rack fee"), "kW", 0, 300),
    Fact(_DC, "power_pricing", CHOICE, N_("How electricity is charged: fixed price per kWh, passed through at the grid tariff, or included in the rack fee"), choices=POWER_PRICING),
    Fact(_DC, "power_price_cny_per_kwh", NUMBER, N_("Electricity price (when charged at a fixed price)"), N_("CNY/kWh"), 0, 10),
    # --- operator --------------------------------------------------------------------------
    Fact(_OP, "licence_number", TEXT, N_("Number of your value-added telecom business licence (增值电信业务经营许可证)")),
    Fact(_OP, "licence_categories", TEXT, N_("Business categories the licence lists, separated by commas (e.g. B11, B12)")),
    Fact(_OP, "licence_valid_until", DATE, N_("Date the telecom licence expires"), stale=_expired),
    Fact(_OP, "icp_filing_number", TEXT, N_("ICP filing number of your website (e.g. 黔ICP备12345678号)")),
    Fact(_OP, "iso-27001.number", TEXT, N_("ISO/IEC 27001 certificate number")),
    Fact(_OP, "iso-27001.iso27001_edition", CHOICE, N_("Edition of the ISO/IEC 27001 standard on the certificate"), choices=ISO_EDITIONS),
    Fact(_OP, "iso-27001.valid_until", DATE, N_("Date the ISO/IEC 27001 certificate expires"), stale=_expired),
    Fact(_OP, "iso-27001.last_surveillance_audit", DATE, N_("Date of the last ISO/IEC 27001 surveillance or recertification audit"), stale=_months_old("vendor.iso_audit_max_months")),
    Fact(_OP, "iso-9001.number", TEXT, N_("ISO 9001 certificate number")),
    Fact(_OP, "iso-9001.valid_until", DATE, N_("Date the ISO 9001 certificate expires"), stale=_expired),
    Fact(_OP, "iso-9001.last_surveillance_audit", DATE, N_("Date of the last ISO 9001 surveillance or recertification audit"), stale=_months_old("vendor.iso_audit_max_months")),
    Fact(_OP, "mlps.number", TEXT, N_("MLPS filing or assessment report number (等保备案编号)")),
    Fact(_OP, "mlps.mlps_level", INTEGER, N_("MLPS level of the assessed systems (等保级别)"), "", 1, 5),
    Fact(_OP, "mlps.last_assessment_date", DATE, N_("Date of the last MLPS assessment (等保测评)"), stale=_months_old("vendor.mlps_assessment_max_months")),
    Fact(_OP, "self_operated_dcs", YES_NO, N_("Do you operate the data center yourself (not resold space)?")),
    Fact(_OP, "has_own_bgp", YES_NO, N_("Do you run your own multi-carrier BGP network?")),
    Fact(_OP, "onsite_24x7", YES_NO, N_("Are your engineers on site 7×24?")),
    Fact(_OP, "spare_part_replacement_hours", NUMBER, N_("Time to replace a failed part from on-site stock"), N_("h"), 0, 720),
    Fact(_OP, "fault_response_hours", NUMBER, N_("Time to respond to a hardware fault, at any hour"), N_("h"), 0, 720),
    Fact(_OP, "mttr_hours", NUMBER, N_("Mean time to repair stated in the contract"), N_("h"), 0, 720),
    Fact(_OP, "compensation_terms", TEXT, N_("Compensation the contract pays when the repair time is missed")),
    # --- cloud offer (asked of the provider: where the instances run, on what terms) --------
    Fact(CLOUD_OFFER, "region", TEXT, N_("Region (city and zone) where the instances run and the training data and checkpoints are stored")),
    Fact(CLOUD_OFFER, "region_in_mainland_china", YES_NO, N_("Do the instances run, and are the training data and checkpoints stored, in mainland China?")),
    Fact(CLOUD_OFFER, "image_pytorch_version", TEXT, N_("PyTorch version of the instance image you provide (e.g. 2.5)"), promotable=False),
    Fact(CLOUD_OFFER, "image_stack_version", TEXT, N_("Accelerator software stack version of that image (CUDA, ROCm or CANN, e.g. 8.0)"), promotable=False),
    Fact(CLOUD_OFFER, "deletion_on_exit", YES_NO, N_("When we end the service, do you delete our data, checkpoints and disks and confirm the deletion in writing?"), promotable=False),
    Fact(CLOUD_OFFER, "billing_terms", TEXT, N_("Billing terms: billing unit (second, minute or hour), minimum term, and charges for stopped instances and storage"), promotable=False),
    Fact(CLOUD_OFFER, "instance_interconnect", CHOICE, N_("How the GPUs of one instance are linked"), choices=TOPOLOGIES, promotable=False),
    # --- server and accelerator ------------------------------------------------------------
    Fact(SERVER, "cooling", CHOICE, N_("How the server is cooled: air or liquid"), choices=SERVER_COOLING),
    Fact(SERVER, "power_max_w", NUMBER, N_("Server power draw at full load"), "W", 100, 100_000),
    Fact(SERVER, "power_typical_w", NUMBER, N_("Server power draw, typical under training"), "W", 100, 100_000),
    Fact(SERVER, "weight_kg", NUMBER, N_("Server weight, fully configured"), "kg", 1, 2000),
    Fact(SERVER, "topology", CHOICE, N_("How the GPUs inside the server are linked"), choices=TOPOLOGIES),
    Fact(SERVER, "nic_kind", CHOICE, N_("Kind of network cards between servers"), choices=NIC_KINDS),
    Fact(SERVER, "nvme_usable_tb", NUMBER, N_("Usable local NVMe capacity per server"), "TB", 0, 1000),
    Fact(SERVER, "nvme_read_gbs", NUMBER, N_("Local NVMe sequential read speed per server"), "GB/s", 0, 1000),
    Fact(SERVER, "pytorch_version", TEXT, N_("PyTorch version of the software image delivered with the server (e.g. 2.5)"), promotable=False),
    Fact(SERVER, "stack_version", TEXT, N_("Accelerator software stack version of that image (CUDA, ROCm or CANN, e.g. 12.4)"), promotable=False),
    Fact(ACCELERATOR, "china_availability", CHOICE, N_("Can you supply this accelerator in mainland China: available, export licence required, not available, or a domestic product?"), choices=AVAILABILITY),
    Fact(ACCELERATOR, "china_availability_as_of", DATE, N_("Date of that supply statement"), stale=_days_old("hw.availability_max_age_days")),
    # --- offer (one server model at one data center) ---------------------------------------
    Fact(OFFER, "monthly_rent", NUMBER, N_("Monthly rent per server (quote)"), N_("CNY/month"), 0, 100_000_000),
    Fact(OFFER, "lead_time_weeks", INTEGER, N_("Delivery lead time"), N_("weeks"), 0, 104),
)  # fmt: skip

FACTS_BY_ID = {fact.id: fact for fact in FACTS}


def fact(kind: str, name: str) -> Fact:
    return FACTS_BY_ID[f"{kind}:{name}"]


def _facts(kind: str, *names: str) -> tuple[Fact, ...]:
    return tuple(fact(kind, name) for name in names)


_CONTRACT = _facts(_OP, "mttr_hours", "compensation_terms")

# Every rule that can be unknown → the facts that settle it (in the order they are asked).
RULE_FACTS: dict[str, tuple[Fact, ...]] = {
    "SITE-INLET-TEMP": _facts(_DC, "inlet_temp_min_c", "inlet_temp_max_c"),
    "SITE-INLET-HUMIDITY": _facts(
        _DC, "humidity_min_pct", "humidity_max_pct", "dew_point_min_c", "dew_point_max_c"
    ),
    "SITE-HUMIDITY-CONTROL": _facts(_DC, "humidity_control", "climate_mean_rh_pct"),
    "SITE-PUE": _facts(_DC, "pue_measured"),
    "SITE-RACK-POWER": (
        fact(_DC, "max_kw_per_rack"),
        *_facts(SERVER, "power_max_w", "power_typical_w"),
    ),
    "SITE-RACK-COOLING": (
        fact(_DC, "cooling_available"),
        *_facts(SERVER, "cooling", "power_max_w"),
    ),
    "SITE-DUAL-FEED": _facts(_DC, "power_feeds"),
    "SITE-UPS": _facts(_DC, "ups_minutes"),
    "SITE-GENERATOR": _facts(_DC, "generator_start_s"),
    "SITE-HVDC": _facts(_DC, "hvdc", "hvdc_efficiency_pct"),
    "SITE-FLOOR-LOAD": (fact(_DC, "floor_load_kg_per_m2"), fact(SERVER, "weight_kg")),
    "SITE-BGP": _facts(_OP, "has_own_bgp"),
    "SITE-LATENCY": _facts(_DC, "latency_east_china_ms", "latency_south_china_ms"),
    "SITE-PACKET-LOSS": _facts(_DC, "packet_loss_pct"),
    "SITE-STAFF-24X7": _facts(_OP, "onsite_24x7"),
    "SITE-SPARE-PARTS": _facts(_OP, "spare_part_replacement_hours"),
    "SITE-FAULT-RESPONSE": _facts(_OP, "fault_response_hours"),
    "SITE-CONTRACT-MTTR": _CONTRACT,
    "VENDOR-TELECOM-LICENCE": _facts(
        _OP, "licence_number", "licence_categories", "licence_valid_until"
    ),
    "VENDOR-LICENCE-REGION": _facts(_OP, "licence_number"),
    "VENDOR-ICP-FILING": _facts(_OP, "icp_filing_number"),
    "CLOUD-RESIDENCY": _facts(CLOUD_OFFER, "region", "region_in_mainland_china"),
    "VENDOR-ISO27001": _facts(
        _OP,
        "iso-27001.number",
        "iso-27001.iso27001_edition",
        "iso-27001.valid_until",
        "iso-27001.last_surveillance_audit",
    ),
    "VENDOR-ISO9001": _facts(
        _OP, "iso-9001.number", "iso-9001.valid_until", "iso-9001.last_surveillance_audit"
    ),
    "VENDOR-MLPS3": _facts(_OP, "mlps.number", "mlps.mlps_level", "mlps.last_assessment_date"),
    "VENDOR-SELF-OPERATED": _facts(_OP, "self_operated_dcs"),
    "VENDOR-NETWORK": _facts(_OP, "has_own_bgp"),
    "HW-INTRANODE-LINK": _facts(SERVER, "topology"),
    "HW-INTERNODE-NIC": _facts(SERVER, "nic_kind"),
    "HW-NVME-CAPACITY": _facts(SERVER, "nvme_usable_tb"),
    "HW-NVME-READ": _facts(SERVER, "nvme_read_gbs"),
    # A hosted server's image, or a cloud instance's (each option asks its own subject).
    "HW-SOFTWARE-STACK": (
        *_facts(SERVER, "pytorch_version", "stack_version"),
        *_facts(CLOUD_OFFER, "image_pytorch_version", "image_stack_version"),
    ),
    "HW-AVAILABILITY": _facts(ACCELERATOR, "china_availability", "china_availability_as_of"),
}

# Price quote rows, asked when the economics rests on a figure that is not a quote.
PRICE_FACTS: tuple[Fact, ...] = (
    *_facts(_DC, "rack_fee_cny_per_month", "rack_fee_kw", "power_pricing", "power_price_cny_per_kwh"),
    *_facts(OFFER, "monthly_rent", "lead_time_weeks"),
)  # fmt: skip
# The economics figure (Overrides / Prices field names) each price fact settles.
PRICE_FIGURES = {
    "rack_fee_cny_per_month": ("rack_fee_cny_per_month",),
    "rack_fee_kw": ("rack_fee_cny_per_month", "rack_power_limit_kw"),
    "power_pricing": ("tariff_cny_per_kwh",),
    "power_price_cny_per_kwh": ("tariff_cny_per_kwh",),
    "monthly_rent": ("rent_cny_per_server_month",),
    "lead_time_weeks": ("rent_cny_per_server_month", "purchase_cny_per_server"),
}

# What a cloud provider is asked for every cloud option, whatever its findings: the terms a
# contract for GPU-hours must settle (no rule reads them; the buyer reads the answers).
CLOUD_TERMS: tuple[Fact, ...] = _facts(
    CLOUD_OFFER, "deletion_on_exit", "billing_terms", "instance_interconnect"
)

RULES_BY_FACT: dict[str, tuple[str, ...]] = {}
for _rule, _needed in RULE_FACTS.items():
    for _fact in _needed:
        RULES_BY_FACT[_fact.id] = (*RULES_BY_FACT.get(_fact.id, ()), _rule)
