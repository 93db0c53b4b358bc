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

from advisor.domain.compliance import citations as cite
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


DEFINITIONS: tuple[ParameterDefinition, ...] = (
    # Site: inlet air (S1, S5).
    _p("site.inlet_temp_min_c", 18, "°C", N_("Inlet temperature, lowest allowed"), cite.P_INLET),
    _p("site.inlet_temp_max_c", 27, "°C", N_("Inlet temperature, highest allowed"), cite.P_INLET),
    _p(
        "site.target_temp_max_c",
        25,
        "°C",
        N_("Room temperature target, highest"),
        cite.P_TARGET_TEMP,
    ),
    _p(
        "site.inlet_rh_max_pct",
        60,
        "%",
        N_("Inlet relative humidity, highest allowed"),
        cite.P_INLET,
    ),
    _p(
        "site.inlet_dew_point_min_c", 5.5, "°C", N_("Inlet dew point, lowest allowed"), cite.P_INLET
    ),
    _p(
        "site.inlet_dew_point_max_c", 15, "°C", N_("Inlet dew point, highest allowed"), cite.P_INLET
    ),
    _p(
        "site.target_rh_min_pct",
        40,
        "%",
        N_("Room humidity target, lowest"),
        cite.P_TARGET_RH,
    ),
    _p(
        "site.humid_climate_rh_pct",
        60,
        "%",
        N_("Outdoor mean RH above which humidity control is required"),
        cite.P_HUMID_CLIMATE,
    ),
    # Site: cooling density (S2).
    _p(
        "site.air_cooling_practical_kw_per_rack",
        30,
        "kW",
        N_("Rack power that room air cooling handles without special measures"),
        cite.P_AIR_PRACTICAL,
    ),
    _p(
        "site.air_cooling_limit_kw_per_rack",
        40,
        "kW",
        N_("Rack power above which air cooling is not practical"),
        cite.P_AIR_LIMIT,
    ),
    _p(
        "site.rear_door_limit_kw_per_rack",
        60,
        "kW",
        N_("Rack power up to which rear-door or in-row heat exchangers suffice"),
        cite.P_REAR_DOOR,
    ),
    # Site: power (S3).
    _p(
        "site.ups_backup_target_min",
        30,
        N_("min"),
        N_("UPS backup time, buyer's target"),
        cite.P_UPS_TARGET,
    ),
    _p(
        "site.ups_backup_floor_min",
        15,
        N_("min"),
        N_("UPS backup time, standard floor"),
        cite.P_UPS_FLOOR,
    ),
    _p(
        "site.generator_start_max_s",
        15,
        N_("s"),
        N_("Diesel generator automatic start, longest"),
        cite.P_GENERATOR,
    ),
    _p(
        "site.hvdc_efficiency_min_pct",
        94,
        "%",
        N_("HVDC conversion efficiency, lowest"),
        cite.P_HVDC,
    ),
    # Site: room (S5).
    _p(
        "site.rack_footprint_m2",
        0.72,
        "m²",
        N_("Floor area one rack's weight rests on"),
        cite.P_RACK_FOOTPRINT,
    ),
    # Site: network (S4).
    _p(
        "site.latency_max_ms",
        30,
        "ms",
        N_("Latency to East and South China, highest"),
        cite.P_LATENCY,
    ),
    _p(
        "site.packet_loss_max_pct",
        0.1,
        "%",
        N_("Packet loss, must stay below"),
        cite.P_PACKET_LOSS,
    ),
    # Site: operations (S6).
    _p(
        "site.spare_parts_max_h",
        2,
        N_("h"),
        N_("Spare-part replacement time, longest"),
        cite.P_SPARE_PARTS,
    ),
    _p(
        "site.fault_response_max_h",
        24,
        N_("h"),
        N_("Fault response time, longest"),
        cite.P_FAULT_RESPONSE,
    ),
    # Vendor (V1-V2).
    _p(
        "vendor.expiry_warning_days",
        90,
        N_("days"),
        N_("Warn when a licence, certificate or assessment ends within"),
        cite.P_EXPIRY,
    ),
    _p(
        "vendor.iso_audit_max_months",
        12,
        N_("months"),
        N_("Longest gap since the last ISO surveillance or recertification audit"),
        cite.P_ISO_AUDIT,
    ),
    _p(
        "vendor.mlps_assessment_max_months",
        12,
        N_("months"),
        N_("Longest gap since the last MLPS level 3 assessment"),
        cite.P_MLPS_INTERVAL,
    ),
    _p(
        "vendor.mlps_min_level",
        3,
        "",
        N_("Lowest MLPS level accepted"),
        cite.P_MLPS_LEVEL,
    ),
    _p(
        "vendor.iso27001_2013_withdrawn_on",
        date(2025, 10, 31),
        "",
        N_("Date ISO/IEC 27001:2013 certificates ceased to be valid"),
        cite.P_ISO27001_2013,
        kind=DATE,
    ),
    # Hardware (H2-H4, A3).
    _p(
        "hw.sharded_min_gpus_per_server",
        4,
        N_("GPUs"),
        N_("GPUs per server from which an all-to-all link is required"),
        cite.P_SHARDED,
    ),
    _p(
        "hw.nvme_min_usable_tb",
        8,
        "TB",
        N_("Local NVMe usable capacity, lowest"),
        cite.P_NVME_CAPACITY,
    ),
    _p(
        "hw.nvme_min_read_gbs",
        6,
        "GB/s",
        N_("Local NVMe sequential read, lowest"),
        cite.P_NVME_READ,
    ),
    _p(
        "hw.cuda_min_major",
        12,
        "",
        N_("CUDA major version, lowest"),
        cite.P_CUDA,
    ),
    _p(
        "hw.pytorch_min_major",
        2,
        "",
        N_("PyTorch major version, lowest"),
        cite.P_PYTORCH,
    ),
    _p(
        "hw.availability_max_age_days",
        90,
        N_("days"),
        N_("Availability / export-control record older than this is stale"),
        cite.P_AVAILABILITY_AGE,
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
