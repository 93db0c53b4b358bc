"""The catalog rows a results page reads besides its stored result (who an option's facts are
about, the rule parameters, the document's preset and accelerators) are read once per catalog
stamp (docs/decisions/0073-lean-stored-result.md): a worker that renders the page's words again
reads none of them, and a catalog edit is seen by the next page."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from advisor.catalog.cache import catalog_reads
from advisor.catalog.stamp import catalog_state
from advisor.catalog.subjects import subjects_for
from advisor.domain.questionnaire.specs import DATA_CENTER
from advisor.recommendation import services
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.queries import catalog_row_reads
from tests.support.users import make_user
from vendors.models import DataCenter

pytestmark = pytest.mark.django_db


@pytest.fixture
def assessment(client):
    load_catalog()
    user = make_user("page-reads-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)


def forget_words():
    """What a worker holds besides the catalog reads: the page's words and decoded results."""
    cache.clear()
    services._LOCAL_RUNS.clear()


def test_the_words_rendered_again_read_no_catalog_row(client, assessment):
    url = reverse("results:list", args=[assessment.pk])
    first = catalog_row_reads(client, url)  # computed, stored and rendered
    assert "vendors_datacenter" in first  # the open items' subjects, read once
    forget_words()
    assert catalog_row_reads(client, url) == []  # the same stamp: read before


def test_an_option_page_reads_its_subjects_once_per_stamp(client, assessment):
    run = services.assessment_results(assessment)
    key = next(o.key for o in run.recommendation.options if not o.is_cloud)
    url = reverse("results:option", args=[assessment.pk, key])
    assert "vendors_servermodel" in catalog_row_reads(client, url)
    assert catalog_row_reads(client, url) == []  # the same stamp: read before


def test_a_catalog_edit_is_seen_by_the_next_read(assessment):
    run = services.assessment_results(assessment)
    option = next(o for o in run.recommendation.options if not o.is_cloud)
    key = option.site.data_center.key
    with catalog_reads(catalog_state().stamp):
        before = subjects_for(option, run.declared).values[DATA_CENTER]["power_feeds"]
    DataCenter.objects.filter(key=key).update(power_feeds=(before or 1) + 1)
    with catalog_reads(catalog_state().stamp):
        after = subjects_for(option, run.declared).values[DATA_CENTER]["power_feeds"]
    assert after == (before or 1) + 1
