"""Site rules of the room's climate and energy (S1, S2, S5): inlet temperature and humidity,
humidity control in a humid climate, PUE against the policy zone."""

from __future__ import annotations

import math

from advisor.domain.compliance.base import (
    Evidence,
    Status,
    figure,
    outcome,
)
from advisor.domain.compliance.facts import (
    PUE_MEASURED,
    ComplianceInput,
)
from advisor.domain.compliance.parameters import Parameters
from advisor.domain.compliance.rules.site.requirements import (
    BUYER_AT_LEAST,
    BUYER_AT_MOST,
)
from advisor.domain.i18n import N_

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
