"""Catalog admin: every changelist and change page loads and saves, search and filters work,
history shows who changed what, both languages render, and only catalog admins may edit."""

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from advisor.roles import CATALOG_ADMIN, ensure_roles
from tests.support.catalog import load_catalog
from vendors.models import Accelerator, DataCenter, HostingVendor

# Both stages (marker `database`): search and filters are database lookups.
pytestmark = [pytest.mark.django_db, pytest.mark.database]

CATALOG_MODELS = [
    m
    for m in apps.get_app_config("vendors").get_models()
    if not m.__name__.startswith("Historical")
]


@pytest.fixture
def catalog():
    load_catalog()


@pytest.fixture
@override_settings(PRODUCTION=False, DEMO_PASSWORD="pw")
def admin_client(client, catalog):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD="pw"):
        call_command("setup_demo", verbosity=0)
    client.force_login(User.objects.get(username="admin"))
    return client


SAMPLE_ROWS = 6


def url(model, view, *args):
    return reverse(f"admin:vendors_{model._meta.model_name}_{view}", args=args)


def field_values(form, data):
    """Add ``form``'s current values to ``data`` the way a browser posts them."""
    for bound in form:
        widget = bound.field.widget.__class__.__name__
        value = bound.value()
        if widget == "CheckboxInput":
            if value:
                data[bound.html_name] = "on"
        elif widget == "NullBooleanSelect":
            data[bound.html_name] = {True: "true", False: "false"}.get(value, "unknown")
        elif isinstance(value, list | tuple):
            data[bound.html_name] = [str(v) for v in value]
        elif value is None:
            data[bound.html_name] = ""
        else:
            data[bound.html_name] = str(value)


def form_data(response):
    """The values of the admin form on ``response`` (inlines included), as a browser posts them."""
    data = {}
    field_values(response.context["adminform"].form, data)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        field_values(formset.management_form, data)
        for form in formset.forms:
            field_values(form, data)
    return data


@pytest.mark.parametrize("model", CATALOG_MODELS, ids=lambda m: m.__name__)
def test_changelist_loads_in_both_languages(admin_client, model):
    for language, marker in (("en", "Select"), ("zh-hans", "选择")):
        response = admin_client.get(url(model, "changelist"), HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200
        assert marker in response.content.decode()


@pytest.mark.parametrize("model", CATALOG_MODELS, ids=lambda m: m.__name__)
def test_every_change_page_loads_and_saves(admin_client, model):
    # Rows of one model share the form; a sample keeps the suite fast (test_catalog_fixtures
    # validates every seeded row).
    for obj in model.objects.all()[:SAMPLE_ROWS]:
        response = admin_client.get(url(model, "change", obj.pk))
        assert response.status_code == 200, obj.key
        data = form_data(response)
        saved = admin_client.post(url(model, "change", obj.pk), data)
        if saved.status_code != 302:
            errors = saved.context["adminform"].form.errors
            inline_errors = [f.formset.errors for f in saved.context["inline_admin_formsets"]]
            pytest.fail(f"{model.__name__} {obj.key}: {errors} {inline_errors}")


@pytest.mark.parametrize("model", CATALOG_MODELS, ids=lambda m: m.__name__)
def test_add_and_history_pages_load(admin_client, model):
    assert admin_client.get(url(model, "add")).status_code == 200
    obj = model.objects.first()
    assert admin_client.get(url(model, "history", obj.pk)).status_code == 200


def test_search_finds_h100(admin_client):
    response = admin_client.get(url(Accelerator, "changelist"), {"q": "H100"})
    keys = {obj.key for obj in response.context["cl"].result_list}
    assert {"h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb"} <= keys
    assert "a100-sxm-80gb" not in keys


@pytest.mark.parametrize(
    ("model", "params", "expected", "absent"),
    [
        (Accelerator, {"memory": "gt192"}, {"mi325x-256gb", "mi355x-288gb"}, {"h100-sxm-80gb"}),
        (Accelerator, {"memory": "le24"}, {"rtx-4090-24gb", "a10g-24gb"}, {"l40s-48gb"}),
        (
            DataCenter,
            {"province": "Guizhou"},
            {"jianmi-guiyang", "example-guian"},
            {"example-shanghai-qingpu"},
        ),
        (HostingVendor, {"licence_expiry": "unknown"}, {"jianmi", "kufanyun"}, set()),
        (HostingVendor, {"licence_expiry": "expired"}, set(), {"jianmi"}),
    ],
)
def test_filters(admin_client, model, params, expected, absent):
    response = admin_client.get(url(model, "changelist"), params)
    assert response.status_code == 200
    keys = {obj.key for obj in response.context["cl"].result_list}
    assert expected <= keys and not (absent & keys)


def test_vendor_page_has_certificate_and_site_inlines(admin_client):
    jianmi = HostingVendor.objects.get(key="jianmi")
    page = admin_client.get(url(HostingVendor, "change", jianmi.pk)).content.decode()
    assert "豫B2-20261089" in page
    assert "jianmi-guiyang" in page and "ISO/IEC 27001" in page


def test_edit_shows_who_and_what_in_history(admin_client):
    h100 = Accelerator.objects.get(key="h100-sxm-80gb")
    page = admin_client.get(url(Accelerator, "change", h100.pk))
    data = form_data(page)
    data["tdp_w"] = "650"
    assert admin_client.post(url(Accelerator, "change", h100.pk), data).status_code == 302
    history = admin_client.get(url(Accelerator, "history", h100.pk)).content.decode()
    assert "admin" in history and "700" in history and "650" in history
    h100.refresh_from_db()
    assert h100.tdp_w == 650


def test_audit_fields_are_read_only(admin_client):
    h100 = Accelerator.objects.get(key="h100-sxm-80gb")
    form = admin_client.get(url(Accelerator, "change", h100.pk)).context["adminform"].form
    assert "created_at" not in form.fields and "updated_at" not in form.fields


def test_catalog_admin_group_member_may_edit(client, catalog):
    groups = ensure_roles()
    editor = User.objects.create_user("editor", password="x", is_staff=True)
    editor.groups.add(groups[CATALOG_ADMIN])
    client.force_login(editor)
    h100 = Accelerator.objects.get(key="h100-sxm-80gb")
    assert client.get(url(Accelerator, "change", h100.pk)).status_code == 200
    assert client.get(url(Accelerator, "import")).status_code == 200


def test_staff_without_catalog_permission_cannot_edit(client, catalog):
    ensure_roles()
    clerk = User.objects.create_user("clerk", password="x", is_staff=True)
    client.force_login(clerk)
    h100 = Accelerator.objects.get(key="h100-sxm-80gb")
    assert client.get(url(Accelerator, "change", h100.pk)).status_code == 403
    assert client.get(url(Accelerator, "import")).status_code == 403


def test_non_staff_buyer_is_sent_to_login(client, catalog):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD="pw"):
        call_command("setup_demo", verbosity=0)
    client.force_login(User.objects.get(username="buyer"))
    response = client.get(url(Accelerator, "changelist"))
    assert response.status_code == 302 and "login" in response["Location"]
