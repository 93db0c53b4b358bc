"""The rule-parameter table: every threshold a compliance rule uses, with unit and citation.

Defaults live here; admins override values through the ``RuleParameter`` model (Django
admin, with history). The selector passes the overrides as a plain mapping
``{key: text}`` to :func:`resolve_parameters`, which validates them. PUE limits are not
here: they come from the data center's policy zone in the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from advisor.domain.i18n import N_

NUMBER = "number"
DATE = "date"


@dataclass(frozen=True)
class ParameterDefinition:
    key: str
    default: float | date
    unit: str
    title: str
    citation: str
    kind: str = NUMBER


def _p(key, default, unit, title, citation, kind=NUMBER):
    return ParameterDefinition(key, default, unit, title, citation, kind)


GB50174_A = N_("GB 50174-2017 Appendix A (cold aisle / cabinet inlet); ASHRAE TC 9.9 recommended")

DEFINITIONS: tuple[ParameterDefinition, ...] = (
    # Site: inlet air (S1, S5).
    _p("site.inlet_temp_min_c", 18, "°C", N_("Inlet temperature, lowest allowed"), GB50174_A),
    _p("site.inlet_temp_max_c", 27, "°C", N_("Inlet temperature, highest allowed"), GB50174_A),
    _p(
        "site.target_temp_max_c",
        25,
        "°C",
        N_("Room temperature target, highest"),
        N_("Source article S5: room held at 18-25 °C"),
    ),
    _p("site.inlet_rh_max_pct", 60, "%", N_("Inlet relative humidity, highest allowed"), GB50174_A),
    _p("site.inlet_dew_point_min_c", 5.5, "°C", N_("Inlet dew point, lowest allowed"), GB50174_A),
    _p("site.inlet_dew_point_max_c", 15, "°C", N_("Inlet dew point, highest allowed"), GB50174_A),
    _p(
        "site.target_rh_min_pct",
        40,
        "%",
        N_("Room humidity target, lowest"),
        N_("Source article S1/S5: servers run stably at 40-60% RH"),
    ),
    _p(
        "site.humid_climate_rh_pct",
        60,
        "%",
        N_("Outdoor mean RH above which humidity control is required"),
        N_(
            "GB 50174-2017 Appendix A inlet RH ≤ 60%: outdoor air more humid than the inlet "
            "limit must be dehumidified (source article S1; Guiyang mean RH ≈ 80%)"
        ),
    ),
    # Site: cooling density (S2).
    _p(
        "site.air_cooling_practical_kw_per_rack",
        30,
        "kW",
        N_("Rack power that room air cooling handles without special measures"),
        N_("Rack-density bands: air with containment up to 30 kW per rack (research §3.7, G1)"),
    ),
    _p(
        "site.air_cooling_limit_kw_per_rack",
        40,
        "kW",
        N_("Rack power above which air cooling is not practical"),
        N_("Above about 40 kW per rack air is not practical; liquid needed (research §3.7, G1)"),
    ),
    _p(
        "site.rear_door_limit_kw_per_rack",
        60,
        "kW",
        N_("Rack power up to which rear-door or in-row heat exchangers suffice"),
        N_(
            "Rack-density bands: 30-60 kW with rear-door or in-row units; above, direct liquid (research §3.7, G1)"
        ),
    ),
    # Site: power (S3).
    _p(
        "site.ups_backup_target_min",
        30,
        N_("min"),
        N_("UPS backup time, source article target"),
        N_("Source article S3: UPS backup at least 30 minutes"),
    ),
    _p(
        "site.ups_backup_floor_min",
        15,
        N_("min"),
        N_("UPS backup time, standard floor"),
        N_("GB 50174-2017 §8.1 and Appendix A, Class A: UPS battery backup ≥ 15 min"),
    ),
    _p(
        "site.generator_start_max_s",
        15,
        N_("s"),
        N_("Diesel generator automatic start, longest"),
        N_("Source article S3: diesel generators start automatically within 15 s"),
    ),
    _p(
        "site.hvdc_efficiency_min_pct",
        94,
        "%",
        N_("HVDC conversion efficiency, lowest"),
        N_("Source article S3: HVDC conversion efficiency not below 94%"),
    ),
    # Site: room (S5).
    _p(
        "site.rack_footprint_m2",
        0.72,
        "m²",
        N_("Floor area one rack's weight rests on"),
        N_("A 600 mm × 1200 mm server rack; set it to the site's rack size (source article S5)"),
    ),
    # Site: network (S4).
    _p(
        "site.latency_max_ms",
        30,
        "ms",
        N_("Latency to East and South China, highest"),
        N_("Source article S4: latency to East and South China within 30 ms"),
    ),
    _p(
        "site.packet_loss_max_pct",
        0.1,
        "%",
        N_("Packet loss, must stay below"),
        N_("Source article S4: packet loss below 0.1%"),
    ),
    # Site: operations (S6).
    _p(
        "site.spare_parts_max_h",
        2,
        N_("h"),
        N_("Spare-part replacement time, longest"),
        N_("Source article S6: spare parts replaced within 2 hours"),
    ),
    _p(
        "site.fault_response_max_h",
        24,
        N_("h"),
        N_("Fault response time, longest"),
        N_("Source article S6: a 24-hour fault response mechanism"),
    ),
    # Vendor (V1-V2).
    _p(
        "vendor.expiry_warning_days",
        90,
        N_("days"),
        N_("Warn when a licence, certificate or assessment ends within"),
        N_("Issue 4: anything expiring within 90 days is a warning"),
    ),
    _p(
        "vendor.iso_audit_max_months",
        12,
        N_("months"),
        N_("Longest gap since the last ISO surveillance or recertification audit"),
        N_("ISO/IEC 17021-1: surveillance audits at least once a calendar year (research §4.3)"),
    ),
    _p(
        "vendor.mlps_assessment_max_months",
        12,
        N_("months"),
        N_("Longest gap since the last MLPS level 3 assessment"),
        N_("MLPS 2.0 (GB/T 22239-2019): level 3 assessed at least once a year (research §4.2)"),
    ),
    _p(
        "vendor.mlps_min_level",
        3,
        "",
        N_("Lowest MLPS level accepted"),
        N_("Source article V2: MLPS 2.0 level 3 (等保三级) assessment"),
    ),
    _p(
        "vendor.iso27001_2013_withdrawn_on",
        date(2025, 10, 31),
        "",
        N_("Date ISO/IEC 27001:2013 certificates ceased to be valid"),
        N_("IAF MD 26: transition to ISO/IEC 27001:2022 ended on 2025-10-31 (research §4.3)"),
        kind=DATE,
    ),
    # Hardware (H2-H4, A3).
    _p(
        "hw.sharded_min_gpus_per_server",
        4,
        N_("GPUs"),
        N_("GPUs per server from which an all-to-all link is required"),
        N_("Source article H2: inside a 4- or 8-GPU server NVLink all-to-all is the floor"),
    ),
    _p(
        "hw.nvme_min_usable_tb",
        8,
        "TB",
        N_("Local NVMe usable capacity, lowest"),
        N_("Source article H4: at least 8 TB of usable local NVMe"),
    ),
    _p(
        "hw.nvme_min_read_gbs",
        6,
        "GB/s",
        N_("Local NVMe sequential read, lowest"),
        N_("Source article H4: data loading at least 6 GB/s sequential read"),
    ),
    _p(
        "hw.cuda_min_major",
        12,
        "",
        N_("CUDA major version, lowest"),
        N_("Source article A3: PyTorch 2.x with CUDA 12.x (NVIDIA compatibility matrix)"),
    ),
    _p(
        "hw.pytorch_min_major",
        2,
        "",
        N_("PyTorch major version, lowest"),
        N_("Source article A3: PyTorch 2.x with CUDA 12.x"),
    ),
    _p(
        "hw.availability_max_age_days",
        90,
        N_("days"),
        N_("Availability / export-control record older than this is stale"),
        N_(
            "Research china-costs-policy §6.2: server prices and availability go stale after 90 days"
        ),
    ),
)

DEFINITIONS_BY_KEY = {definition.key: definition for definition in DEFINITIONS}


class ParameterError(ValueError):
    """An override that names no parameter or cannot be read as its kind."""


def parse_value(key: str, text) -> float | date:
    """Read an override for ``key`` (text, number or date) as the parameter's kind."""
    definition = DEFINITIONS_BY_KEY.get(key)
    if definition is None:
        raise ParameterError(f"unknown rule parameter {key!r}")
    if definition.kind == DATE:
        if isinstance(text, date):
            return text
        try:
            return date.fromisoformat(str(text).strip())
        except ValueError as error:
            raise ParameterError(f"{key}: {text!r} is not a date (YYYY-MM-DD)") from error
    try:
        number = Decimal(str(text).strip())
    except InvalidOperation as error:
        raise ParameterError(f"{key}: {text!r} is not a number") from error
    if not number.is_finite():
        raise ParameterError(f"{key}: {text!r} is not a finite number")
    value = float(number)
    return int(value) if value == int(value) else value


@dataclass(frozen=True)
class Parameters:
    """Resolved parameter values; ``overridden`` names the keys an admin changed."""

    values: Mapping[str, float | date]
    overridden: frozenset[str] = frozenset()

    def __getitem__(self, key: str):
        return self.values[key]

    def definition(self, key: str) -> ParameterDefinition:
        return DEFINITIONS_BY_KEY[key]

    def as_rows(self) -> list[dict]:
        """Every parameter with value, unit, citation and origin, for a brief's appendix."""
        rows = []
        for definition in DEFINITIONS:
            value = self.values[definition.key]
            rows.append(
                {
                    "key": definition.key,
                    "title": definition.title,
                    "value": value.isoformat() if isinstance(value, date) else value,
                    "default": (
                        definition.default.isoformat()
                        if isinstance(definition.default, date)
                        else definition.default
                    ),
                    "unit": definition.unit,
                    "citation": definition.citation,
                    "overridden": definition.key in self.overridden,
                }
            )
        return rows


def resolve_parameters(overrides: Mapping[str, object] | None = None) -> Parameters:
    """Defaults with ``overrides`` applied; raises :class:`ParameterError` on a bad override."""
    values = {definition.key: definition.default for definition in DEFINITIONS}
    changed = set()
    for key, text in (overrides or {}).items():
        value = parse_value(key, text)
        if value != values[key]:
            changed.add(key)
        values[key] = value
    return Parameters(values, frozenset(changed))


DEFAULT_PARAMETERS = resolve_parameters()
