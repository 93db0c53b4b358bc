"""Site rules of supply and service (S3, S4, S6): dual feeds, UPS and generator, HVDC; BGP,
latency and packet loss; staff, spare parts, fault response and contract terms."""

from __future__ import annotations

from advisor.domain.compliance.base import (
    NOT_RECORDED,
    Evidence,
    Status,
    figure,
    outcome,
    shown,
)
from advisor.domain.compliance.facts import (
    ComplianceInput,
)
from advisor.domain.compliance.parameters import Parameters
from advisor.domain.compliance.rules.site.requirements import (
    BUYER_AT_LEAST,
    BUYER_AT_MOST,
)
from advisor.domain.i18n import N_, Message

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
