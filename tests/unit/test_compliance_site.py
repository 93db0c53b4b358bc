"""Site rules (S1-S6) at pass, warn, fail and unknown, with figures exactly at each threshold."""

import pytest

from advisor.domain.compliance.rules.site import dew_point_c
from tests.unit.test_compliance_support import evaluate_one, facts

P, W, F, U = "pass", "warn", "fail", "unknown"


def dc(**fields):
    return {"data_center": fields}


def temp(low, high):
    return dc(inlet_temp_min_c=low, inlet_temp_max_c=high)


def rh(low, high, dp_low=5.5, dp_high=15):
    return dc(
        inlet_rh_min_pct=low, inlet_rh_max_pct=high,
        inlet_dew_point_min_c=dp_low, inlet_dew_point_max_c=dp_high,
    )  # fmt: skip


def floor(position_kg, floor_kg_per_m2):
    return dc(rack_max_load_kg=position_kg, floor_load_kg_per_m2=floor_kg_per_m2)


def rack(per_server_kw, typical_kw=None, servers=1, dc_max=None, **dc_fields):
    parts = {
        "option": {
            "server_power_max_kw": per_server_kw,
            "server_power_typical_kw": typical_kw,
            "servers_per_rack": servers,
        }
    }
    if dc_max is not None or dc_fields:
        parts["data_center"] = {"max_rack_kw": dc_max, **dc_fields} if dc_max else dc_fields
    return parts


# (rule id, overrides, expected status)
CASES = [
    # Inlet temperature: envelope 18-27 °C, source target up to 25 °C.
    ("SITE-INLET-TEMP", temp(18, 25), P),
    ("SITE-INLET-TEMP", temp(18, 25.1), W),
    ("SITE-INLET-TEMP", temp(18, 27), W),
    ("SITE-INLET-TEMP", temp(18, 27.1), F),
    ("SITE-INLET-TEMP", temp(17.9, 25), F),
    ("SITE-INLET-TEMP", temp(17, None), F),
    ("SITE-INLET-TEMP", temp(None, 25), U),
    # Inlet humidity: RH ≤ 60 %, dew point 5.5-15 °C; source target ≥ 40 % RH.
    ("SITE-INLET-HUMIDITY", rh(40, 60), P),
    ("SITE-INLET-HUMIDITY", rh(39.9, 60), W),
    ("SITE-INLET-HUMIDITY", rh(40, 60.1), F),
    ("SITE-INLET-HUMIDITY", rh(40, 60, dp_low=5.4), F),
    ("SITE-INLET-HUMIDITY", rh(40, 60, dp_high=15.1), F),
    ("SITE-INLET-HUMIDITY", rh(None, 55), U),
    ("SITE-INLET-HUMIDITY", rh(None, 61), F),
    # Dew point not recorded: derived from the corners of the held ranges.
    ("SITE-INLET-HUMIDITY", {**rh(45, 55, None, None), **temp(20, 24)}, P),
    (
        "SITE-INLET-HUMIDITY",
        {
            "data_center": {
                **rh(40, 60, None, None)["data_center"],
                "inlet_temp_min_c": 18,
                "inlet_temp_max_c": 27,
            }
        },
        U,
    ),
    # Humidity control where the outdoor mean RH exceeds 60 %.
    ("SITE-HUMIDITY-CONTROL", dc(climate_mean_rh_pct=80, precision_humidity_control=True), P),
    ("SITE-HUMIDITY-CONTROL", dc(climate_mean_rh_pct=60, precision_humidity_control=False), P),
    ("SITE-HUMIDITY-CONTROL", dc(climate_mean_rh_pct=60.1, precision_humidity_control=False), F),
    ("SITE-HUMIDITY-CONTROL", dc(climate_mean_rh_pct=50, precision_humidity_control=None), P),
    ("SITE-HUMIDITY-CONTROL", dc(climate_mean_rh_pct=80, precision_humidity_control=None), U),
    ("SITE-HUMIDITY-CONTROL", dc(climate_mean_rh_pct=None, precision_humidity_control=False), U),
    # PUE against the zone's limit (1.2 in the fixture zone).
    ("SITE-PUE", dc(pue=1.2, pue_basis="measured"), P),
    ("SITE-PUE", dc(pue=1.2, pue_basis="design"), W),
    ("SITE-PUE", dc(pue=1.15, pue_basis=None), W),
    ("SITE-PUE", dc(pue=1.21, pue_basis="measured"), F),
    ("SITE-PUE", dc(pue=None), U),
    ("SITE-PUE", {"zone": {"pue_limit": None}}, U),
    # kW per rack vs the data center's maximum (full load, then typical).
    ("SITE-RACK-POWER", rack(10.2, 8, servers=4, dc_max=40.8), P),
    ("SITE-RACK-POWER", rack(10.2, 8, servers=4, dc_max=32), W),
    ("SITE-RACK-POWER", rack(10.2, 8.1, servers=4, dc_max=32), F),
    ("SITE-RACK-POWER", rack(10.2, None, servers=4, dc_max=32), U),
    ("SITE-RACK-POWER", {"data_center": {"max_rack_kw": None}}, U),
    # Cooling: air fine up to 30 kW, workable to 40 kW; rear-door to 60 kW; beyond, liquid.
    ("SITE-RACK-COOLING", rack(30, dc_max=50, cooling_kinds=("air",)), P),
    ("SITE-RACK-COOLING", rack(30.1, dc_max=50, cooling_kinds=("air",)), W),
    ("SITE-RACK-COOLING", rack(40, dc_max=50, cooling_kinds=("air",)), W),
    ("SITE-RACK-COOLING", rack(40.1, dc_max=50, cooling_kinds=("air",)), F),
    ("SITE-RACK-COOLING", rack(60, dc_max=80, cooling_kinds=("air", "rear-door")), P),
    ("SITE-RACK-COOLING", rack(60.1, dc_max=80, cooling_kinds=("air", "rear-door")), F),
    ("SITE-RACK-COOLING", rack(90, dc_max=120, cooling_kinds=("direct-liquid",)), P),
    ("SITE-RACK-COOLING", rack(35, dc_max=50, cooling_kinds=None), U),
    ("SITE-RACK-COOLING", rack(None), U),
    (
        "SITE-RACK-COOLING",
        {"server": {"cooling": "liquid"}, **dc(cooling_kinds=("air", "rear-door"))},
        F,
    ),
    ("SITE-RACK-COOLING", {"server": {"cooling": "liquid"}, **dc(cooling_kinds=None)}, U),
    ("SITE-RACK-COOLING", {"server": {"cooling": "liquid"}, **dc(cooling_kinds=("immersion",))}, P),
    # A server whose cooling no source states (e.g. the standard Atlas 800T A2): an open
    # question where the site offers no liquid cooling, never a fail on that ground alone.
    (
        "SITE-RACK-COOLING",
        {"server": {"cooling": ""}, **rack(10, dc_max=20, cooling_kinds=("air",))},
        U,
    ),
    (
        "SITE-RACK-COOLING",
        {"server": {"cooling": ""}, **rack(35, dc_max=50, cooling_kinds=("air",))},
        U,
    ),
    ("SITE-RACK-COOLING", {"server": {"cooling": ""}, **rack(10, cooling_kinds=None)}, U),
    (
        "SITE-RACK-COOLING",
        {"server": {"cooling": ""}, **rack(10, dc_max=20, cooling_kinds=("air", "direct-liquid"))},
        P,
    ),
    # ... but a rack beyond what the site's air cooling removes fails whatever the server.
    (
        "SITE-RACK-COOLING",
        {"server": {"cooling": ""}, **rack(45, dc_max=50, cooling_kinds=("air",))},
        F,
    ),
    # Power.
    ("SITE-DUAL-FEED", dc(dual_utility_feeds=True), P),
    ("SITE-DUAL-FEED", dc(dual_utility_feeds=False), F),
    ("SITE-DUAL-FEED", dc(dual_utility_feeds=None), U),
    ("SITE-UPS", dc(ups_backup_min=30), P),
    ("SITE-UPS", dc(ups_backup_min=29.9), W),
    ("SITE-UPS", dc(ups_backup_min=15), W),
    ("SITE-UPS", dc(ups_backup_min=14.9), F),
    ("SITE-UPS", dc(ups_backup_min=None), U),
    ("SITE-GENERATOR", dc(generator_start_s=15), P),
    ("SITE-GENERATOR", dc(generator_start_s=15.1), F),
    ("SITE-GENERATOR", dc(generator_start_s=None), U),
    ("SITE-HVDC", dc(hvdc=True, hvdc_efficiency_pct=94), P),
    ("SITE-HVDC", dc(hvdc=None, hvdc_efficiency_pct=96), P),
    ("SITE-HVDC", dc(hvdc=True, hvdc_efficiency_pct=93.9), F),
    ("SITE-HVDC", dc(hvdc=False, hvdc_efficiency_pct=None), W),
    ("SITE-HVDC", dc(hvdc=True, hvdc_efficiency_pct=None), U),
    # Floor load: 4 × 130.45 kg = 521.8 kg per rack; floor rating × 0.72 m² per rack.
    ("SITE-FLOOR-LOAD", {"option": {"servers_per_rack": 4}, **floor(521.8, None)}, P),
    ("SITE-FLOOR-LOAD", {"option": {"servers_per_rack": 4}, **floor(521.7, None)}, F),
    ("SITE-FLOOR-LOAD", {"option": {"servers_per_rack": 4}, **floor(None, 521.8 / 0.72)}, P),
    ("SITE-FLOOR-LOAD", {"option": {"servers_per_rack": 4}, **floor(None, 720)}, F),
    ("SITE-FLOOR-LOAD", {"option": {"servers_per_rack": 4}, **floor(2000, 720)}, F),
    ("SITE-FLOOR-LOAD", {"option": {"rack_weight_kg": 700}, **floor(600, None)}, F),
    ("SITE-FLOOR-LOAD", {"option": {"server_weight_kg": None}}, U),
    ("SITE-FLOOR-LOAD", floor(None, None), U),
    # Network.
    ("SITE-BGP", dc(multi_carrier_bgp=True), P),
    ("SITE-BGP", dc(multi_carrier_bgp=False), F),
    ("SITE-BGP", dc(multi_carrier_bgp=None), U),
    ("SITE-LATENCY", dc(latency_east_china_ms=30, latency_south_china_ms=30), P),
    ("SITE-LATENCY", dc(latency_east_china_ms=30.1, latency_south_china_ms=20), F),
    ("SITE-LATENCY", dc(latency_east_china_ms=None, latency_south_china_ms=31), F),
    ("SITE-LATENCY", dc(latency_east_china_ms=20, latency_south_china_ms=None), U),
    ("SITE-PACKET-LOSS", dc(packet_loss_pct=0.099), P),
    ("SITE-PACKET-LOSS", dc(packet_loss_pct=0.1), F),
    ("SITE-PACKET-LOSS", dc(packet_loss_pct=None), U),
    # Operations.
    ("SITE-STAFF-24X7", dc(staff_24x7_on_site=True), P),
    ("SITE-STAFF-24X7", dc(staff_24x7_on_site=False), F),
    ("SITE-STAFF-24X7", dc(staff_24x7_on_site=None), U),
    ("SITE-SPARE-PARTS", dc(spare_parts_replacement_h=2), P),
    ("SITE-SPARE-PARTS", dc(spare_parts_replacement_h=2.1), F),
    ("SITE-SPARE-PARTS", dc(spare_parts_replacement_h=None), U),
    ("SITE-FAULT-RESPONSE", dc(fault_response_h=24), P),
    ("SITE-FAULT-RESPONSE", dc(fault_response_h=24.5), F),
    ("SITE-FAULT-RESPONSE", dc(fault_response_h=None), U),
    ("SITE-CONTRACT-MTTR", dc(contract_mttr_stated=True, contract_compensation=True), P),
    ("SITE-CONTRACT-MTTR", dc(contract_mttr_stated=True, contract_compensation=False), W),
    ("SITE-CONTRACT-MTTR", dc(contract_mttr_stated=False, contract_compensation=True), F),
    ("SITE-CONTRACT-MTTR", dc(contract_mttr_stated=True, contract_compensation=None), U),
    ("SITE-CONTRACT-MTTR", dc(contract_mttr_stated=None, contract_compensation=None), U),
]


@pytest.mark.parametrize(("rule_id", "overrides", "expected"), CASES)
def test_site_rule(rule_id, overrides, expected):
    finding = evaluate_one(rule_id, facts(**overrides))
    assert finding.status == expected, finding.message.render()


def test_dew_point_formula_matches_reference_values():
    # Psychrometric tables: 20 °C at 50 % RH → 9.3 °C; 25 °C at 60 % RH → 16.7 °C.
    assert dew_point_c(20, 50) == pytest.approx(9.3, abs=0.1)
    assert dew_point_c(25, 60) == pytest.approx(16.7, abs=0.1)


def test_pue_message_names_the_zone_and_its_limit():
    # The zone's name in both languages (zone_zh on Chinese pages); the policy document is the
    # rule's citation, not free catalog text inside the sentence.
    finding = evaluate_one("SITE-PUE", facts(**dc(pue=1.25, pue_basis="measured")))
    assert finding.message.params == {
        "pue": 1.25,
        "limit": 1.2,
        "zone": "Guizhou hub node",
        "zone_zh": "",
    }
    evidence = finding.evidence[0]
    assert (evidence.measured, evidence.threshold, evidence.comparison) == (1.25, 1.2, "<=")


def test_rack_power_evidence_multiplies_servers_per_rack():
    finding = evaluate_one("SITE-RACK-POWER", facts(**rack(10.2, 8, servers=4, dc_max=32)))
    assert [item.measured for item in finding.evidence] == [40.8, 32]
    assert finding.message.params == {"full": 40.8, "typical": 32, "limit": 32}


def test_ups_warning_quotes_both_thresholds():
    finding = evaluate_one("SITE-UPS", facts(**dc(ups_backup_min=20)))
    assert finding.message.params == {"minutes": 20, "floor": 15, "target": 30}
