"""Catalog import/export: round trips, the admin's dry-run preview, refused rows, config.json."""

import html
import io
import json

import pytest
import tablib
from django.apps import apps
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from advisor.domain.model_config import MAX_BYTES as MODEL_CONFIG_UPLOAD_MAX_BYTES
from tests.support.catalog import load_catalog
from vendors import resources
from vendors.models import Accelerator, DataCenter, ModelPreset

# Both stages (marker `database`): imports run in transactions; a dry run rolls back.
pytestmark = [pytest.mark.django_db, pytest.mark.database]

RESOURCES = [
    resources.AcceleratorResource,
    resources.ServerModelResource,
    resources.HostingVendorResource,
    resources.CertificateResource,
    resources.PolicyZoneResource,
    resources.TariffResource,
    resources.RackFeeResource,
    resources.DataCenterResource,
    resources.OfferResource,
    resources.ModelPresetResource,
]
CSV_HEADER = (
    "key,maker,name,memory_gb,memory_type,memory_bandwidth_tbps,bf16_dense_tflops,"
    "fp8_dense_tflops,tdp_w,form_factor,interconnect_kind,interconnect_bandwidth_gbs,"
    "software_stack,china_availability,source,as_of\n"
)
GOOD_ROWS = (
    "test-a-24gb,Maker A,Card A,24,GDDR6,0.9,100,,300,pcie,pcie,64,cuda,unknown,[vendor] datasheet A,2026-01-01\n"
    "test-b-48gb,Maker B,Card B,48,GDDR6,0.9,150,300,350,pcie,pcie,64,cuda,unknown,[vendor] datasheet B,2026-01-01\n"
    "test-c-96gb,Maker C,Module C,96,HBM3,4.0,148,296,400,sxm,nvlink,900,cuda,unknown,[vendor] datasheet C,2026-01-01\n"
)
BAD_ROWS = (
    "test-a-24gb,Maker A,Card A,24,GDDR6,0.9,100,,300,pcie,pcie,64,cuda,unknown,[vendor] datasheet A,2026-01-01\n"
    "test-b-48gb,Maker B,Card B,lots,GDDR6,0.9,150,300,350,pcie,pcie,64,cuda,unknown,[vendor] datasheet B,2026-01-01\n"
    "test-c-96gb,Maker C,Module C,96,HBM3,4.0,148,296,400,sxm,warp-drive,900,cuda,unknown,[vendor] datasheet C,2026-01-01\n"
)


@pytest.fixture
def catalog():
    load_catalog()


@pytest.fixture
def admin_client(client, catalog):
    with override_settings(PRODUCTION=False, DEMO_PASSWORD="pw"):
        call_command("setup_demo", verbosity=0)
    client.force_login(User.objects.get(username="admin"))
    return client


@pytest.mark.parametrize("resource_class", RESOURCES, ids=lambda r: r.__name__)
def test_export_then_import_changes_nothing(catalog, resource_class):
    resource = resource_class()
    model = resource._meta.model
    before = {obj.key: obj.updated_at for obj in model.objects.all()}
    exported = resource.export()
    assert len(exported) == len(before) > 0
    result = resource_class().import_data(tablib.Dataset().load(exported.csv, format="csv"))
    assert not result.has_errors() and not result.has_validation_errors()
    assert {row.import_type for row in result.rows} == {"skip"}
    assert {obj.key: obj.updated_at for obj in model.objects.all()} == before


def test_round_trip_restores_edited_rows_and_foreign_keys(catalog):
    exported = resources.DataCenterResource().export()
    site = DataCenter.objects.get(key="example-guian")
    site.pue_design, site.cooling_available = 1.4, ["air"]
    site.save()
    result = resources.DataCenterResource().import_data(exported)
    assert not result.has_errors() and not result.has_validation_errors()
    site.refresh_from_db()
    assert site.pue_design == 1.15
    assert site.cooling_available == ["air", "rear-door", "direct-liquid"]
    assert site.policy_zone.key == "guian-cluster"


def test_xlsx_round_trip(catalog):
    exported = resources.AcceleratorResource().export()
    data = tablib.Dataset().load(io.BytesIO(exported.xlsx).read(), format="xlsx")
    result = resources.AcceleratorResource().import_data(data)
    assert not result.has_errors() and not result.has_validation_errors()


def test_unknown_foreign_key_is_named(catalog):
    data = tablib.Dataset(
        headers=["key", "maker", "name", "accelerator", "gpu_count", "topology", "cooling"]
    )
    data.append(["srv-x", "X", "X", "no-such-gpu", "8", "nvswitch", "air"])
    with translation.override("en"):
        result = resources.ServerModelResource().import_data(data, dry_run=True)
    errors = result.invalid_rows[0].field_specific_errors
    assert "There is no accelerator with key “no-such-gpu” in the catalog." in str(
        errors["accelerator"]
    )


def post_import(client, text, name="accelerators.csv"):
    upload = SimpleUploadedFile(name, text.encode("utf-8"), content_type="text/csv")
    return client.post(
        reverse("admin:vendors_accelerator_import"),
        {"import_file": upload, "format": "0", "resource": "0"},
        HTTP_ACCEPT_LANGUAGE="en",
    )


def test_three_row_csv_shows_a_preview_then_applies(admin_client):
    response = post_import(admin_client, CSV_HEADER + GOOD_ROWS)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Preview" in page and page.count("New") >= 3
    assert not Accelerator.objects.filter(key__startswith="test-").exists()  # dry run only

    confirm = response.context["confirm_form"]
    applied = admin_client.post(
        reverse("admin:vendors_accelerator_process_import"),
        {name: confirm.initial[name] for name in confirm.fields},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert applied.status_code == 302
    imported = Accelerator.objects.filter(key__startswith="test-").order_by("memory_gb")
    assert [a.memory_gb for a in imported] == [24, 48, 96]
    assert imported[0].history.first().history_user.username == "admin"


def test_bad_rows_are_refused_naming_row_and_field(admin_client):
    response = post_import(admin_client, CSV_HEADER + BAD_ROWS)
    assert response.status_code == 200
    result = response.context["result"]
    assert result.has_validation_errors()
    invalid = {row.number: row.field_specific_errors for row in result.invalid_rows}
    assert set(invalid) == {2, 3}
    assert "memory_gb" in invalid[2]
    assert "“lots” is not a number." in str(invalid[2]["memory_gb"])
    assert "interconnect_kind" in invalid[3]
    page = response.content.decode()
    assert "Some rows failed to validate" in page
    assert "Row 2, field “memory_gb”: “lots” is not a number." in html.unescape(page)
    assert "Row 3, field “interconnect_kind”:" in html.unescape(page)
    assert "confirm_form" not in response.context or response.context["confirm_form"] is None
    assert not Accelerator.objects.filter(key__startswith="test-").exists()


# --------------------------------------------------------------------------- config.json upload

QWEN_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 3584,
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "intermediate_size": 18944,
    "vocab_size": 152064,
    "tie_word_embeddings": False,
    "max_position_embeddings": 32768,
}


def upload_config(client, raw, name="Qwen2.5-7B-Instruct"):
    return client.post(
        reverse("admin:vendors_modelpreset_upload_config"),
        {
            "config_file": SimpleUploadedFile("config.json", raw, content_type="application/json"),
            "name": name,
            "hf_repo": "Qwen/Qwen2.5-7B-Instruct",
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )


def test_upload_config_creates_a_preset(admin_client):
    assert admin_client.get(reverse("admin:vendors_modelpreset_upload_config")).status_code == 200
    response = upload_config(admin_client, json.dumps(QWEN_CONFIG).encode())
    assert response.status_code == 302
    preset = ModelPreset.objects.get(name="Qwen2.5-7B-Instruct")
    assert preset.params_b == pytest.approx(7.615617)
    assert (preset.layers, preset.kv_heads, preset.context_length) == (28, 4, 32768)
    assert preset.key == "qwen2-5-7b-instruct" and "config.json" in preset.source


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2, 3]", "one JSON object"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (json.dumps({"model_type": "llama"}).encode(), "has no “num_hidden_layers”"),
        (json.dumps({**QWEN_CONFIG, "num_hidden_layers": "28"}).encode(), "whole number"),
        (json.dumps({**QWEN_CONFIG, "hidden_size": 10**9}).encode(), "between"),
        (b'{"hidden_size": NaN}', "not a number"),
        (b" " * (MODEL_CONFIG_UPLOAD_MAX_BYTES + 1), "at most"),
    ],
    ids=["malformed", "array", "binary", "missing", "string", "huge", "nan", "oversized"],
)
def test_upload_config_refuses_bad_files_clearly(admin_client, raw, message):
    count = ModelPreset.objects.count()
    response = upload_config(admin_client, raw)
    assert response.status_code == 200
    assert message in html.unescape(response.content.decode())
    assert ModelPreset.objects.count() == count


def test_upload_config_needs_add_permission(client, catalog):
    clerk = User.objects.create_user("clerk", password="x", is_staff=True)
    client.force_login(clerk)
    assert client.get(reverse("admin:vendors_modelpreset_upload_config")).status_code == 403


def test_changelist_links_to_the_upload(admin_client):
    page = admin_client.get(
        reverse("admin:vendors_modelpreset_changelist"), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert reverse("admin:vendors_modelpreset_upload_config") in page.content.decode()


def test_every_catalog_model_has_import_and_export(admin_client):
    for model in apps.get_app_config("vendors").get_models():
        if model.__name__.startswith("Historical"):
            continue
        name = model._meta.model_name
        assert admin_client.get(reverse(f"admin:vendors_{name}_import")).status_code == 200
        assert admin_client.get(reverse(f"admin:vendors_{name}_export")).status_code == 200
