"""Each catalog query once per computation (advisor/catalog/memo.py, decision 0035)."""

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from advisor.assessments.answers import assessment_document
from advisor.catalog.memo import catalog_reads, memoized
from advisor.recommendation.run import run_recommendation
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from vendors.models import Offer


def test_memoized_reads_once_inside_the_block_and_every_time_outside():
    reads = []

    def read():
        reads.append(1)
        return len(reads)

    assert [memoized("k", read), memoized("k", read)] == [1, 2]
    with catalog_reads():
        assert [memoized("k", read), memoized("k", read), memoized("other", read)] == [3, 3, 4]
        with catalog_reads():  # a nested block shares the outer one's memory
            assert memoized("k", read) == 3
    assert memoized("k", read) == 5  # the block's memory is gone with it


@pytest.fixture
def whole_catalog_document(db):
    load_catalog()
    document = assessment_document(finished_assessment(make_user("reads")))
    document["site"].pop("data_centers", None)  # every data center of the catalog
    return document


def test_a_whole_catalog_recommendation_reads_each_table_a_bounded_number_of_times(
    whole_catalog_document,
):
    with CaptureQueriesContext(connection) as queries:
        run = run_recommendation(whole_catalog_document)
    assert len(run.recommendation.options) > 10
    # 944 queries before the memory (one per server model and site, per zone and site); now
    # about one per server model and one per zone.
    assert len(queries.captured_queries) <= 120, len(queries.captured_queries)


def test_a_catalog_edit_is_seen_by_the_next_computation(whole_catalog_document):
    def purchase_prices(run):
        return {
            (option.site.data_center.key, server): prices.purchase_cny_per_server
            for option in run.recommendation.options
            for server, prices in option.site.prices_by_server.items()
        }

    before = purchase_prices(run_recommendation(whole_catalog_document))
    Offer.objects.filter(kind="buy").update(purchase_price=F("purchase_price") * 3)
    after = purchase_prices(run_recommendation(whole_catalog_document))
    priced = [key for key, price in before.items() if price is not None]
    assert priced and all(after[key] == before[key] * 3 for key in priced)
