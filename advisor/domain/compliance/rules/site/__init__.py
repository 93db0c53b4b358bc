"""Site rules (source items S1-S6), one module by topic: ``climate`` (room climate and energy),
``racks`` (rack power, cooling and floor load), ``resilience`` (power supply, network,
operations). This module lists them as ``RULES`` in the order the report shows them."""

from __future__ import annotations

from advisor.domain.compliance import citations as cite
from advisor.domain.compliance.base import Area, Rule, Severity
from advisor.domain.compliance.rules.site.climate import (
    dew_point_c,
    humidity_control,
    inlet_humidity,
    inlet_temperature,
    pue,
)
from advisor.domain.compliance.rules.site.racks import (
    floor_load,
    floor_load_values,
    rack_cooling,
    rack_cooling_values,
    rack_power,
    rack_power_values,
)
from advisor.domain.compliance.rules.site.resilience import (
    bgp,
    contract_terms,
    dual_feeds,
    fault_response,
    generator_start,
    hvdc,
    latency,
    packet_loss,
    spare_parts,
    staff_on_site,
    ups_backup,
)
from advisor.domain.i18n import N_

__all__ = ["RULES", "dew_point_c"]

RULES = (
    Rule(
        "SITE-INLET-TEMP",
        Area.SITE,
        N_("Inlet temperature"),
        N_("The cold aisle must stay within the inlet envelope; the buyer aims for 18-25 °C."),
        cite.INLET_ENVELOPE,
        Severity.BLOCKER,
        inlet_temperature,
        ("site.inlet_temp_min_c", "site.inlet_temp_max_c", "site.target_temp_max_c"),
        reads=("data_center",),
    ),
    Rule(
        "SITE-INLET-HUMIDITY",
        Area.SITE,
        N_("Inlet humidity"),
        N_(
            "Inlet air must stay within the dew-point and RH envelope; the buyer aims for 40-60% RH."
        ),
        cite.INLET_ENVELOPE,
        Severity.BLOCKER,
        inlet_humidity,
        (
            "site.inlet_rh_max_pct",
            "site.inlet_dew_point_min_c",
            "site.inlet_dew_point_max_c",
            "site.target_rh_min_pct",
        ),
        reads=("data_center",),
    ),
    Rule(
        "SITE-HUMIDITY-CONTROL",
        Area.SITE,
        N_("Humidity control in a humid climate"),
        N_(
            "Where the outdoor air is humid (Guiyang ≈ 80% RH), the room needs precision humidity control against condensation."
        ),
        cite.HUMIDITY_CONTROL,
        Severity.WARNING,
        humidity_control,
        ("site.humid_climate_rh_pct",),
        reads=("data_center",),
    ),
    Rule(
        "SITE-PUE",
        Area.SITE,
        N_("PUE against the policy zone"),
        N_("The data center's PUE must not exceed the limit of its policy zone."),
        cite.PUE,
        Severity.BLOCKER,
        pue,
        reads=("data_center", "zone"),
    ),
    Rule(
        "SITE-RACK-POWER",
        Area.SITE,
        N_("Power per rack"),
        N_("The option's power per rack must fit the data center's maximum per rack."),
        cite.RACK_POWER,
        Severity.BLOCKER,
        rack_power,
        reads=("data_center", "option"),
        reads_values=rack_power_values,
    ),
    Rule(
        "SITE-RACK-COOLING",
        Area.SITE,
        N_("Cooling for the rack density"),
        N_(
            "Air cooling is practical only up to roughly 30-40 kW per rack; rear-door units reach about 60 kW; above that liquid cooling is needed."
        ),
        cite.RACK_COOLING,
        Severity.BLOCKER,
        rack_cooling,
        (
            "site.air_cooling_practical_kw_per_rack",
            "site.air_cooling_limit_kw_per_rack",
            "site.rear_door_limit_kw_per_rack",
        ),
        reads=("data_center", "option", "server"),
        reads_values=rack_cooling_values,
    ),
    Rule(
        "SITE-DUAL-FEED",
        Area.SITE,
        N_("Dual utility feeds"),
        N_("The site needs two independent utility supplies."),
        cite.DUAL_FEED,
        Severity.BLOCKER,
        dual_feeds,
        reads=("data_center",),
    ),
    Rule(
        "SITE-UPS",
        Area.SITE,
        N_("UPS backup time"),
        N_(
            "UPS batteries must bridge a utility loss; the buyer asks for 30 min, GB 50174 Class A for 15 min."
        ),
        cite.UPS,
        Severity.BLOCKER,
        ups_backup,
        ("site.ups_backup_target_min", "site.ups_backup_floor_min"),
        reads=("data_center",),
    ),
    Rule(
        "SITE-GENERATOR",
        Area.SITE,
        N_("Generator start time"),
        N_("Diesel generators must start automatically within 15 s."),
        cite.GENERATOR,
        Severity.BLOCKER,
        generator_start,
        ("site.generator_start_max_s",),
        reads=("data_center",),
    ),
    Rule(
        "SITE-HVDC",
        Area.SITE,
        N_("HVDC supply efficiency"),
        N_("Servers should run on high-voltage DC with a conversion efficiency of at least 94%."),
        cite.HVDC,
        Severity.WARNING,
        hvdc,
        ("site.hvdc_efficiency_min_pct",),
        reads=("data_center",),
    ),
    Rule(
        "SITE-FLOOR-LOAD",
        Area.SITE,
        N_("Rack and floor load"),
        N_(
            "The servers in one rack must not exceed the rated load of the rack position or of the floor under it; 8-GPU servers weigh over 130 kg."
        ),
        cite.FLOOR_LOAD,
        Severity.BLOCKER,
        floor_load,
        ("site.rack_footprint_m2",),
        reads=("data_center", "option"),
        reads_values=floor_load_values,
    ),
    Rule(
        "SITE-BGP",
        Area.SITE,
        N_("Multi-carrier BGP"),
        N_("The site should have multi-carrier BGP bandwidth."),
        cite.BGP,
        Severity.WARNING,
        bgp,
        reads=("data_center",),
    ),
    Rule(
        "SITE-LATENCY",
        Area.SITE,
        N_("Latency to East and South China"),
        N_(
            "For co-scheduling with eastern nodes, latency to East and South China must be within 30 ms."
        ),
        cite.LATENCY,
        Severity.WARNING,
        latency,
        ("site.latency_max_ms",),
        reads=("data_center",),
    ),
    Rule(
        "SITE-PACKET-LOSS",
        Area.SITE,
        N_("Packet loss"),
        N_("Cross-region co-scheduling needs packet loss below 0.1%."),
        cite.PACKET_LOSS,
        Severity.WARNING,
        packet_loss,
        ("site.packet_loss_max_pct",),
        reads=("data_center",),
    ),
    Rule(
        "SITE-STAFF-24X7",
        Area.SITE,
        N_("7×24 on-site staff"),
        N_("Engineers must be on site around the clock."),
        cite.STAFF_24X7,
        Severity.WARNING,
        staff_on_site,
        reads=("data_center",),
    ),
    Rule(
        "SITE-SPARE-PARTS",
        Area.SITE,
        N_("Spare-part replacement time"),
        N_("Failed hardware parts must be replaced within 2 hours from on-site stock."),
        cite.SPARE_PARTS,
        Severity.WARNING,
        spare_parts,
        ("site.spare_parts_max_h",),
        reads=("data_center",),
    ),
    Rule(
        "SITE-FAULT-RESPONSE",
        Area.SITE,
        N_("Fault response time"),
        N_("The vendor must respond to hardware faults around the clock, within 24 hours."),
        cite.FAULT_RESPONSE,
        Severity.WARNING,
        fault_response,
        ("site.fault_response_max_h",),
        reads=("data_center",),
    ),
    Rule(
        "SITE-CONTRACT-MTTR",
        Area.SITE,
        N_("MTTR and compensation in the contract"),
        N_(
            "The contract must state the mean time to repair and the compensation when it is missed."
        ),
        cite.CONTRACT_MTTR,
        Severity.WARNING,
        contract_terms,
        reads=("data_center",),
    ),
)
