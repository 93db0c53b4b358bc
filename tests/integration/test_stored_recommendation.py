"""The stored recommendation after the catalog changes: kept as computed, said so, recomputed on
request; briefs hold what the buyer saw (docs/decisions/0033-stored-recommendation.md)."""

import json
import zlib
from decimal import Decimal

import pytest
from django.urls import reverse

from advisor.assessments.services import save_step
from advisor.brief.models import Brief
from advisor.brief.snapshot import option_snapshot
from advisor.catalog.economics import offers_for
from advisor.recommendation import codec, compression, services
from advisor.recommendation.models import StoredRecommendation
from advisor.recommendation.records import frozen_for, frozen_records, records_for
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user
from vendors import choices
from vendors.models import DataCenter, Offer, ServerModel

pytestmark = pytest.mark.django_db

NOTICE = "The catalog has changed since these options were computed"


@pytest.fixture
def world(client):
    load_catalog()
    services._LOCAL_RUNS.clear()
    user = make_user("stored-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)


def page(client, name, *args, language="en"):
    response = client.get(reverse(name, args=args), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def priced_offer(run) -> tuple[str, Offer]:
    """A priced option bought at a data center, and the catalog offer its price came from."""
    for option in run.recommendation.options:
        if option.is_cloud or option.cost_cny is None or option.mode != "buy":
            continue
        offer = offers_for(
            ServerModel.objects.get(key=option.hardware.server.key),
            DataCenter.objects.get(key=option.site.data_center.key),
            currencies=(choices.Currency.CNY,),
        ).get(choices.OfferKind.BUY)
        if offer is not None:
            return option.key, offer
    pytest.fail("the seeded catalog prices a purchase at a data center")


def _cost(run, key):
    return next(o for o in run.recommendation.options if o.key == key).cost_cny


def test_a_catalog_change_keeps_the_result_says_so_and_recompute_replaces_it(
    client, world, computed
):
    before = services.assessment_results(world)
    html = page(client, "results:list", world.pk)
    assert NOTICE not in html and 'id="computed-at"' in html
    key, offer = priced_offer(before)
    setattr(offer, Offer.PRICE_FIELD[offer.kind], offer.price * 2)
    offer.save()  # an edit in admin: the catalog stamp moves

    for name, args in (
        ("results:list", (world.pk,)),
        ("results:option", (world.pk, key)),
        ("results:compare", (world.pk,)),
    ):
        url = reverse(name, args=args) + (f"?option={key}" if name == "results:compare" else "")
        html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert NOTICE in html, name
        assert 'action="' + reverse("results:recompute", args=(world.pk,)) in html
    assert len(computed) == 1  # kept as computed: the same prices as before the edit
    shown = services.shown_results(world)
    assert shown.catalog_changed and shown.catalog_changed_at is not None
    assert _cost(shown.run, key) == _cost(before, key)

    response = client.post(
        reverse("results:recompute", args=(world.pk,)), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("results:list", args=(world.pk,))
    assert len(computed) == 2
    after = services.shown_results(world)
    assert not after.catalog_changed
    assert _cost(after.run, key) > _cost(before, key)  # the doubled price, now in use
    assert StoredRecommendation.objects.filter(assessment=world).count() == 1
    html = page(client, "results:list", world.pk)
    assert NOTICE not in html and "computed again with the current catalog" in html


def test_the_stored_records_follow_a_catalog_edit(client, world, computed):
    """frozen_records are kept per catalog stamp (issue 34): a result computed after an edit
    stores the edited record, not the one kept for the earlier stamp."""
    run = services.assessment_results(world)
    key, offer = priced_offer(run)

    def stored_offer():
        stored = StoredRecommendation.objects.get(assessment=world)
        records = services.stored_records(stored)["records"]
        return next(r for r in records if r["kind"] == "offer" and r["key"] == offer.key)

    price_field = Offer.PRICE_FIELD[offer.kind]
    assert Decimal(stored_offer()["fields"][price_field]) == offer.price
    setattr(offer, price_field, offer.price * 2)
    offer.save()
    client.post(reverse("results:recompute", args=(world.pk,)), HTTP_ACCEPT_LANGUAGE="en")
    assert len(computed) == 2
    assert Decimal(stored_offer()["fields"][price_field]) == offer.price


def test_the_same_options_store_the_same_records_written_once(world, computed, monkeypatch):
    """A changed job with the same candidates (more epochs: the same servers at the same sites)
    stores the records written for the first result, byte for byte; each option is in them."""
    written = []
    original = services.frozen_records
    monkeypatch.setattr(
        services, "frozen_records", lambda options: written.append(1) or original(options)
    )
    services.assessment_results(world)
    first = bytes(StoredRecommendation.objects.get(assessment=world).records)
    training = {**world.answers["training"], "epochs": world.answers["training"]["epochs"] + 2}
    world = save_step(world, "training", training, world.version)
    run = services.assessment_results(world)
    assert len(computed) == 2 and len(written) == 1
    stored = StoredRecommendation.objects.get(assessment=world)
    assert bytes(stored.records) == first
    by_option = services.stored_records(stored)["by_option"]
    assert set(by_option) == {o.key for o in run.recommendation.options}
    assert all(by_option.values())


def test_a_deleted_catalog_row_is_a_change_too(client, world, computed):
    services.assessment_results(world)
    unused = (
        DataCenter.objects.exclude(
            key__in=[
                o.site.data_center.key
                for o in services.assessment_results(world).recommendation.options
            ]
        ).first()
        or DataCenter.objects.order_by("key").last()
    )
    unused.delete()
    assert NOTICE in page(client, "results:list", world.pk)
    assert len(computed) == 1


def test_the_notice_is_translated(client, world):
    services.assessment_results(world)
    DataCenter.objects.order_by("key").first().save()
    html = page(client, "results:list", world.pk, language="zh-hans")
    assert NOTICE not in html
    assert "目录" in html and 'id="recompute"' in html


def test_a_brief_holds_the_stored_result_the_buyer_saw(client, world, computed):
    before = services.shown_results(world)
    key, offer = priced_offer(before.run)
    field = Offer.PRICE_FIELD[offer.kind]
    old_price = offer.price
    setattr(offer, field, offer.price * 2)
    offer.save()  # the catalog changes after the buyer looked at the options
    response = client.post(
        reverse("brief:issue"),
        {
            "assessment": world.pk,
            "option": key,
            "language": "en",
            "computed": before.stored.token,
            "reason": "Bought and hosted, as our policy asks",  # any option, rank 1 or not
        },
    )
    brief = Brief.objects.get()
    assert response["Location"] == reverse("brief:detail", args=(brief.pk,))
    chosen = brief.snapshot["options"][0]
    assert chosen["key"] == key
    assert Decimal(str(chosen["cost_cny"])) == _cost(before.run, key)  # not the new price
    assert brief.snapshot["today"] == before.run.today.isoformat()
    # The appendix lists the catalog records as they were when the options were computed.
    record = next(
        r for r in brief.snapshot["catalog"] if r["kind"] == "offer" and r["key"] == offer.key
    )
    assert Decimal(str(record["fields"][field])) == old_price
    assert len(computed) == 1  # issuing computed nothing


def test_the_frozen_records_are_those_a_brief_would_read_from_the_catalog(world):
    options = services.assessment_results(world).recommendation.options
    frozen = frozen_records(options)
    chosen = [options[0], options[-1]]
    for keys in ([o.key for o in chosen[:1]], [o.key for o in chosen]):
        wanted = [option_snapshot(o) for o in options if o.key in keys]
        assert frozen_for(frozen, keys) == records_for(wanted)


def test_a_brief_from_a_page_computed_before_a_recompute_is_refused(client, world):
    before = services.shown_results(world)
    key = before.run.recommendation.options[0].key
    services.recompute(world)
    response = client.post(
        reverse("brief:issue"),
        {"assessment": world.pk, "option": key, "language": "en", "computed": before.stored.token},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response["Location"] == reverse("results:list", args=(world.pk,))
    assert not Brief.objects.exists()
    followed = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The options were computed again since you opened that page" in followed


def test_the_option_page_issues_from_the_result_it_shows(client, world):
    shown = services.shown_results(world)
    key = shown.run.recommendation.options[0].key
    html = page(client, "results:option", world.pk, key)
    assert f'name="computed" value="{shown.stored.token}"' in html


OPTION = "advisor.domain.recommend.options.Option"


def with_shape(data: bytes, name: str, change) -> bytes:
    """The stored bytes with ``change`` applied to the header's shape of class ``name``, as if
    older code, whose class was so, had written them."""
    size = int.from_bytes(data[:4], "big")
    shapes = json.loads(data[4 : 4 + size])
    shapes[name] = change(shapes[name])
    header = json.dumps(shapes).encode()
    return len(header).to_bytes(4, "big") + header + data[4 + size :]


@pytest.mark.parametrize(
    "older",
    [
        # A field the class no longer has (the code changed since the result was stored).
        lambda data: with_shape(data, OPTION, lambda fields: [*fields, "gone"]),
        # A field added since, even one with a default (decision 0076).
        lambda data: with_shape(data, OPTION, lambda fields: fields[:-1]),
        # A field renamed.
        lambda data: with_shape(
            data, OPTION, lambda fields: ["hardware_was" if f == "hardware" else f for f in fields]
        ),
        # A module (with its classes) that no longer exists: the same length, another name.
        lambda data: data.replace(
            b"advisor.domain.recommend.options", b"advisor.domain.recommend.optionz"
        ),
        # Not a stored result at all.
        lambda data: data[: len(data) // 2],
    ],
)
def test_a_result_stored_by_older_code_is_computed_again(client, world, computed, older):
    services.assessment_results(world)
    stored = StoredRecommendation.objects.get(assessment=world)
    data = compression.decompress(stored.payload)
    changed = older(data)
    assert changed != data
    StoredRecommendation.objects.filter(pk=stored.pk).update(payload=zlib.compress(changed))
    services._LOCAL_RUNS.clear()
    with pytest.raises(codec.StoredFormatError):
        codec.loads(changed)
    assert page(client, "results:list", world.pk)
    assert len(computed) == 2
    stored = StoredRecommendation.objects.get(assessment=world)
    assert codec.loads(compression.decompress(stored.payload)) == services.assessment_results(world)


def test_a_result_is_stored_in_zstandard_frames(world):
    services.assessment_results(world)
    stored = StoredRecommendation.objects.get(assessment=world)
    for column in (stored.payload, stored.records):
        assert bytes(column)[:4] == bytes.fromhex("28b52ffd")  # a Zstandard frame (RFC 8878)
    assert codec.loads(compression.decompress(stored.payload)) == services.assessment_results(world)


def test_a_row_compressed_with_zlib_before_zstandard_reads_as_stored(client, world, computed):
    """Rows written before decision 0081 hold zlib streams: they read as they are, nothing
    is computed again, and a brief's appendix reads their records."""
    services.assessment_results(world)
    stored = StoredRecommendation.objects.get(assessment=world)
    payload = compression.decompress(stored.payload)
    records = compression.decompress(stored.records)
    StoredRecommendation.objects.filter(pk=stored.pk).update(
        payload=zlib.compress(payload, 1), records=zlib.compress(records, 1)
    )
    services._LOCAL_RUNS.clear()
    assert NOTICE not in page(client, "results:list", world.pk)
    assert len(computed) == 1
    assert services.assessment_results(world) == codec.loads(payload)
    assert services.stored_records(StoredRecommendation.objects.get(pk=stored.pk)) == json.loads(
        records
    )


def test_a_payload_that_does_not_decompress_is_computed_again(client, world, computed):
    services.assessment_results(world)
    StoredRecommendation.objects.filter(assessment=world).update(payload=b"not zlib")
    services._LOCAL_RUNS.clear()
    assert page(client, "results:list", world.pk)
    assert len(computed) == 2


@pytest.mark.parametrize(
    ("payload_format", "earlier"),
    [
        (1, '{"$c": "advisor.domain.recommend.options.RecommendRun", "f": {}}'),
        (2, '[[["advisor.domain.recommend.options.RecommendRun", []]], [0]]'),
    ],
)
def test_a_result_stored_in_an_earlier_format_opens_computed_again(
    client, world, computed, payload_format, earlier
):
    """Formats 1 (one JSON object per value, decisions 0033 and 0051) and 2 (compact JSON,
    0058) are not decoded: the first read computes the options again and stores them in the
    current format."""
    services.assessment_results(world)
    StoredRecommendation.objects.filter(assessment=world).update(
        payload_format=payload_format, payload=zlib.compress(earlier.encode())
    )
    services._LOCAL_RUNS.clear()
    assert NOTICE not in page(client, "results:list", world.pk)
    assert len(computed) == 2
    stored = StoredRecommendation.objects.get(assessment=world)
    assert stored.payload_format == codec.FORMAT
    run = codec.loads(compression.decompress(stored.payload))
    assert run.recommendation.options


def test_recompute_is_a_post_of_the_owner_only(client, world):
    services.assessment_results(world)
    url = reverse("results:recompute", args=(world.pk,))
    assert client.get(url).status_code == 405
    other = make_user("someone-else", PROCUREMENT_STAFF, password="pw")
    client.force_login(other)
    assert client.post(url).status_code == 404
    assert StoredRecommendation.objects.filter(assessment=world).count() == 1
