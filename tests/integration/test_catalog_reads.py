"""Each catalog query once per computation (advisor/catalog/cache.py, decision 0035), and
kept between computations on the same catalog stamp (decision 0050)."""

import io
import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from advisor.assessments.answers import assessment_document
from advisor.catalog import cache as catalog_cache
from advisor.catalog.cache import catalog_reads, memoized, memoized_for_inputs
from advisor.catalog.stamp import catalog_state
from advisor.demo_scenarios import QWEN_32B_LORA
from advisor.domain.compliance.parameters import DEFINITIONS
from advisor.models import RuleParameter
from advisor.recommendation.run import run_recommendation
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from vendors.models import DataCenter, Offer, PolicyZone, ServerModel


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


# --- Reads kept per catalog stamp between computations (decision 0050) ----------------------


def test_reads_are_kept_for_the_same_stamp_and_dropped_for_another():
    reads = []

    def read():
        reads.append(1)
        return len(reads)

    with catalog_reads("stamp-a"):
        assert memoized("k", read) == 1
    with catalog_reads("stamp-a"):  # the next computation on the same catalog
        assert memoized("k", read) == 1
    with catalog_reads("stamp-b"):  # the catalog changed
        assert memoized("k", read) == 2
    with catalog_reads("stamp-a"):  # only the latest stamp is kept
        assert memoized("k", read) == 3


def test_a_nested_block_with_another_stamp_reads_for_its_own():
    reads = []

    def read():
        reads.append(1)
        return len(reads)

    catalog_cache.forget()
    with catalog_reads("stamp-a"):
        assert memoized("k", read) == 1
        assert catalog_cache.cached_stamp() == "stamp-a"
        with catalog_reads("stamp-a"):  # the same catalog: the outer block's reads
            assert memoized("k", read) == 1
        with catalog_reads():  # no stamp of its own: shares the outer block
            assert memoized("k", read) == 1
        with catalog_reads("stamp-b"):  # the catalog changed between the two stamp reads
            assert memoized("k", read) == 2
            assert catalog_cache.cached_stamp() == "stamp-b"
        assert catalog_cache.cached_stamp() == "stamp-a"
    assert catalog_cache.cached_stamp() is None
    with catalog_reads():
        assert catalog_cache.cached_stamp() is None  # a one-computation block keeps no stamp


def test_reads_keyed_by_inputs_keep_the_latest_few(monkeypatch):
    monkeypatch.setattr(catalog_cache, "INPUT_KEYS_KEPT", 2)
    reads = []

    def read():
        reads.append(1)
        return len(reads)

    with catalog_reads("stamp"):
        assert [memoized_for_inputs(k, read) for k in ("a", "b", "a", "c")] == [1, 2, 1, 3]
        assert memoized_for_inputs("b", read) == 4  # "b" was the least recently used: dropped
        assert memoized_for_inputs("a", read) == 5  # and then "a"
    assert memoized_for_inputs("a", read) == 6  # outside a block: read every time


def test_a_second_computation_on_the_same_catalog_reads_only_the_stamp(whole_catalog_document):
    first = run_recommendation(whole_catalog_document)
    with CaptureQueriesContext(connection) as queries:
        second = run_recommendation(whole_catalog_document)
    assert len(queries.captured_queries) == 1  # the catalog stamp
    assert [o.key for o in second.recommendation.options] == [
        o.key for o in first.recommendation.options
    ]


def _cheapest_purchase(run):
    prices = [
        prices.purchase_cny_per_server
        for option in run.recommendation.options
        for prices in option.site.prices_by_server.values()
        if prices.purchase_cny_per_server is not None
    ]
    return min(prices)


def test_a_saved_row_a_deleted_row_and_a_rule_parameter_are_each_seen_next_time(
    whole_catalog_document,
):
    before = run_recommendation(whole_catalog_document)
    offer = Offer.objects.filter(kind="buy", purchase_price__isnull=False).order_by("pk").first()
    offer.purchase_price = 1
    offer.save()  # as the admin saves it
    assert _cheapest_purchase(run_recommendation(whole_catalog_document)) == 1

    dc_key = before.recommendation.options[-1].site.data_center.key
    DataCenter.objects.filter(key=dc_key).delete()
    assert dc_key not in {
        o.site.data_center.key
        for o in run_recommendation(whole_catalog_document).recommendation.options
    }


def test_bulk_updates_and_rule_parameters_move_the_stamp(whole_catalog_document):
    stamps = [catalog_state().stamp]
    RuleParameter.objects.create(key=DEFINITIONS[0].key, value="1")
    stamps.append(catalog_state().stamp)
    RuleParameter.objects.filter(key=DEFINITIONS[0].key).update(value="2")
    stamps.append(catalog_state().stamp)
    PolicyZone.objects.update(tariff_cny_per_kwh=None)  # no save, no signal: still stamped
    stamps.append(catalog_state().stamp)
    assert len(set(stamps)) == len(stamps)


def test_the_buyers_own_figures_are_not_served_from_another_computation(whole_catalog_document):
    plain = _cheapest_purchase(run_recommendation(whole_catalog_document))
    overridden = dict(whole_catalog_document)
    server = ServerModel.objects.order_by("key").first().key
    overridden["procurement"] = {
        **(whole_catalog_document.get("procurement") or {}),
        "price_overrides": {server: {"purchase_cny_per_server": "1"}},
    }
    assert _cheapest_purchase(run_recommendation(overridden)) == 1 != plain
    assert _cheapest_purchase(run_recommendation(whole_catalog_document)) == plain


def test_recommend_json_for_the_32b_job_over_every_site_makes_at_most_20_queries(tmp_path, db):
    """Issue 34's budget: the heaviest document the wizard makes, on an unchanged catalog."""
    load_catalog()
    path = tmp_path / "32b.json"
    path.write_text(json.dumps(QWEN_32B_LORA), encoding="utf-8")

    def command():
        out = io.StringIO()
        call_command("recommend", input=str(path), format="json", stdout=out)
        return json.loads(out.getvalue())

    first = command()  # reads the catalog
    with CaptureQueriesContext(connection) as queries:
        second = command()
    assert len(queries.captured_queries) <= 20, len(queries.captured_queries)
    assert second == first and second["considered"] > 200
