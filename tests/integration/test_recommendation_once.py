"""CPU per page view: the recommendation is computed once per inputs and read by every page.

The finding: the recommendation was recomputed (or unpickled) per view, and the catalog stamp
in its key cost one query per catalog table.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from advisor.results import services
from advisor.roles import PROCUREMENT_STAFF
from advisor.wizard import estimate
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from vendors.models import DataCenter

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(client):
    load_catalog()
    services._LOCAL_RUNS.clear()
    user = make_user("once-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)


@pytest.fixture
def computed(monkeypatch):
    calls = []
    original = services.run_recommendation

    def counting(document, **kwargs):
        calls.append(document)
        return original(document, **kwargs)

    monkeypatch.setattr(services, "run_recommendation", counting)
    return calls


def test_every_results_page_reads_one_computation(client, world, computed):
    base = f"/assessments/{world.pk}/results/"
    assert client.get(base).status_code == 200
    key = services.assessment_results(world).recommendation.options[0].key
    for url in (f"{base}option/{key}/", f"{base}compare/?option={key}", f"{base}figures/", base):
        assert client.get(url).status_code == 200
    assert len(computed) == 1


def test_a_catalog_edit_or_new_answers_compute_again(client, world, computed):
    services.assessment_results(world)
    dc = DataCenter.objects.order_by("key").first()
    dc.save()  # an edit in admin: updated_at moves, the stamp changes
    services.assessment_results(world)
    assert len(computed) == 2
    DataCenter.objects.filter(pk=dc.pk).delete()  # a deletion changes the row count
    services.assessment_results(world)
    assert len(computed) == 3
    world.answers = {**world.answers, "figures": {"overrides": {"salvage_pct": "7"}}}
    services.assessment_results(world)
    assert len(computed) == 4


def test_the_catalog_stamp_is_one_query(world):
    with CaptureQueriesContext(connection) as queries:
        services.catalog_stamp()
    assert len(queries) == 1


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
