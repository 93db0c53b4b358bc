"""CPU per page view: the recommendation is computed once per version of an assessment's inputs,
stored, and read by every page (docs/decisions/0033-stored-recommendation.md).

The finding: the recommendation was recomputed (or unpickled) per view, and the catalog stamp
in its key cost one query per catalog table.
"""

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from advisor.catalog import stamp
from advisor.recommendation import services
from advisor.recommendation.models import StoredRecommendation
from advisor.roles import PROCUREMENT_STAFF
from advisor.wizard import estimate
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(client):
    load_catalog()
    services._LOCAL_RUNS.clear()
    user = make_user("once-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)


def _pages(world):
    base = f"/assessments/{world.pk}/results/"
    key = services.assessment_results(world).recommendation.options[0].key
    return [base, f"{base}option/{key}/", f"{base}compare/?option={key}", f"{base}figures/"]


def test_every_results_page_reads_one_computation(client, world, computed):
    for url in _pages(world) * 2:
        assert client.get(url).status_code == 200
    assert len(computed) == 1
    assert StoredRecommendation.objects.filter(assessment=world).count() == 1


@pytest.mark.parametrize("forget", ["this process", "the shared cache", "both"])
def test_a_page_view_reads_the_stored_result_in_a_new_process(client, world, computed, forget):
    """A fresh worker process (nothing decoded yet) or a cleared cache: read, not computed."""
    pages = _pages(world)
    before = services.assessment_results(world)
    if forget in ("this process", "both"):
        services._LOCAL_RUNS.clear()
    if forget in ("the shared cache", "both"):
        cache.clear()
    for url in pages:
        assert client.get(url).status_code == 200
    assert len(computed) == 1
    after = services.assessment_results(world)
    assert after == before  # decoded from the database: equal, field by field
    assert after.today == before.today


def test_new_answers_or_own_figures_are_new_inputs_computed_once(client, world, computed):
    services.assessment_results(world)
    world.answers = {**world.answers, "figures": {"overrides": {"resale_pct": "7"}}}
    services.assessment_results(world)
    services.assessment_results(world)
    assert len(computed) == 2
    training = {**world.answers["training"], "seq_len": 8192}
    world.answers = {**world.answers, "training": training}
    assert services.assessment_results(world).scenario.seq_len == 8192
    assert len(computed) == 3
    # The result it replaces is deleted: one stored result per assessment.
    assert StoredRecommendation.objects.filter(assessment=world).count() == 1


def test_the_catalog_stamp_is_one_query(world):
    with CaptureQueriesContext(connection) as queries:
        stamp.catalog_stamp()
        stamp.catalog_state()
    assert len(queries) == 2


def test_the_live_estimate_is_cached_by_its_inputs(world, monkeypatch):
    calls = []
    original = estimate._for_answers
    monkeypatch.setattr(estimate, "_for_answers", lambda a: calls.append(a) or original(a))
    first = estimate.for_answers(world.answers)
    assert estimate.for_answers(dict(world.answers)) == first
    assert len(calls) == 1
    changed = {**world.answers, "training": {**world.answers["training"], "seq_len": 2048}}
    estimate.for_answers(changed)
    assert len(calls) == 2


def test_confirming_computes_the_options_and_the_results_page_reads_them(client, world, computed):
    """The buyer waits once, as they confirm; the results page they land on reads the stored
    result (issue 18: the first results view was the slowest page under load)."""
    from advisor.assessments.models import Assessment

    StoredRecommendation.objects.filter(assessment=world).delete()
    Assessment.objects.filter(pk=world.pk).update(status=Assessment.Status.DRAFT)
    world.refresh_from_db()
    confirmed = client.post(f"/assessments/{world.pk}/check/", {"version": world.version})
    assert confirmed.status_code == 302
    assert confirmed["Location"] == f"/assessments/{world.pk}/results/"
    assert len(computed) == 1
    assert StoredRecommendation.objects.filter(assessment=world).count() == 1
    assert client.get(confirmed["Location"]).status_code == 200
    assert len(computed) == 1


def test_own_figures_saved_by_an_earlier_version_still_read(client, world):
    """Before the cost lines the own figures held a salvage share and straight-line
    depreciation years: the first reads as the resale share, the second is retired."""
    legacy = {"overrides": {"salvage_pct": "7", "depreciation_years": "4"}}
    world.answers = {**world.answers, "figures": legacy}
    world.save()
    run = services.assessment_results(world)
    assert run.procurement.overrides.resale_pct == Decimal("7")
    bought = [o for o in run.recommendation.options if o.mode == "buy" and o.cost]
    assert bought and all(o.cost.resale.amount_cny < 0 for o in bought)
    for option in bought:
        purchase = option.economics.inputs.prices.purchase_cny_per_server
        assert option.cost.resale.unit_price_cny == (purchase * 7 / 100).quantize(Decimal("0.01"))
    assert client.get(reverse("results:list", args=[world.pk])).status_code == 200
