"""What the compliance rules look at, as plain frozen dataclasses.

Every field may be ``None``, meaning "not known"; a rule that needs an unknown field
evaluates to ``unknown`` instead of passing. For collections, ``None`` means unknown and
an empty tuple means "known to hold none". The selectors in
``advisor/catalog/compliance.py`` fill these from the catalog; tests build them by hand.

Units are in the names: ``_c`` °C, ``_pct`` percent, ``_kw`` kilowatts, ``_kg``,
``_min`` minutes, ``_s`` seconds, ``_h`` hours, ``_ms`` milliseconds, ``_tb`` decimal
terabytes, ``_gbs`` gigabytes per second, ``_cny`` yuan.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from advisor.domain.hardware import AcceleratorSpec, ServerSpec

# Certificate kinds the vendor rules look for.
CERT_ISO27001 = "iso27001"
CERT_ISO9001 = "iso9001"
CERT_MLPS = "mlps"
CERTIFICATE_KINDS = (CERT_ISO27001, CERT_ISO9001, CERT_MLPS)

# How the data center's PUE figure was obtained.
PUE_MEASURED = "measured"
PUE_DESIGN = "design"

# Availability / export-control status as the catalog records it (reported, not judged).
AVAILABILITY_AVAILABLE = "available"
AVAILABILITY_LICENCE_REQUIRED = "licence-required"
AVAILABILITY_NOT_AVAILABLE = "not-available"
AVAILABILITY_DOMESTIC = "domestic"  # a domestic product, not a US export item
AVAILABILITY_STATUSES = (
    AVAILABILITY_AVAILABLE,
    AVAILABILITY_LICENCE_REQUIRED,
    AVAILABILITY_NOT_AVAILABLE,
    AVAILABILITY_DOMESTIC,
)

# Cooling a data center offers (the catalog's SiteCooling values).
COOLING_AIR = "air"
COOLING_REAR_DOOR = "rear-door"
COOLING_DIRECT_LIQUID = "direct-liquid"
COOLING_IMMERSION = "immersion"
LIQUID_COOLING = (COOLING_DIRECT_LIQUID, COOLING_IMMERSION)


@dataclass(frozen=True)
class OptionFacts:
    """What the sizing decided for one option."""

    gpu_count: int | None = None
    server_count: int | None = None
    gpus_per_server: int | None = None
    server_power_max_kw: float | None = None
    server_power_typical_kw: float | None = None
    servers_per_rack: int | None = None
    server_weight_kg: float | None = None
    rack_weight_kg: float | None = None  # when the sizing states the whole rack's load
    sharded_across_gpus: bool | None = None
    multi_node: bool | None = None
    pcie_communication_penalty_pct: float | None = None
    nvme_needed_tb: float | None = None
    nvme_read_needed_gbs: float | None = None

    @property
    def rack_power_max_kw(self) -> float | None:
        return _product(self.server_power_max_kw, self.servers_per_rack)

    @property
    def rack_power_typical_kw(self) -> float | None:
        return _product(self.server_power_typical_kw, self.servers_per_rack)

    @property
    def rack_load_kg(self) -> float | None:
        if self.rack_weight_kg is not None:
            return self.rack_weight_kg
        return _product(self.server_weight_kg, self.servers_per_rack)


def _product(per_unit, count):
    if per_unit is None or count is None:
        return None
    return per_unit * count


@dataclass(frozen=True)
class DataCenterFacts:
    key: str | None = None
    name: str | None = None
    name_zh: str | None = None  # Chinese name, shown on Chinese pages (i18n.local_name)
    city: str | None = None
    city_zh: str | None = None
    province: str | None = None  # Chinese name, one-character abbreviation or English name
    operator_key: str | None = None
    self_operated: bool | None = None  # run by the hosting vendor itself (V1)
    # Inlet (cold aisle) conditions the room holds.
    inlet_temp_min_c: float | None = None
    inlet_temp_max_c: float | None = None
    inlet_rh_min_pct: float | None = None
    inlet_rh_max_pct: float | None = None
    inlet_dew_point_min_c: float | None = None
    inlet_dew_point_max_c: float | None = None
    # Outdoor climate and humidity control (S1).
    climate_mean_rh_pct: float | None = None
    precision_humidity_control: bool | None = None
    # Energy and cooling (S2).
    pue: float | None = None
    pue_basis: str | None = None  # PUE_MEASURED or PUE_DESIGN
    max_rack_kw: float | None = None
    cooling_kinds: tuple[str, ...] | None = None  # any of air, rear-door, direct-liquid, immersion
    # Power (S3).
    dual_utility_feeds: bool | None = None
    ups_backup_min: float | None = None
    generator_start_s: float | None = None
    hvdc: bool | None = None
    hvdc_efficiency_pct: float | None = None
    # Room (S5).
    rack_max_load_kg: float | None = None  # rated load of one rack position
    floor_load_kg_per_m2: float | None = None  # rated floor load
    # Network (S4).
    multi_carrier_bgp: bool | None = None
    latency_east_china_ms: float | None = None
    latency_south_china_ms: float | None = None
    packet_loss_pct: float | None = None
    # Operations and contract (S6).
    staff_24x7_on_site: bool | None = None
    spare_parts_replacement_h: float | None = None
    fault_response_h: float | None = None
    contract_mttr_stated: bool | None = None
    contract_mttr_h: float | None = None
    contract_compensation: bool | None = None


@dataclass(frozen=True)
class PolicyZoneFacts:
    key: str | None = None
    name: str | None = None
    name_zh: str | None = None
    pue_limit: float | None = None
    pue_limit_source: str | None = None  # the policy document, as the catalog records it


@dataclass(frozen=True)
class LicenceFacts:
    """A value-added telecom business licence (增值电信业务经营许可证)."""

    number: str | None = None  # e.g. "豫B2-20261089" or "B1-20190001"
    categories: tuple[str, ...] | None = None  # e.g. ("B11", "B12", "B14")
    valid_until: date | None = None
    issuer: str | None = None
    coverage: tuple[str, ...] | None = None  # provinces the licence lists, when recorded


@dataclass(frozen=True)
class CertificateFacts:
    kind: str | None = None  # one of CERTIFICATE_KINDS
    number: str | None = None
    edition: str | None = None  # ISO standard edition year, e.g. "2022"
    level: int | None = None  # MLPS level (等保级别)
    valid_until: date | None = None
    last_audit_on: date | None = None  # surveillance audit, recertification or MLPS assessment
    issuer: str | None = None
    scope: str | None = None  # what the certificate covers, as its source states it
    # Whether the certificate's scope covers the data center in question: True (the source
    # names it, or says the scope is all the operator's data centers), False (the scope is
    # something else, or not stated), None (no data center is in question: a cloud offer, a
    # vendor comparison, or a certificate the vendor declared for this offer).
    covers_site: bool | None = None


@dataclass(frozen=True)
class VendorFacts:
    key: str | None = None
    name: str | None = None
    name_zh: str | None = None
    founded_year: int | None = None
    registered_capital_cny: float | None = None
    licences: tuple[LicenceFacts, ...] | None = None
    icp_filing_number: str | None = None  # "" = known to have none
    certificates: tuple[CertificateFacts, ...] | None = None
    # True: ``certificates`` lists everything the vendor holds, so a kind missing from it is
    # known to be absent (fail). False: it lists claims only, so a missing kind is unknown.
    certificates_complete: bool = True
    own_bgp: bool | None = None
    cnnic_ip_alliance: bool | None = None
    network_notes: str | None = None
    background_notes: str | None = None


@dataclass(frozen=True)
class BuyerRequirement:
    """The buyer's framework and accelerator software stack, e.g. PyTorch 2.3 on CUDA 12.4."""

    framework: str | None = None  # "pytorch"
    framework_version: str | None = None
    stack: str | None = None  # one of advisor.domain.hardware.SOFTWARE_STACKS
    stack_version: str | None = None


@dataclass(frozen=True)
class AvailabilityFacts:
    """Availability / export-control status of the accelerator, as the catalog records it."""

    status: str | None = None  # one of AVAILABILITY_STATUSES
    as_of: date | None = None
    note: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class CloudFacts:
    """Where a cloud offer's GPUs run, as the catalog records it."""

    provider: str | None = None
    region: str | None = None
    mainland_china: bool | None = None  # None: not recorded
    provider_zh: str | None = None  # the names a Chinese reader reads (None: as above)
    region_zh: str | None = None


@dataclass(frozen=True)
class ComplianceInput:
    """Everything one evaluation looks at; ``today`` makes results reproducible."""

    today: date
    option: OptionFacts = OptionFacts()
    server: ServerSpec | None = None
    accelerator: AcceleratorSpec | None = None
    availability: AvailabilityFacts | None = None
    data_center: DataCenterFacts = DataCenterFacts()
    vendor: VendorFacts = VendorFacts()
    zone: PolicyZoneFacts = PolicyZoneFacts()
    buyer: BuyerRequirement = BuyerRequirement()
    cloud: CloudFacts | None = None  # set for a cloud option (GPU-hours, no data center)
