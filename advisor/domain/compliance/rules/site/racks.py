"""Site rules of the racks (S2, S3, S5): rack power against the data center, cooling able to
remove the rack's heat, floor and rack load, and the values these rules read."""

from __future__ import annotations

from advisor.domain.compliance.base import (
    Evidence,
    Status,
    figure,
    outcome,
    shown,
)
from advisor.domain.compliance.facts import (
    COOLING_REAR_DOOR,
    LIQUID_COOLING,
    ComplianceInput,
)
from advisor.domain.compliance.parameters import Parameters
from advisor.domain.compliance.rules.site.requirements import (
    DC_ALLOWS,
)
from advisor.domain.i18n import N_

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
