"""Site rules (source items S1-S6): room climate, energy, power, floor, network, operations."""

from __future__ import annotations

import math

from advisor.domain.compliance import citations as cite
from advisor.domain.compliance.base import (
    NOT_RECORDED,
    Area,
    Evidence,
    Rule,
    Severity,
    Status,
    figure,
    outcome,
    shown,
)
from advisor.domain.compliance.facts import (
    COOLING_REAR_DOOR,
    LIQUID_COOLING,
    PUE_MEASURED,
    ComplianceInput,
)
from advisor.domain.compliance.parameters import Parameters
from advisor.domain.i18n import N_, Message

# Who requires a figure, when it is not the rule's own standard (Evidence.requirement).
BUYER_AT_MOST = N_("the buyer asks for at most {threshold}")
BUYER_AT_LEAST = N_("the buyer asks for at least {threshold}")
DC_ALLOWS = N_("the data center allows at most {threshold}")

# --- S1/S5: inlet temperature -------------------------------------------------------------


def inlet_temperature(facts: ComplianceInput, params: Parameters):
    dc = facts.data_center
    low, high = params["site.inlet_temp_min_c"], params["site.inlet_temp_max_c"]
    target_high = params["site.target_temp_max_c"]
    held_low, held_high = figure(dc.inlet_temp_min_c), figure(dc.inlet_temp_max_c)
    evidence = (
        Evidence(N_("The lowest inlet temperature the room holds"), held_low, low, "°C", ">="),
        Evidence(N_("The highest inlet temperature the room holds"), held_high, high, "°C", "<="),
        Evidence(
            N_("The highest inlet temperature the room holds"),
            held_high,
            target_high,
            "°C",
            "<=",
            requirement=BUYER_AT_MOST,
        ),
    )
    if held_low is not None and held_low < low:
        return outcome(
            Status.FAIL,
            N_(
                "The room runs as cold as {held} °C, below the {limit} °C floor of the inlet envelope."
            ),
            evidence,
            held=held_low,
            limit=low,
        )
    if held_high is not None and held_high > high:
        return outcome(
            Status.FAIL,
            N_(
                "The room runs as warm as {held} °C, above the {limit} °C ceiling of the inlet envelope."
            ),
            evidence,
            held=held_high,
            limit=high,
        )
    if held_low is None or held_high is None:
        return outcome(
            Status.UNKNOWN,
            N_("The inlet temperature range the room holds is not recorded."),
            evidence,
        )
    if held_high > target_high:
        return outcome(
            Status.WARN,
            N_(
                "The room holds {low}-{high} °C: inside the {env_low}-{env_high} °C envelope but "
                "warmer than the buyer's {target} °C target."
            ),
            evidence,
            low=held_low,
            high=held_high,
            env_low=low,
            env_high=high,
            target=target_high,
        )
    return outcome(
        Status.PASS,
        N_(
            "The room holds {low}-{high} °C, inside the {env_low}-{env_high} °C envelope and the target."
        ),
        evidence,
        low=held_low,
        high=held_high,
        env_low=low,
        env_high=high,
    )


# --- S1/S5: inlet humidity ----------------------------------------------------------------


def dew_point_c(temp_c: float, rh_pct: float) -> float:
    """Dew point by the Magnus formula (Alduchov & Eskridge 1996 constants)."""
    a, b = 17.625, 243.04
    gamma = math.log(rh_pct / 100.0) + a * temp_c / (b + temp_c)
    return b * gamma / (a - gamma)


def _dew_point_band(dc):
    """Recorded dew-point band, or the band at the corners of the held ranges (derived)."""
    if dc.inlet_dew_point_min_c is not None and dc.inlet_dew_point_max_c is not None:
        return dc.inlet_dew_point_min_c, dc.inlet_dew_point_max_c, False
    corners = (dc.inlet_temp_min_c, dc.inlet_temp_max_c, dc.inlet_rh_min_pct, dc.inlet_rh_max_pct)
    if any(value is None for value in corners) or min(corners[2:]) <= 0:
        return None, None, False
    lowest = dew_point_c(dc.inlet_temp_min_c, dc.inlet_rh_min_pct)
    highest = dew_point_c(dc.inlet_temp_max_c, dc.inlet_rh_max_pct)
    return lowest, highest, True


def inlet_humidity(facts: ComplianceInput, params: Parameters):
    dc = facts.data_center
    rh_limit = params["site.inlet_rh_max_pct"]
    dp_low, dp_high = params["site.inlet_dew_point_min_c"], params["site.inlet_dew_point_max_c"]
    target_low = params["site.target_rh_min_pct"]
    dp_min, dp_max, derived = _dew_point_band(dc)
    dp_min, dp_max = (
        figure(None if dp_min is None else round(dp_min, 1)),
        figure(None if dp_max is None else round(dp_max, 1)),
    )
    rh_min, rh_max = figure(dc.inlet_rh_min_pct), figure(dc.inlet_rh_max_pct)
    lowest_dp, highest_dp = (
        (
            N_("The lowest inlet dew point, derived from the held ranges"),
            N_("The highest inlet dew point, derived from the held ranges"),
        )
        if derived
        else (
            N_("The lowest inlet dew point the room holds"),
            N_("The highest inlet dew point the room holds"),
        )
    )
    evidence = (
        Evidence(
            N_("The highest inlet relative humidity the room holds"), rh_max, rh_limit, "%", "<="
        ),
        Evidence(
            N_("The lowest inlet relative humidity the room holds"),
            rh_min,
            target_low,
            "%",
            ">=",
            requirement=BUYER_AT_LEAST,
        ),
        Evidence(lowest_dp, dp_min, dp_low, "°C", ">="),
        Evidence(highest_dp, dp_max, dp_high, "°C", "<="),
    )
    if rh_max is not None and rh_max > rh_limit:
        return outcome(
            Status.FAIL,
            N_("The room lets humidity reach {held}% RH, above the {limit}% limit."),
            evidence,
            held=rh_max,
            limit=rh_limit,
        )
    if not derived and dp_min is not None and dp_min < dp_low:
        return outcome(
            Status.FAIL,
            N_("The dew point falls to {held} °C, below the {limit} °C floor."),
            evidence,
            held=dp_min,
            limit=dp_low,
        )
    if not derived and dp_max is not None and dp_max > dp_high:
        return outcome(
            Status.FAIL,
            N_("The dew point rises to {held} °C, above the {limit} °C ceiling."),
            evidence,
            held=dp_max,
            limit=dp_high,
        )
    if rh_min is None or rh_max is None or dp_min is None:
        return outcome(
            Status.UNKNOWN, N_("The inlet humidity range the room holds is not recorded."), evidence
        )
    if derived and (dp_min < dp_low or dp_max > dp_high):
        return outcome(
            Status.UNKNOWN,
            N_(
                "The dew-point band is not recorded; at the corners of the held ranges it would "
                "span {low}-{high} °C against the {env_low}-{env_high} °C envelope. Ask for the "
                "dew-point control band."
            ),
            evidence,
            low=dp_min,
            high=dp_max,
            env_low=dp_low,
            env_high=dp_high,
        )
    if rh_min < target_low:
        return outcome(
            Status.WARN,
            N_(
                "Humidity may fall to {held}% RH: allowed by the standard but below the buyer's "
                "{target}% target for stable running."
            ),
            evidence,
            held=rh_min,
            target=target_low,
        )
    return outcome(
        Status.PASS,
        N_("The room holds {low}-{high}% RH with the dew point at {dp_low}-{dp_high} °C."),
        evidence,
        low=rh_min,
        high=rh_max,
        dp_low=dp_min,
        dp_high=dp_max,
    )


# --- S1: humidity control in a humid climate ------------------------------------------------


def humidity_control(facts: ComplianceInput, params: Parameters):
    dc = facts.data_center
    limit = params["site.humid_climate_rh_pct"]
    climate = figure(dc.climate_mean_rh_pct)
    evidence = (
        Evidence(
            N_("The outdoor mean relative humidity"),
            climate,
            limit,
            "%",
            "<=",
            requirement=N_("above {threshold}, precision humidity control is needed"),
        ),
        Evidence(
            N_("Precision humidity control in the room"),
            dc.precision_humidity_control,
            True,
            "",
            "==",
        ),
    )
    if dc.precision_humidity_control:
        return outcome(Status.PASS, N_("The room has precision humidity control."), evidence)
    humid = None if climate is None else climate > limit
    if humid is False:
        return outcome(
            Status.PASS,
            N_(
                "The outdoor mean RH of {rh}% does not exceed {limit}%; humidity control is optional."
            ),
            evidence,
            rh=climate,
            limit=limit,
        )
    if humid and dc.precision_humidity_control is False:
        return outcome(
            Status.FAIL,
            N_(
                "The outdoor mean RH is {rh}% (above {limit}%) and the room has no precision "
                "humidity control: circuit boards risk condensation in the rainy season."
            ),
            evidence,
            rh=climate,
            limit=limit,
        )
    return outcome(
        Status.UNKNOWN,
        N_(
            "Whether the room has precision humidity control, or how humid the climate is, is not recorded."
        ),
        evidence,
    )


# --- S2: PUE against the policy zone ------------------------------------------------------


def pue(facts: ComplianceInput, params: Parameters):
    dc, zone = facts.data_center, facts.zone
    value, limit = figure(dc.pue), figure(zone.pue_limit)
    evidence = (
        Evidence(
            N_("The data center's PUE"),
            value,
            limit,
            "",
            "<=",
            requirement=N_("its policy zone allows at most {threshold}"),
        ),
        Evidence(
            N_("The kind of PUE figure"),
            dc.pue_basis if value is not None else None,
            PUE_MEASURED,
            "",
            "==",
            "pue-basis",
        ),
    )
    # The zone's name in the reader's language; its policy document is the rule's citation and
    # the zone's own source (the catalog's text is not repeated inside the sentence).
    zone_names = {"zone": zone.name or zone.key or "—", "zone_zh": zone.name_zh or ""}
    if value is None or limit is None:
        return outcome(
            Status.UNKNOWN,
            N_("The data center's PUE or the policy zone's PUE limit is not recorded."),
            evidence,
        )
    if value > limit:
        return outcome(
            Status.FAIL,
            N_(
                "PUE {pue} is above the limit of {limit} in the {zone} policy zone; capacity expansion approval is at risk."
            ),
            evidence,
            pue=value,
            limit=limit,
            **zone_names,
        )
    if dc.pue_basis != PUE_MEASURED:
        return outcome(
            Status.WARN,
            N_(
                "PUE {pue} meets the limit of {limit} in the {zone} policy zone but is not a measured annual figure; ask for the measured PUE."
            ),
            evidence,
            pue=value,
            limit=limit,
            **zone_names,
        )
    return outcome(
        Status.PASS,
        N_("Measured PUE {pue} is within the limit of {limit} in the {zone} policy zone."),
        evidence,
        pue=value,
        limit=limit,
        **zone_names,
    )


# --- The values the rack rules read (Rule.reads_values) ---------------------------------------


def _typed(*values) -> tuple:
    """Each value with its type (an int and an equal float or bool are told apart)."""
    return tuple((type(value), value) for value in values)


def rack_power_values(facts: ComplianceInput) -> tuple:
    option = facts.option
    return _typed(
        option.rack_power_max_kw, option.rack_power_typical_kw, facts.data_center.max_rack_kw
    )


def rack_cooling_values(facts: ComplianceInput) -> tuple:
    server = facts.server
    return (
        *_typed(facts.option.rack_power_max_kw),
        facts.data_center.cooling_kinds,
        server is None,
        None if server is None else server.cooling,
    )


def floor_load_values(facts: ComplianceInput) -> tuple:
    dc = facts.data_center
    return _typed(facts.option.rack_load_kg, dc.floor_load_kg_per_m2, dc.rack_max_load_kg)


# --- S2/H3: rack power against the data center ----------------------------------------------


def rack_power(facts: ComplianceInput, params: Parameters):
    option, dc = facts.option, facts.data_center
    full, typical = figure(option.rack_power_max_kw), figure(option.rack_power_typical_kw)
    limit = figure(dc.max_rack_kw)
    evidence = (
        Evidence(
            N_("The power per rack at full load"),
            full,
            limit,
            "kW",
            "<=",
            requirement=DC_ALLOWS,
        ),
        Evidence(
            N_("The typical power per rack"),
            typical,
            limit,
            "kW",
            "<=",
            requirement=DC_ALLOWS,
        ),
    )
    if limit is None:
        return outcome(
            Status.UNKNOWN,
            N_("The data center's maximum power per rack is not recorded."),
            evidence,
        )
    if full is not None and full <= limit:
        return outcome(
            Status.PASS,
            N_("{full} kW per rack at full load fits the data center's {limit} kW per rack."),
            evidence,
            full=full,
            limit=limit,
        )
    if typical is not None and typical > limit:
        return outcome(
            Status.FAIL,
            N_(
                "Even the typical draw of {typical} kW per rack exceeds the data center's {limit} kW; put fewer servers in each rack."
            ),
            evidence,
            typical=typical,
            limit=limit,
        )
    if full is not None and typical is not None:
        return outcome(
            Status.WARN,
            N_(
                "Full load ({full} kW per rack) exceeds the data center's {limit} kW while the "
                "typical draw ({typical} kW) fits: only with power capping, or fewer servers per rack."
            ),
            evidence,
            full=full,
            typical=typical,
            limit=limit,
        )
    return outcome(Status.UNKNOWN, N_("The option's power per rack is not known."), evidence)


# --- S2: cooling able to remove the rack's heat ----------------------------------------------


def rack_cooling(facts: ComplianceInput, params: Parameters):
    option, dc, server = facts.option, facts.data_center, facts.server
    practical = params["site.air_cooling_practical_kw_per_rack"]
    air_limit = params["site.air_cooling_limit_kw_per_rack"]
    full = figure(option.rack_power_max_kw)
    kinds = None if dc.cooling_kinds is None else set(dc.cooling_kinds)
    evidence = (
        Evidence(
            N_("The power per rack at full load"),
            full,
            practical,
            "kW",
            "<=",
            requirement=N_("plain air cooling handles up to {threshold}"),
        ),
        Evidence(
            N_("The power per rack at full load"),
            full,
            air_limit,
            "kW",
            "<=",
            requirement=N_("air cooling is practical up to about {threshold}"),
        ),
        Evidence(
            N_("The cooling the data center offers"),
            None if kinds is None else tuple(sorted(kinds)),
            None,
            "",
            "",
            "cooling",
        ),
    )
    liquid = None if kinds is None else bool(kinds & set(LIQUID_COOLING))
    result = _rack_density(option, server, kinds, liquid, evidence, params)
    # A server whose cooling no source states may need liquid cooling: where the site offers
    # none (or does not say), that is an open question, never a pass and never a fail.
    if (
        server is not None
        and not server.cooling
        and not liquid
        and result.status in (Status.PASS, Status.WARN)
    ):
        if liquid is None:
            return outcome(
                Status.UNKNOWN,
                N_(
                    "Neither the server's cooling (air or liquid) nor the data center's "
                    "cooling is recorded: ask both."
                ),
                evidence,
            )
        return outcome(
            Status.UNKNOWN,
            N_(
                "The server's cooling (air or liquid) is not recorded and the data center "
                "offers no liquid cooling: ask the vendor whether this model is air-cooled."
            ),
            evidence,
        )
    return result


def _rack_density(option, server, kinds, liquid, evidence, params):
    practical = params["site.air_cooling_practical_kw_per_rack"]
    air_limit = params["site.air_cooling_limit_kw_per_rack"]
    rear_door_limit = params["site.rear_door_limit_kw_per_rack"]
    full = figure(option.rack_power_max_kw)
    offered = shown(tuple(sorted(kinds)), words="cooling") if kinds else None
    if server is not None and server.cooling == "liquid" and not liquid:
        if liquid is None:
            return outcome(
                Status.UNKNOWN,
                N_("The server is liquid-cooled; the data center's cooling is not recorded."),
                evidence,
            )
        return outcome(
            Status.FAIL,
            N_("The server is liquid-cooled but the data center offers no liquid cooling."),
            evidence,
        )
    if full is None:
        return outcome(Status.UNKNOWN, N_("The option's power per rack is not known."), evidence)
    if full <= practical:
        return outcome(
            Status.PASS,
            N_("{full} kW per rack is within what air cooling handles ({limit} kW)."),
            evidence,
            full=full,
            limit=practical,
        )
    if kinds is None:
        return outcome(
            Status.UNKNOWN,
            N_(
                "{full} kW per rack needs containment or liquid cooling; the data center's cooling is not recorded."
            ),
            evidence,
            full=full,
        )
    if liquid or (COOLING_REAR_DOOR in kinds and full <= rear_door_limit):
        return outcome(
            Status.PASS,
            N_("{full} kW per rack is above plain air cooling; the data center offers {cooling}."),
            evidence,
            full=full,
            cooling=offered,
        )
    if full <= air_limit:
        return outcome(
            Status.WARN,
            N_(
                "{full} kW per rack is air-coolable only with hot-aisle containment, rear-door or "
                "in-row units (air is practical up to about {limit} kW)."
            ),
            evidence,
            full=full,
            limit=air_limit,
        )
    return outcome(
        Status.FAIL,
        N_(
            "{full} kW per rack is beyond what the data center's cooling ({cooling}) can remove; liquid cooling is needed."
        ),
        evidence,
        full=full,
        cooling=offered,
    )


# --- S3: power ------------------------------------------------------------------------------


def dual_feeds(facts: ComplianceInput, params: Parameters):
    value = facts.data_center.dual_utility_feeds
    evidence = (Evidence(N_("Two independent utility feeds"), value, True, "", "=="),)
    if value is None:
        return outcome(
            Status.UNKNOWN, N_("Whether the site has dual utility feeds is not recorded."), evidence
        )
    if value:
        return outcome(
            Status.PASS, N_("The site is fed by two independent utility supplies."), evidence
        )
    return outcome(Status.FAIL, N_("The site has a single utility feed."), evidence)


def ups_backup(facts: ComplianceInput, params: Parameters):
    minutes = figure(facts.data_center.ups_backup_min)
    target, floor = params["site.ups_backup_target_min"], params["site.ups_backup_floor_min"]
    evidence = (
        Evidence(
            N_("The UPS backup time"), minutes, target, N_("min"), ">=", requirement=BUYER_AT_LEAST
        ),
        Evidence(
            N_("The UPS backup time"),
            minutes,
            floor,
            N_("min"),
            ">=",
            requirement=N_("GB 50174 Class A requires at least {threshold}"),
        ),
    )
    if minutes is None:
        return outcome(Status.UNKNOWN, N_("The UPS backup time is not recorded."), evidence)
    if minutes >= target:
        return outcome(
            Status.PASS,
            N_("UPS backup of {minutes} min meets the {target} min target."),
            evidence,
            minutes=minutes,
            target=target,
        )
    if minutes >= floor:
        return outcome(
            Status.WARN,
            N_(
                "UPS backup of {minutes} min meets GB 50174 Class A ({floor} min) but not the buyer's {target} min."
            ),
            evidence,
            minutes=minutes,
            floor=floor,
            target=target,
        )
    return outcome(
        Status.FAIL,
        N_("UPS backup of {minutes} min is below the {floor} min of GB 50174 Class A."),
        evidence,
        minutes=minutes,
        floor=floor,
    )


def generator_start(facts: ComplianceInput, params: Parameters):
    seconds = figure(facts.data_center.generator_start_s)
    limit = params["site.generator_start_max_s"]
    evidence = (
        Evidence(
            N_("The diesel generators' automatic start time"),
            seconds,
            limit,
            N_("s"),
            "<=",
            requirement=BUYER_AT_MOST,
        ),
    )
    if seconds is None:
        return outcome(
            Status.UNKNOWN, N_("The diesel generator start time is not recorded."), evidence
        )
    if seconds <= limit:
        return outcome(
            Status.PASS,
            N_("Diesel generators start within {seconds} s (limit {limit} s)."),
            evidence,
            seconds=seconds,
            limit=limit,
        )
    return outcome(
        Status.FAIL,
        N_("Diesel generators take {seconds} s to start, longer than {limit} s."),
        evidence,
        seconds=seconds,
        limit=limit,
    )


def hvdc(facts: ComplianceInput, params: Parameters):
    dc = facts.data_center
    efficiency = figure(dc.hvdc_efficiency_pct)
    limit = params["site.hvdc_efficiency_min_pct"]
    evidence = (
        Evidence(
            N_("The HVDC conversion efficiency"),
            efficiency,
            limit,
            "%",
            ">=",
            requirement=BUYER_AT_LEAST,
        ),
    )
    if dc.hvdc is False:
        return outcome(
            Status.WARN,
            N_(
                "The site supplies AC only, without HVDC; the {limit}% HVDC efficiency the buyer asks for is not available."
            ),
            evidence,
            limit=limit,
        )
    if efficiency is None:
        return outcome(
            Status.UNKNOWN,
            N_("HVDC supply and its conversion efficiency are not recorded."),
            evidence,
        )
    if efficiency >= limit:
        return outcome(
            Status.PASS,
            N_("HVDC conversion efficiency is {efficiency}% (at least {limit}%)."),
            evidence,
            efficiency=efficiency,
            limit=limit,
        )
    return outcome(
        Status.FAIL,
        N_("HVDC conversion efficiency is {efficiency}%, below {limit}%."),
        evidence,
        efficiency=efficiency,
        limit=limit,
    )


# --- S5: floor / rack load --------------------------------------------------------------------


def floor_load(facts: ComplianceInput, params: Parameters):
    dc = facts.data_center
    load = figure(facts.option.rack_load_kg)
    footprint = params["site.rack_footprint_m2"]
    floor_allows = None
    if dc.floor_load_kg_per_m2 is not None:
        floor_allows = figure(dc.floor_load_kg_per_m2 * footprint)
    position_allows = figure(dc.rack_max_load_kg)
    evidence = (
        Evidence(
            N_("The weight of the servers in one rack"),
            load,
            position_allows,
            "kg",
            "<=",
            requirement=N_("the rack position is rated for {threshold}"),
        ),
        Evidence(
            N_("The weight of the servers in one rack"),
            load,
            floor_allows,
            "kg",
            "<=",
            requirement=N_("the floor under one rack is rated for {threshold}"),
        ),
    )
    limits = [limit for limit in (position_allows, floor_allows) if limit is not None]
    if load is None or not limits:
        return outcome(
            Status.UNKNOWN,
            N_("The weight per rack or the site's rated floor load is not known."),
            evidence,
        )
    limit = min(limits)
    if load <= limit:
        return outcome(
            Status.PASS,
            N_("{load} kg of servers per rack is within the rated {limit} kg."),
            evidence,
            load=load,
            limit=limit,
        )
    return outcome(
        Status.FAIL,
        N_(
            "{load} kg of servers per rack exceeds the rated {limit} kg: reinforce the base or use fewer servers per rack."
        ),
        evidence,
        load=load,
        limit=limit,
    )


# --- S4: network ----------------------------------------------------------------------------


def bgp(facts: ComplianceInput, params: Parameters):
    value = facts.data_center.multi_carrier_bgp
    evidence = (Evidence(N_("Multi-carrier BGP bandwidth"), value, True, "", "=="),)
    if value is None:
        return outcome(
            Status.UNKNOWN, N_("Whether the site has multi-carrier BGP is not recorded."), evidence
        )
    if value:
        return outcome(Status.PASS, N_("The site has multi-carrier BGP bandwidth."), evidence)
    return outcome(Status.FAIL, N_("The site has no multi-carrier BGP bandwidth."), evidence)


def latency(facts: ComplianceInput, params: Parameters):
    dc = facts.data_center
    limit = params["site.latency_max_ms"]
    east, south = figure(dc.latency_east_china_ms), figure(dc.latency_south_china_ms)
    evidence = (
        Evidence(
            N_("The latency to East China"), east, limit, "ms", "<=", requirement=BUYER_AT_MOST
        ),
        Evidence(
            N_("The latency to South China"), south, limit, "ms", "<=", requirement=BUYER_AT_MOST
        ),
    )
    worst = max((v for v in (east, south) if v is not None), default=None)
    if worst is not None and worst > limit:
        return outcome(
            Status.FAIL,
            N_(
                "Latency reaches {latency} ms, above {limit} ms (East China: {east}; South China: {south})."
            ),
            evidence,
            latency=worst,
            limit=limit,
            east=_or_not_recorded(east, "ms"),
            south=_or_not_recorded(south, "ms"),
        )
    if east is None or south is None:
        return outcome(
            Status.UNKNOWN, N_("Latency to East China or South China is not recorded."), evidence
        )
    return outcome(
        Status.PASS,
        N_("Latency is {east} ms to East China and {south} ms to South China (limit {limit} ms)."),
        evidence,
        east=east,
        south=south,
        limit=limit,
    )


def _or_not_recorded(value, unit: str = ""):
    """A figure with its unit, or "not recorded" in the reader's language."""
    return Message(NOT_RECORDED) if value is None else shown(value, unit)


def packet_loss(facts: ComplianceInput, params: Parameters):
    loss = figure(facts.data_center.packet_loss_pct)
    limit = params["site.packet_loss_max_pct"]
    evidence = (
        Evidence(
            N_("The packet loss"),
            loss,
            limit,
            "%",
            "<",
            requirement=N_("the buyer asks for less than {threshold}"),
        ),
    )
    if loss is None:
        return outcome(Status.UNKNOWN, N_("Packet loss is not recorded."), evidence)
    if loss < limit:
        return outcome(
            Status.PASS,
            N_("Packet loss of {loss}% is below {limit}%."),
            evidence,
            loss=loss,
            limit=limit,
        )
    return outcome(
        Status.FAIL,
        N_("Packet loss of {loss}% is not below {limit}%."),
        evidence,
        loss=loss,
        limit=limit,
    )


# --- S6: operations ---------------------------------------------------------------------------


def staff_on_site(facts: ComplianceInput, params: Parameters):
    value = facts.data_center.staff_24x7_on_site
    evidence = (Evidence(N_("Engineers on site 7×24"), value, True, "", "=="),)
    if value is None:
        return outcome(
            Status.UNKNOWN, N_("Whether staff are on site 7×24 is not recorded."), evidence
        )
    if value:
        return outcome(Status.PASS, N_("Engineers are on site 7×24."), evidence)
    return outcome(Status.FAIL, N_("The site is not staffed 7×24."), evidence)


def spare_parts(facts: ComplianceInput, params: Parameters):
    hours = figure(facts.data_center.spare_parts_replacement_h)
    limit = params["site.spare_parts_max_h"]
    evidence = (
        Evidence(
            N_("The spare-part replacement time"),
            hours,
            limit,
            N_("h"),
            "<=",
            requirement=BUYER_AT_MOST,
        ),
    )
    if hours is None:
        return outcome(
            Status.UNKNOWN, N_("The spare-part replacement time is not recorded."), evidence
        )
    if hours <= limit:
        return outcome(
            Status.PASS,
            N_("Failed parts are replaced within {hours} h (limit {limit} h)."),
            evidence,
            hours=hours,
            limit=limit,
        )
    return outcome(
        Status.FAIL,
        N_("Failed parts take {hours} h to replace, longer than {limit} h."),
        evidence,
        hours=hours,
        limit=limit,
    )


def fault_response(facts: ComplianceInput, params: Parameters):
    hours = figure(facts.data_center.fault_response_h)
    limit = params["site.fault_response_max_h"]
    evidence = (
        Evidence(
            N_("The fault response time"),
            hours,
            limit,
            N_("h"),
            "<=",
            requirement=BUYER_AT_MOST,
        ),
    )
    if hours is None:
        return outcome(Status.UNKNOWN, N_("The fault response time is not recorded."), evidence)
    if hours <= limit:
        return outcome(
            Status.PASS,
            N_("Faults are responded to within {hours} h (limit {limit} h)."),
            evidence,
            hours=hours,
            limit=limit,
        )
    return outcome(
        Status.FAIL,
        N_("Faults are responded to within {hours} h, longer than {limit} h."),
        evidence,
        hours=hours,
        limit=limit,
    )


def contract_terms(facts: ComplianceInput, params: Parameters):
    dc = facts.data_center
    mttr = figure(dc.contract_mttr_h)
    evidence = (
        Evidence(
            N_("The MTTR stated in the contract"),
            mttr if dc.contract_mttr_stated else dc.contract_mttr_stated,
            None,
            N_("h"),
            "",
        ),
        Evidence(
            N_("Compensation when the MTTR is missed"), dc.contract_compensation, True, "", "=="
        ),
    )
    if dc.contract_mttr_stated is False:
        return outcome(Status.FAIL, N_("The contract states no MTTR."), evidence)
    if dc.contract_mttr_stated and dc.contract_compensation is False:
        return outcome(
            Status.WARN,
            N_("The contract states an MTTR ({mttr}) but no compensation when it is missed."),
            evidence,
            mttr=_or_not_recorded(mttr, N_("h")),
        )
    if dc.contract_mttr_stated and dc.contract_compensation:
        return outcome(
            Status.PASS,
            N_("The contract states an MTTR ({mttr}) with compensation."),
            evidence,
            mttr=_or_not_recorded(mttr, N_("h")),
        )
    return outcome(
        Status.UNKNOWN, N_("The contract's MTTR and compensation terms are not recorded."), evidence
    )


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
