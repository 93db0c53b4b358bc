"""The wizard's pages read the catalog lists their choices come from (model presets, data
centers, provinces, accelerator families) once per catalog stamp
(advisor.catalog.stamp.catalog_reads_kept, docs/decisions/0073-lean-stored-result.md): a page
seen again reads only the stamp, and a catalog edit is seen by the next page."""

import pytest
from django.urls import reverse

from advisor.catalog import cache as catalog_cache
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.queries import catalog_row_reads
from tests.support.users import make_user
from vendors.models import DataCenter, ModelPreset

pytestmark = pytest.mark.django_db


@pytest.fixture
def assessment(client):
    load_catalog()
    catalog_cache.forget()
    user = make_user("wizard-reads-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)


def page_urls(assessment) -> list[str]:
    urls = [
        reverse("wizard:task_list", args=[assessment.pk]),
        reverse("wizard:check", args=[assessment.pk]),
    ]
    urls += [
        reverse("wizard:step", args=[assessment.pk, slug])
        for slug in ("model", "training", "site", "procurement")
    ]
    return urls


def test_each_wizard_page_seen_again_reads_no_catalog_row(client, assessment):
    first = {url: catalog_row_reads(client, url) for url in page_urls(assessment)}
    task_list = reverse("wizard:task_list", args=[assessment.pk])
    # The task list builds every step's form: presets, data centers, provinces, families.
    assert {"vendors_modelpreset", "vendors_datacenter", "vendors_policyzone"} <= set(
        first[task_list]
    )
    for url in page_urls(assessment):
        assert catalog_row_reads(client, url) == [], url  # the same stamp: read before


def test_a_catalog_edit_is_seen_by_the_next_page(client, assessment):
    url = reverse("wizard:step", args=[assessment.pk, "site"])
    row = DataCenter.objects.order_by("key").first()
    assert row.name in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    DataCenter.objects.filter(pk=row.pk).update(name="Renamed example data center")
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Renamed example data center" in page


def test_a_new_preset_is_offered_on_the_next_model_page(client, assessment):
    url = reverse("wizard:step", args=[assessment.pk, "model"])
    client.get(url)
    preset = ModelPreset.objects.order_by("key").first()
    preset.pk = None
    preset.key = "example-added-preset"
    preset.name = "Example added preset"
    preset.save()
    assert "Example added preset" in client.get(url).content.decode()
