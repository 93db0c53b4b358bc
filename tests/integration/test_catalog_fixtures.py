"""Catalog fixtures: they load on a fresh database, reload idempotently, and hold what they must."""

import json
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.management import call_command

from advisor.domain.hardware import load_fixture_specs
from vendors.models import (
    FIXTURE_CHANGE_REASON,
    Accelerator,
    Certificate,
    DataCenter,
    HostingVendor,
    ModelPreset,
    Offer,
    PolicyZone,
    ServerModel,
)

# Both stages (marker `database`): the catalog loads into a fresh database.
pytestmark = [pytest.mark.django_db, pytest.mark.database]

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "fixtures" / "catalog"
CASES_MODELS = ROOT / "fixtures" / "sources" / "reference-cases-models.json"
REFERENCE_KEYS = [
    "rtx-4090-24gb",
    "rtx-a6000-48gb",
    "a10g-24gb",
    "l40s-48gb",
    "l40-48gb",
    "l20-48gb",
    "v100-16gb",
    "v100-32gb",
    "a100-sxm-40gb",
    "a100-sxm-80gb",
    "a100-pcie-80gb",
    "a800-sxm-80gb",
    "h100-sxm-80gb",
    "h100-pcie-80gb",
    "h800-sxm-80gb",
    "h20-96gb",
    "h200-sxm-141gb",
    "b200-sxm-180gb",
    "mi300x-192gb",
    "mi325x-256gb",
    "mi355x-288gb",
    "ascend-910b-64gb",
]
CATALOG_MODELS = [
    m
    for m in apps.get_app_config("vendors").get_models()
    if not m.__name__.startswith("Historical")
]


def snapshot():
    return {m.__name__: sorted(m.objects.values_list("pk", "key")) for m in CATALOG_MODELS}


@pytest.fixture
def catalog():
    call_command("load_catalog", verbosity=0)


def test_fixtures_load_and_reload_idempotently():
    call_command("load_catalog", verbosity=0)
    first = snapshot()
    history = {m.__name__: m.history.count() for m in CATALOG_MODELS}
    call_command("load_catalog", verbosity=0)
    assert snapshot() == first
    assert {m.__name__: m.history.count() for m in CATALOG_MODELS} == history
    assert all(first.values()), "every catalog model has seeded rows"


def test_fixture_files_use_natural_keys_only():
    for path in sorted(CATALOG.glob("*.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            assert "pk" not in record, f"{path.name} has a primary key"
            assert record["fields"]["key"], path.name


def test_every_seeded_row_passes_validation(catalog):
    problems = []
    for model in CATALOG_MODELS:
        for obj in model.objects.all():
            try:
                obj.full_clean()
            except ValidationError as exc:
                problems.append((model.__name__, obj.key, exc.message_dict))
    assert not problems


def test_every_reference_case_accelerator_exists(catalog):
    keys = set(Accelerator.objects.values_list("key", flat=True))
    assert set(REFERENCE_KEYS) <= keys
    assert {"h100-nvl-94gb", "gb200-186gb", "ascend-910c-128gb", "mlu370-x8-48gb"} <= keys


def test_every_figure_has_a_source(catalog):
    for model in CATALOG_MODELS:
        for obj in model.objects.all():
            assert obj.source.strip(), f"{model.__name__} {obj.key} has no source"
            assert obj.as_of, f"{model.__name__} {obj.key} has no as_of"


def test_unsourced_figures_stay_empty(catalog):
    # The research marks these UNSOURCED; the catalog must not invent them.
    ascend = Accelerator.objects.get(key="ascend-910b-64gb")
    assert ascend.bf16_dense_tflops is None
    # The 910B's memory bandwidth rests on a third-party simulator only: recorded, flagged LOW.
    assert ascend.memory_bandwidth_tbps == 1.6
    assert "memory_bandwidth_tbps" in ascend.low_confidence_figures
    assert Accelerator.objects.get(key="a10g-24gb").bf16_dense_tflops is None
    guizhou = PolicyZone.objects.get(key="guizhou")
    assert guizhou.tariff_cny_per_kwh is None and guizhou.preferential_tariff_cny_per_kwh == 0.35
    assert ServerModel.objects.get(key="atlas-800t-a2").power_max_w is None


def test_h100_figures_match_the_research(catalog):
    h100 = Accelerator.objects.get(key="h100-sxm-80gb")
    assert (h100.memory_gb, h100.memory_bandwidth_tbps, h100.bf16_dense_tflops, h100.tdp_w) == (
        80,
        3.35,
        989,
        700,
    )
    dgx = ServerModel.objects.get(key="dgx-h100")
    assert (dgx.power_max_w, dgx.weight_kg, dgx.accelerator, dgx.topology) == (
        10200,
        130.45,
        h100,
        "nvswitch",
    )


def test_the_4090s_missing_peer_to_peer_reaches_the_sizing(catalog):
    from advisor.catalog.sizing import accelerator_spec_from_row

    rtx = Accelerator.objects.get(key="rtx-4090-24gb")
    assert rtx.peer_to_peer is False
    assert "NCCL_SHM_DISABLE" in rtx.source
    assert accelerator_spec_from_row(rtx).peer_to_peer is False
    # unknown stays unknown: no other part states it either way
    assert set(
        Accelerator.objects.filter(peer_to_peer__isnull=False).values_list("key", flat=True)
    ) == {"rtx-4090-24gb"}


def test_article_vendors_hold_the_articles_claims(catalog):
    jianmi = HostingVendor.objects.get(name="简米科技")
    kufanyun = HostingVendor.objects.get(name="酷番云")
    for v in (jianmi, kufanyun):
        assert v.claim_status == "vendor-claim"
        assert "As claimed by the vendor" in v.notes and "verify" in v.notes
    assert (jianmi.founded_year, jianmi.licence_number, jianmi.icp_filing_number) == (
        2003,
        "豫B2-20261089",
        "豫ICP备2026018319号",
    )
    assert jianmi.self_operated_dcs and jianmi.has_own_bgp
    assert kufanyun.registered_capital_cny == 10_000_000
    assert kufanyun.licence_category_list == ["B11", "B12", "B14"]
    assert kufanyun.icp_filing_number == "滇ICP备2020007656号" and kufanyun.cnnic_member
    articles = Certificate.objects.filter(vendor__key__in=["jianmi", "kufanyun"])
    kinds = set(articles.values_list("vendor__key", "kind", "mlps_level"))
    assert kinds == {
        ("jianmi", "iso-27001", None),
        ("jianmi", "mlps", 3),
        ("kufanyun", "iso-9001", None),
        ("kufanyun", "iso-27001", None),
    }


def test_sites_cover_guiyang_and_two_eastern_provinces(catalog):
    provinces = set(DataCenter.objects.values_list("province", flat=True))
    assert {"Guizhou", "Shanghai", "Guangdong"} <= provinces
    for dc in DataCenter.objects.filter(is_example=True):
        assert "EXAMPLE" in dc.notes
    assert PolicyZone.objects.get(key="national-hub-nodes").pue_limit == 1.25


def test_offers_without_a_quote_are_examples(catalog):
    for offer in Offer.objects.all():
        assert offer.price is not None
        if not offer.is_example:
            assert offer.price_flag == "OFF" and offer.source


def test_presets_cover_the_reference_cases_and_common_families(catalog):
    case_models = json.loads(CASES_MODELS.read_text(encoding="utf-8"))
    by_name = {p.name: p for p in ModelPreset.objects.all()}
    for model in case_models:
        if model["name"].startswith("generic"):
            continue
        preset = by_name[model["name"]]
        for field in ("params_b", "layers", "hidden", "heads", "kv_heads", "intermediate", "vocab"):
            assert getattr(preset, field) == model[field], (model["name"], field)
    families = set(ModelPreset.objects.values_list("family", flat=True))
    assert {"qwen", "deepseek", "glm", "baichuan", "internlm", "llama", "mistral"} <= families
    names = " ".join(by_name)
    for needle in (
        "Qwen2.5",
        "Qwen3",
        "DeepSeek-V3",
        "GLM-4",
        "Baichuan2",
        "InternLM",
        "Llama 3",
        "Mixtral",
    ):
        assert needle in names
    moe = ModelPreset.objects.get(key="qwen3-235b-a22b")
    assert moe.params_b == pytest.approx(235.1, abs=0.1)
    assert moe.active_params_b == pytest.approx(22.2, abs=0.1)


def test_fixture_load_leaves_a_history_baseline(catalog):
    h100 = Accelerator.objects.get(key="h100-sxm-80gb")
    assert h100.history.count() == 1
    assert h100.history.first().history_change_reason == FIXTURE_CHANGE_REASON


def test_domain_reads_the_fixtures_without_django():
    accelerators, servers = load_fixture_specs(CATALOG)
    assert set(REFERENCE_KEYS) <= set(accelerators)
    for spec in servers.values():
        assert spec.accelerator_key in accelerators
    assert servers["dgx-h100"].nic_kind == "infiniband"
    assert re.fullmatch(r"[a-z0-9-]+", servers["atlas-800t-a2"].key)
