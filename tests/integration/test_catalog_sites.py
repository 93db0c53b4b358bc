"""The shipped data centers are real, named sites with their operators, in both languages."""

import json
from pathlib import Path

import pytest

from tests.support.catalog import load_catalog
from tests.unit.test_fixture_sources import OUTSIDE_REFERENCES
from vendors.models import DataCenter, HostingVendor, Offer

pytestmark = pytest.mark.django_db

CATALOG = Path(__file__).resolve().parents[2] / "fixtures" / "catalog"
SITE_FILES = ("40_hosting_vendors.json", "50_data_centers.json", "60_offers.json")
ARTICLE_VENDORS = {"jianmi", "kufanyun"}


@pytest.fixture(autouse=True)
def catalog():
    load_catalog()


def real_sites():
    return DataCenter.objects.filter(is_example=False).select_related("vendor", "policy_zone")


def test_at_least_ten_real_data_centers_in_five_provinces_each_with_an_operator():
    sites = list(real_sites())
    assert len(sites) >= 10
    assert len({site.province for site in sites}) >= 5
    provinces = {site.province for site in sites}
    assert {"Guizhou", "Shanghai", "Guangdong", "Beijing"} <= provinces
    assert provinces & {"Inner Mongolia", "Ningxia", "Gansu"}, "one western hub at least"
    for site in sites:
        assert site.vendor is not None, site.key
        assert site.policy_zone is not None, site.key
        assert site.city and site.source and site.as_of, site.key


def test_every_example_site_says_demo_in_its_name():
    for site in DataCenter.objects.filter(is_example=True):
        assert site.name.startswith("DEMO"), site.key
        assert site.name_zh.startswith("演示"), site.key
    assert not DataCenter.objects.filter(key="example-guangdong-shaoguan").exists()
    assert not Offer.objects.filter(key="example-guian-hgx-h20-rent").exists()


def test_sites_and_operators_have_chinese_names():
    for site in real_sites():
        assert site.name_zh and site.city_zh, site.key
        assert site.name_zh != site.name, site.key
    for vendor in HostingVendor.objects.all():
        assert vendor.name_zh, vendor.key
        if vendor.key not in ARTICLE_VENDORS:
            assert vendor.name_zh != vendor.name, vendor.key


def test_article_vendors_keep_their_names():
    assert dict(
        HostingVendor.objects.filter(key__in=ARTICLE_VENDORS).values_list("key", "name")
    ) == {"jianmi": "简米科技", "kufanyun": "酷番云"}


@pytest.mark.parametrize("name", SITE_FILES)
def test_sources_are_public_documents(name):
    for record in json.loads((CATALOG / name).read_text(encoding="utf-8")):
        fields = record["fields"]
        for field in ("source", "notes"):
            assert not OUTSIDE_REFERENCES.search(fields.get(field, "")), (fields["key"], field)
        if record["model"] in {"vendors.datacenter", "vendors.offer"}:
            assert "http" in fields["source"], fields["key"]


def test_rent_and_cloud_offers_are_dated_and_flagged():
    offers = Offer.objects.filter(kind__in=["rent", "cloud"]).select_related("server_model")
    accelerators = {offer.server_model.accelerator_id for offer in offers}
    assert len(accelerators) >= 5
    for offer in offers:
        assert offer.price_flag, offer.key
        assert offer.quoted_on or "undated" in offer.notes.lower() or "Undated" in offer.notes
        if offer.kind == "cloud":
            assert "Instance size" in offer.notes or "instance sizes" in offer.notes.lower()
