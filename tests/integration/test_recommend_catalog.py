"""The recommendation over the seeded catalog: every server model × every data center."""

from datetime import date
from decimal import Decimal

import pytest

from advisor.domain.recommend.procurement import deadline_hours, procurement_from
from advisor.domain.scenario import ScenarioError
from advisor.recommendation.run import run_recommendation
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_7B_LORA
from vendors.models import DataCenter, Offer, ServerModel

pytestmark = pytest.mark.django_db
TODAY = date(2026, 11, 29)

SCENARIO = QWEN_7B_LORA  # the standard job (advisor/demo_scenarios.py)


@pytest.fixture
def catalog():
    load_catalog()


def test_plain_scenario_considers_every_server_at_every_data_center(catalog):
    run = run_recommendation(SCENARIO, today=TODAY)
    # Every server model at every data center (one option per priced way to obtain it, buy or
    # rent, or one unpriced), plus one option per CNY cloud offer.
    options = run.recommendation.options
    clouds = Offer.objects.filter(kind="cloud", currency="CNY").count()
    assert len([o for o in options if o.is_cloud]) == clouds
    hosted = [o for o in options if not o.is_cloud]
    pairs = {(o.hardware.server.key, o.site.data_center.key) for o in hosted}
    assert len(pairs) == ServerModel.objects.count() * DataCenter.objects.count()
    assert {o.mode for o in hosted} <= {"buy", "rent"}  # an unpriced option keeps its mode
    assert len({o.key for o in options}) == len(options)
    assert run.recommendation.rankings["recommended"], "some option must qualify"
    best = run.recommendation.rankings["recommended"][0]
    assert best.sizing.fits and best.cost_cny is not None


def test_site_section_limits_the_data_centers(catalog):
    document = {**SCENARIO, "site": {"data_centers": ["jianmi-guiyang", "example-shanghai-qingpu"]}}
    run = run_recommendation(document, today=TODAY)
    sites = {o.site.data_center.key for o in run.recommendation.options if not o.is_cloud}
    assert sites == {"jianmi-guiyang", "example-shanghai-qingpu"}


def test_own_room_uses_the_zone_tariff_and_no_rack_fee(catalog):
    room = {
        "name": "Our room",
        "policy_zone": "guizhou",
        "max_kw_per_rack": 40,
        "cooling_available": ["air", "direct-liquid"],
        "pue": 1.25,
        "power_feeds": 2,
        "ups_minutes": 30,
        "generator_start_s": 12,
        "inlet_temp_min_c": 18,
        "inlet_temp_max_c": 25,
        "humidity_min_pct": 40,
        "humidity_max_pct": 60,
    }
    # The seeded Guizhou tariff table prices the room (flagged as the province's, low).
    seeded = run_recommendation({**SCENARIO, "site": {"room": room}}, today=TODAY)
    options = seeded.recommendation.options
    assert {o.site.data_center.key for o in options if not o.is_cloud} == {"own-room"}
    # Cloud GPU-hours stand beside the own room when cloud is among the modes (decision 0101).
    assert any(o.is_cloud for o in options)
    bought_only = {**SCENARIO, "site": {"room": room}, "procurement": {"modes": ["buy"]}}
    only = run_recommendation(bought_only, today=TODAY).recommendation.options
    assert only and not any(o.is_cloud for o in only)
    bought = [o for o in options if o.economics and "buy" in o.economics.costs]
    assert bought, "a server with a purchase offer must be priced in the own room"
    for option in bought:
        tariff = option.economics.inputs.provenance["tariff_cny_per_kwh"]
        assert (tariff.level, tariff.flag) == ("zone", "LOW")
        assert option.economics.inputs.site.tariff_cny_per_kwh == Decimal("0.562")

    procurement = {"overrides": {"tariff_cny_per_kwh": "0.52"}}
    document = {**SCENARIO, "site": {"room": room}, "procurement": procurement}
    priced = [
        o
        for o in run_recommendation(document, today=TODAY).recommendation.options
        if o.economics and not o.is_cloud
    ]
    assert priced, "a server with a purchase offer must be priced in the own room"
    for option in priced:
        assert option.economics.inputs.site.tariff_cny_per_kwh == Decimal("0.52")
        assert option.economics.inputs.site.rack_fee_cny_per_month == 0
        assert set(option.economics.costs) == {"buy"}


def test_procurement_section_is_read(catalog):
    document = {
        **SCENARIO,
        "procurement": {
            "modes": ["cloud"],
            "budget_cny": "50",
            "qualifications": ["mlps-3"],  # an unknown one is refused (test_cli_validation)
            "excluded_accelerators": ["h800-sxm-80gb"],
            "domestic_only": False,
            "years": 2,
            "usage": "programme",
            "runs_per_year": 12,
            "deadline": "2026-12-01",
        },
    }
    run = run_recommendation(document, today=TODAY)
    assert run.procurement.required_rules == ("VENDOR-MLPS3",)
    assert run.procurement.deadline_hours == 72
    assert run.procurement.assumptions.horizon_years == 2
    h800 = [o for o in run.recommendation.options if o.hardware.accelerator.key == "h800-sxm-80gb"]
    assert h800 and all(not o.qualifies for o in h800)  # excluded: shown, never recommended
    assert all(o.is_cloud for o in run.recommendation.options)  # only the mode asked for
    assert not run.recommendation.rankings["recommended"]  # ¥50 buys nothing


def test_invalid_scenario_names_the_field(catalog):
    with pytest.raises(ScenarioError) as error:
        run_recommendation({**SCENARIO, "seq_len": -5}, today=TODAY)
    assert "seq_len" in str(error.value)


@pytest.mark.parametrize(
    ("deadline", "hours"), [(None, None), ("2026-11-29", 24.0), (date(2026, 12, 9), 264.0)]
)
def test_deadline_is_counted_to_the_end_of_its_day(deadline, hours):
    assert deadline_hours(deadline, TODAY) == hours


def test_defaults_without_a_procurement_section():
    procurement = procurement_from(None, TODAY)
    assert procurement.modes == ("buy", "rent", "cloud")
    assert procurement.budget_cny is None and procurement.deadline_hours is None


def test_price_and_site_overrides_reach_the_economics(catalog):
    procurement = {
        "modes": ["buy"],
        "site_overrides": {"example-guian": {"tariff_cny_per_kwh": "0.5", "pue": "1.15"}},
        "price_overrides": {"hgx-h100-8gpu": {"purchase_cny_per_server": "1999999"}},
        "overrides": {"rack_fee_cny_per_month": "5000"},
    }
    document = {**SCENARIO, "site": {"data_centers": ["example-guian"]}, "procurement": procurement}
    options = run_recommendation(document, today=TODAY).recommendation.options
    h100 = next(o for o in options if o.hardware.server.key == "hgx-h100-8gpu")
    inputs = h100.economics.inputs
    assert inputs.prices.purchase_cny_per_server == Decimal("1999999")
    assert inputs.site.tariff_cny_per_kwh == Decimal("0.5") and inputs.site.pue == Decimal("1.15")
    assert inputs.provenance["purchase_cny_per_server"].basis == "override"
