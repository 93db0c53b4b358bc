"""Builders shared by the compliance unit tests (this module holds no tests itself).

``facts(...)`` starts from an option that passes every rule and applies overrides per
part, so a table row only states the figures it is about.
"""

from dataclasses import replace
from datetime import date, timedelta

from advisor.domain.compliance.engine import RULES_BY_ID, evaluate_rule
from advisor.domain.compliance.facts import (
    AvailabilityFacts,
    BuyerRequirement,
    CertificateFacts,
    ComplianceInput,
    DataCenterFacts,
    LicenceFacts,
    OptionFacts,
    PolicyZoneFacts,
    VendorFacts,
)
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS
from advisor.domain.hardware import AcceleratorSpec, ServerSpec

TODAY = date(2026, 11, 29)


def days(n: int) -> date:
    """TODAY shifted by ``n`` days."""
    return TODAY + timedelta(days=n)


GOOD_OPTION = OptionFacts(
    gpu_count=8,
    server_count=1,
    gpus_per_server=8,
    server_power_max_kw=10.2,
    server_power_typical_kw=8.0,
    servers_per_rack=2,
    server_weight_kg=130.45,
    sharded_across_gpus=True,
    multi_node=False,
    pcie_communication_penalty_pct=None,
    nvme_needed_tb=8,
    nvme_read_needed_gbs=6,
)

GOOD_SERVER = ServerSpec(
    key="dgx-h100",
    maker="NVIDIA",
    name="DGX H100",
    accelerator_key="h100-sxm-80gb",
    gpu_count=8,
    topology="nvswitch",
    intra_node_bandwidth_gbs=900,
    host_memory_gib=2048,
    nvme_usable_tb=30.72,
    nvme_read_gbs=25,
    nic_kind="infiniband",
    nic_count=8,
    nic_gbps=400,
    power_max_w=10200,
    power_typical_w=8000,
    weight_kg=130.45,
    rack_units=8,
    cooling="air",
)

GOOD_ACCELERATOR = AcceleratorSpec(
    key="h100-sxm-80gb",
    maker="NVIDIA",
    name="H100 SXM5 80GB",
    architecture="Hopper",
    memory_gb=80,
    memory_bandwidth_tbps=3.35,
    bf16_dense_tflops=989,
    fp8_dense_tflops=1979,
    tdp_w=700,
    interconnect_kind="nvlink",
    interconnect_bandwidth_gbs=900,
    software_stack="cuda",
)

GOOD_DC = DataCenterFacts(
    key="guian-1",
    name="Gui'an DC 1",
    city="Guiyang",
    province="贵州",
    operator_key="vendor-a",
    inlet_temp_min_c=18,
    inlet_temp_max_c=25,
    inlet_rh_min_pct=40,
    inlet_rh_max_pct=60,
    inlet_dew_point_min_c=5.5,
    inlet_dew_point_max_c=15,
    climate_mean_rh_pct=80,
    precision_humidity_control=True,
    pue=1.18,
    pue_basis="measured",
    max_rack_kw=24,
    cooling_kinds=("air",),
    dual_utility_feeds=True,
    ups_backup_min=30,
    generator_start_s=15,
    hvdc=True,
    hvdc_efficiency_pct=94,
    rack_max_load_kg=1000,
    floor_load_kg_per_m2=1200,
    multi_carrier_bgp=True,
    latency_east_china_ms=28,
    latency_south_china_ms=25,
    packet_loss_pct=0.05,
    staff_24x7_on_site=True,
    spare_parts_replacement_h=2,
    fault_response_h=24,
    contract_mttr_stated=True,
    contract_mttr_h=4,
    contract_compensation=True,
)

GOOD_ZONE = PolicyZoneFacts(
    key="guizhou-hub",
    name="Guizhou hub node",
    pue_limit=1.2,
    pue_limit_source="2024 DC green low-carbon action plan",
)

GOOD_VENDOR = VendorFacts(
    key="vendor-a",
    name="Vendor A",
    founded_year=2003,
    registered_capital_cny=10_000_000,
    licences=(
        LicenceFacts(
            number="B1.B2-20200001",
            categories=("B11", "B14"),
            valid_until=days(800),
            coverage=("贵州", "上海"),
        ),
    ),
    icp_filing_number="黔ICP备12345678号",
    certificates=(
        CertificateFacts(
            kind="iso27001",
            number="ISMS-1",
            edition="2022",
            valid_until=days(700),
            last_audit_on=days(-100),
        ),
        CertificateFacts(
            kind="iso9001",
            number="QMS-1",
            edition="2015",
            valid_until=days(700),
            last_audit_on=days(-100),
        ),
        CertificateFacts(
            kind="mlps", number="52010099999-00001", level=3, last_audit_on=days(-100)
        ),
    ),
    own_bgp=True,
    cnnic_ip_alliance=True,
)

GOOD_BUYER = BuyerRequirement(
    framework="pytorch", framework_version="2.3", stack="cuda", stack_version="12.4"
)

GOOD_AVAILABILITY = AvailabilityFacts(status="available", as_of=days(-30), note="")

GOOD_INPUT = ComplianceInput(
    today=TODAY,
    option=GOOD_OPTION,
    server=GOOD_SERVER,
    accelerator=GOOD_ACCELERATOR,
    availability=GOOD_AVAILABILITY,
    data_center=GOOD_DC,
    vendor=GOOD_VENDOR,
    zone=GOOD_ZONE,
    buyer=GOOD_BUYER,
)

PARTS = (
    "option",
    "server",
    "accelerator",
    "availability",
    "data_center",
    "vendor",
    "zone",
    "buyer",
)


def facts(today=TODAY, **parts) -> ComplianceInput:
    """GOOD_INPUT with ``part={field: value}`` overrides, or ``part=None`` to drop a part."""
    changes = {"today": today}
    for name, value in parts.items():
        assert name in PARTS, name
        if isinstance(value, dict):
            changes[name] = replace(getattr(GOOD_INPUT, name), **value)
        else:
            changes[name] = value
    return replace(GOOD_INPUT, **changes)


def evaluate_one(rule_id: str, compliance_input: ComplianceInput, params=DEFAULT_PARAMETERS):
    return evaluate_rule(RULES_BY_ID[rule_id], compliance_input, params)


def certificate(kind: str, **fields) -> CertificateFacts:
    base = next(cert for cert in GOOD_VENDOR.certificates if cert.kind == kind)
    return replace(base, **fields)


def with_certificate(kind: str, **fields):
    """GOOD_VENDOR's certificates with the ``kind`` one changed."""
    others = tuple(cert for cert in GOOD_VENDOR.certificates if cert.kind != kind)
    return {"certificates": (*others, certificate(kind, **fields))}


def licence(**fields) -> dict:
    return {"licences": (replace(GOOD_VENDOR.licences[0], **fields),)}
