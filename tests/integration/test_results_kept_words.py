"""The results page's body cached in the shared cache (advisor/results/pages.py, decisions 0051
and 0085): a read takes it from the cache (one lookup, no rendering), a first view does not look
for a body cached for the result it has just computed, and the body served is the same."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def results_url(client):
    load_catalog()
    user = make_user("kept-words-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return reverse("results:list", args=[finished_assessment(user).pk])


def cache_reads(client, url) -> tuple[bytes, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return response.content, sum("advisor_cache" in q["sql"] for q in queries)


def test_a_read_takes_the_body_from_the_shared_cache(client, results_url):
    first, _ = cache_reads(client, results_url)
    again, reads = cache_reads(client, results_url)
    assert reads == 1
    page = first.decode()
    body = page[page.index('id="decision"') : page.index('id="after-options"')]
    assert body in again.decode()


def cache_lookups(client, url) -> int:
    """Reads of kept words (the database cache's ``get``: ``WHERE cache_key IN (…)``); a write
    makes its own statements, none of them this one."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return sum("advisor_cache" in q["sql"] and '"cache_key" IN (' in q["sql"] for q in queries)


def test_a_first_view_does_not_look_for_words_kept_for_a_result_just_computed(client, results_url):
    assert cache_lookups(client, results_url) == 0  # computed, stored and its words written
    assert cache_lookups(client, results_url) == 1  # a later read looks them up
