"""Right-sized capacity and cloud as cloud, over the seeded catalog (issue: what the buyer reads).

A cloud offer sells instances of some sizes; an option takes the fewest instances that hold
the job, priced per GPU-hour on equal work, and is checked as a cloud (data residency, the
provider's certificates, the accelerator's export-control status), never as a data center.
"""

from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

import pytest
from django.core.exceptions import ValidationError

from advisor.recommendation.run import run_recommendation
from tests.integration.test_recommend_catalog import SCENARIO, TODAY
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_32B_LORA
from vendors.models import Offer, ServerModel, parse_instance_gpus

pytestmark = pytest.mark.django_db

# The source article's model (advisor/demo_scenarios.py) with this module's job and site.
QWEN_32B = {**SCENARIO, "model": QWEN_32B_LORA["model"]}
CLOUD_RULES = {"CLOUD-RESIDENCY", "VENDOR-ISO27001", "VENDOR-MLPS3", "HW-AVAILABILITY"}


@pytest.fixture
def catalog():
    load_catalog()


def _options(document):
    return run_recommendation(document, today=TODAY).recommendation


def test_a_7b_lora_job_gets_one_or_two_gpu_cloud_options_priced_as_such(catalog):
    recommendation = _options(SCENARIO)
    cloud = [o for o in recommendation.options if o.is_cloud and o.hardware.clouds]
    assert cloud, "the catalog's cloud offers become options of their own"
    small = [o for o in cloud if o.obtained.gpus <= 2 and o.cost_cny is not None]
    assert small, [(o.key, o.obtained.gpus) for o in cloud]
    for option in small:
        capacity = option.obtained
        assert capacity.how == "cloud" and capacity.gpus == option.sizing.layout.gpus
        # Priced as such: one line, the card-hours of that many GPUs for the job's hours.
        cost = option.cost
        assert cost.mode == "cloud" and len(cost.lines) == 1
        (line,) = cost.lines
        hours = option.economics.inputs.load.hours_per_run
        assert hours == pytest.approx(Decimal(str(option.time_to_train_hours)), abs=Decimal("0.01"))
        card_hours = (capacity.gpus * hours * cost.runs).quantize(Decimal("0.01"), ROUND_CEILING)
        assert line.quantity == card_hours and line.unit == "card_hour"
        assert line.unit_price_cny == option.cloud.price_cny_per_gpu_hour
        fen = (line.unit_price_cny * card_hours).quantize(Decimal("0.01"), ROUND_HALF_UP)
        assert line.amount_cny == fen  # half up, to the fen (docs/economics.md)
        assert cost.cash_out_cny == line.amount_cny
    # Ranked against whole servers in the same list.
    ranked = recommendation.rankings["recommended"]
    assert any(o.is_cloud for o in ranked) and any(not o.is_cloud for o in ranked)


def test_cloud_options_carry_no_site_findings_and_no_data_center(catalog):
    for option in _options(SCENARIO).options:
        if not option.is_cloud:
            continue
        rules = {f.rule_id for f in option.compliance.findings}
        assert rules >= CLOUD_RULES
        assert not any(rule.startswith("SITE-") for rule in rules), rules
        assert option.site.data_center.key is None and option.site.data_center.name is None
        assert option.obtained.provider


@pytest.mark.parametrize(
    ("mainland", "status"), [(False, "fail"), (True, "pass"), (None, "unknown")]
)
def test_data_residency_follows_the_offers_region(catalog, mainland, status):
    Offer.objects.create(
        key="test-cloud-offer",
        server_model=ServerModel.objects.get(key="hgx-h100-8gpu"),
        kind="cloud",
        currency="CNY",
        hourly_price_per_gpu=Decimal("50"),
        seller_name="Test cloud (test data)",
        provider="Test cloud",
        region="somewhere-1",
        region_in_mainland_china=mainland,
        instance_gpus="1,8",
    )
    options = _options(SCENARIO).options
    (option,) = [o for o in options if o.is_cloud and o.cloud.key == "test-cloud-offer"]
    assert option.compliance.finding("CLOUD-RESIDENCY").status == status
    if status == "fail":
        assert not option.qualifies
    assert option.place_name == "Test cloud · somewhere-1"


def test_a_32b_lora_job_gets_options_sized_to_what_it_needs(catalog):
    options = _options(QWEN_32B).options
    cloud = [o for o in options if o.is_cloud and o.sizing.fits and o.cloud.instance_gpus]
    assert cloud
    for option in cloud:
        capacity, sizes = option.obtained, option.cloud.instance_gpus
        assert capacity.gpus >= capacity.gpus_used == option.sizing.layout.gpus
        if capacity.instances == 1:  # the smallest instance that holds what the job uses
            assert capacity.gpus_per_instance == min(k for k in sizes if k >= capacity.gpus_used)
    # The 32B job needs more than one GPU but far fewer than a whole 8-GPU server.
    assert any(1 < o.obtained.gpus < o.hardware.server.gpu_count for o in cloud)
    whole = [o for o in options if not o.is_cloud]
    assert all(o.obtained.gpus_per_instance == o.hardware.server.gpu_count for o in whole)


@pytest.mark.parametrize(
    ("text", "sizes"),
    [("", ()), ("8", (8,)), ("1, 2,4,8", (1, 2, 4, 8)), ("4,1,4", (1, 4))],
)
def test_instance_sizes_parse(text, sizes):
    assert parse_instance_gpus(text) == sizes


@pytest.mark.parametrize("text", ["0", "two", "1;2", "-1", "1,,x", "100"])
def test_bad_instance_sizes_say_what_is_wrong(catalog, text):
    offer = Offer.objects.get(key="market-hgx-h20-cloud")
    offer.instance_gpus = text
    with pytest.raises(ValidationError) as error:
        offer.full_clean()
    assert "instance_gpus" in error.value.message_dict


def test_a_purchase_takes_no_instance_sizes(catalog):
    offer = Offer.objects.get(key="market-hgx-h20-buy-2024-07")
    offer.instance_gpus = "1,2"
    with pytest.raises(ValidationError) as error:
        offer.full_clean()
    assert "instance_gpus" in error.value.message_dict
