"""The four question pages, check answers, the live estimate partial and the preset search."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from advisor.assessments import answers, services
from advisor.assessments.models import Assessment
from advisor.domain.scenario import load_scenario
from advisor.roles import PROCUREMENT_STAFF
from advisor.wizard import steps
from tests.integration.test_wizard_support import MODEL, PROCUREMENT, SITE, TRAINING, make_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

LLAMA_CONFIG = {
    "_name_or_path": "meta-llama/Llama-3.1-8B",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "tie_word_embeddings": False,
    "vocab_size": 128256,
}


@pytest.fixture
def buyer(client):
    make_catalog()
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


@pytest.fixture
def draft(buyer):
    return services.create_assessment(buyer, "Support bot")


def url(draft, slug):
    return reverse("wizard:step", args=[draft.pk, slug])


def post(client, draft, slug, data, **extra):
    draft.refresh_from_db()
    payload = {**data, "version": draft.version}
    return client.post(url(draft, slug), payload, HTTP_ACCEPT_LANGUAGE="en", **extra)


def fill(client, draft, *slugs):
    values = {"model": MODEL, "training": TRAINING, "site": SITE, "procurement": PROCUREMENT}
    for slug in slugs:
        response = post(client, draft, slug, values[slug])
        assert response.status_code == 302, response.content.decode()[:3000]
    draft.refresh_from_db()


@pytest.mark.parametrize("slug", ["model", "training", "site", "procurement"])
def test_each_step_page_renders_with_back_link_and_novalidate_form(client, draft, slug):
    response = client.get(url(draft, slug), HTTP_ACCEPT_LANGUAGE="en")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="back-link"' in html
    assert "novalidate" in html
    assert f'name="version" value="{draft.version}"' in html
    assert "<legend" in html


def test_walk_through_the_steps_in_order(client, draft):
    response = post(client, draft, "model", MODEL)
    assert response["Location"] == url(draft, "training")
    response = post(client, draft, "training", TRAINING)
    assert response["Location"] == url(draft, "site")
    response = post(client, draft, "site", SITE)
    assert response["Location"] == url(draft, "procurement")
    response = post(client, draft, "procurement", PROCUREMENT)
    assert response["Location"] == reverse("wizard:check", args=[draft.pk])
    draft.refresh_from_db()
    assert draft.version == 5
    assert draft.answers["model"]["preset"] == "qwen2-5-7b"
    assert draft.answers["training"]["samples"] == 20000
    assert steps.all_complete(draft.answers)


def test_back_links_go_to_the_previous_step(client, draft):
    html = client.get(url(draft, "training")).content.decode()
    assert f'href="{url(draft, "model")}"' in html
    html = client.get(url(draft, "model")).content.decode()
    assert f'href="{reverse("wizard:task_list", args=[draft.pk])}"' in html


def test_save_and_come_back_later(client, draft):
    response = post(client, draft, "model", {**MODEL, "save_and_exit": "1"})
    assert response["Location"] == reverse("home")
    home = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Your answers are saved" in home
    page = client.get(url(draft, "model")).content.decode()
    assert 'value="qwen2-5-7b" selected' in page


def test_invalid_entries_show_the_error_summary_and_keep_values(client, draft):
    response = post(client, draft, "training", {**TRAINING, "seq_len": "-5", "epochs": "lots"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "There is a problem" in html
    assert 'href="#id_seq_len"' in html
    assert 'href="#id_epochs"' in html
    assert 'value="-5"' in html
    assert 'value="lots"' in html
    assert 'value="20000"' in html  # valid fields keep their values too
    draft.refresh_from_db()
    assert "training" not in draft.answers


def test_missing_radio_links_to_its_first_option(client, draft):
    response = post(client, draft, "model", {"source": "preset", "preset": "qwen2-5-7b"})
    assert 'href="#id_method_0"' in response.content.decode()


def test_stale_version_is_refused_with_a_message_and_keeps_entries(client, draft):
    fill(client, draft, "model")
    stale = draft.version - 1
    response = client.post(
        url(draft, "training"),
        {**TRAINING, "seq_len": "2048", "version": stale},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert "changed in another tab or window" in html
    assert 'value="2048"' in html
    assert f'name="version" value="{draft.version}"' in html
    draft.refresh_from_db()
    assert "training" not in draft.answers


def test_missing_or_garbage_version_counts_as_stale(client, draft):
    data = {**MODEL}
    data.pop("version")
    for version in (None, "abc", "99999999999999999999999"):
        payload = dict(data) if version is None else {**data, "version": version}
        response = client.post(url(draft, "model"), payload)
        assert response.status_code == 409
    draft.refresh_from_db()
    assert draft.answers == {}


def test_qlora_with_fp32_is_explained_on_the_precision_field(client, draft):
    post(client, draft, "model", {**MODEL, "method": "qlora"})
    response = post(client, draft, "training", {**TRAINING, "precision": "fp32"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "QLoRA stores the frozen model in 4 or 8 bits" in html
    assert 'href="#id_precision_0"' in html


def test_qlora_after_fp32_training_is_explained_on_the_method(client, draft):
    fill(client, draft, "model")
    post(client, draft, "training", {**TRAINING, "precision": "fp32"})
    response = post(client, draft, "model", {**MODEL, "method": "qlora"})
    assert "cannot run in fp32" in response.content.decode()


def test_quant_bits_without_qlora(client, draft):
    response = post(client, draft, "model", {**MODEL, "method": "lora", "quant_bits": "4"})
    html = response.content.decode()
    assert "Quantised base weights apply only to QLoRA" in html
    assert '<details class="details" open>' in html


def test_rank_without_an_adapter_method(client, draft):
    response = post(client, draft, "model", {**MODEL, "method": "full", "lora_rank": "16"})
    assert "apply only to LoRA, QLoRA or DoRA" in response.content.decode()


def test_sequence_longer_than_the_preset_context(client, draft):
    post(client, draft, "model", {**MODEL, "preset": "llama-3-1-8b"})
    response = post(client, draft, "training", {**TRAINING, "seq_len": "16384"})
    html = response.content.decode()
    assert "at most 8,192 tokens per sequence" in html


def test_a_changed_preset_reopens_the_training_step(client, draft):
    fill(client, draft, "model")
    post(client, draft, "training", {**TRAINING, "seq_len": "16384"})
    draft.refresh_from_db()
    assert steps.get("training").status(draft.answers) == steps.COMPLETE
    post(client, draft, "model", {**MODEL, "preset": "llama-3-1-8b"})
    draft.refresh_from_db()
    assert steps.get("training").status(draft.answers) == steps.NEEDS_ATTENTION
    html = client.get(reverse("wizard:task_list", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert "Needs attention" in html.content.decode()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seq_len", "9" * 400),
        ("seq_len", "1e9999"),
        ("seq_len", "0"),
        ("seq_len", "４０９６０００００００"),
        ("epochs", "nan"),
        ("epochs", "inf"),
        ("epochs", "-1"),
        ("samples", "1" * 5000),
        ("deadline", "2020-01-01"),
        ("deadline", "9999-99-99"),
        ("precision", "fp8"),
        ("gradient_checkpointing", "maybe"),
        ("micro_batch", "\x00"),
    ],
)
def test_hostile_training_input_is_a_field_error_never_a_500(client, draft, field, value):
    response = post(client, draft, "training", {**TRAINING, field: value})
    assert response.status_code == 200
    assert "There is a problem" in response.content.decode()
    draft.refresh_from_db()
    assert "training" not in draft.answers


@pytest.mark.parametrize(
    "data",
    [
        {"source": "custom", "method": "full", "params_b": "1e308", "name": "x"},
        {"source": "custom", "method": "full", "name": "x" * 5000},
        {"source": "preset", "preset": "not-a-preset", "method": "lora"},
        {"source": "somewhere", "method": "lora"},
        {"source": "preset", "preset": "qwen2-5-7b", "method": "lora", "lora_target_names": "x"},
        {},
    ],
)
def test_hostile_model_input_is_a_field_error(client, draft, data):
    response = post(client, draft, "model", data)
    assert response.status_code == 200
    assert "There is a problem" in response.content.decode()


def test_custom_architecture_needs_its_shape(client, draft):
    response = post(client, draft, "model", {"source": "custom", "method": "lora", "name": "m"})
    html = response.content.decode()
    for name in ("params_b", "layers", "hidden", "heads", "intermediate", "vocab"):
        assert f'href="#id_{name}"' in html


def test_custom_architecture_with_bad_kv_heads_and_experts(client, draft):
    data = {
        "source": "custom",
        "method": "lora",
        "name": "m",
        "params_b": "7",
        "layers": "32",
        "hidden": "4096",
        "heads": "32",
        "kv_heads": "5",
        "intermediate": "11008",
        "vocab": "32000",
        "experts": "8",
        "experts_per_token": "9",
    }
    html = post(client, draft, "model", data).content.decode()
    assert "Key/value heads must divide “Attention heads” (32) evenly" in html
    assert "must be at most “Experts per layer” (8)" in html


def test_upload_a_config_json(client, draft):
    upload = SimpleUploadedFile("config.json", json.dumps(LLAMA_CONFIG).encode())
    response = post(
        client, draft, "model", {"source": "upload", "method": "lora", "config_file": upload}
    )
    assert response.status_code == 302
    draft.refresh_from_db()
    model = draft.answers["model"]
    assert model["layers"] == 32
    assert model["kv_heads"] == 8
    assert model["context_length"] == 131072
    assert model["config_filename"] == "config.json"
    assert abs(model["params_b"] - 8.03) < 0.01  # Llama 3.1 8B has 8.030 B parameters
    # Saving the step again without a new file keeps what was read.
    response = post(client, draft, "model", {"source": "upload", "method": "qlora"})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.answers["model"]["layers"] == 32


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2, 3]", "one JSON object"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (json.dumps({"hidden_size": 4096}).encode(), "has no"),
        (json.dumps({**LLAMA_CONFIG, "num_hidden_layers": "32"}).encode(), "whole number"),
        (json.dumps({**LLAMA_CONFIG, "num_hidden_layers": 10**30}).encode(), "between"),
        (b'{"hidden_size": NaN}', "not valid JSON"),
        (b"[" * 100000 + b"]" * 100000, "KiB"),
        (b"[" * 50000 + b"]" * 50000, "not valid JSON"),
        (b" " * (300 * 1024), "KiB"),
    ],
)
def test_malformed_config_json_gets_a_clear_message(client, draft, content, message):
    upload = SimpleUploadedFile("config.json", content)
    response = post(
        client, draft, "model", {"source": "upload", "method": "lora", "config_file": upload}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert message in html
    assert 'href="#id_config_file"' in html


def test_provinces_show_their_pue_limit_in_both_languages(client, draft):
    english = client.get(url(draft, "site"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Guizhou · PUE limit 1.2" in english
    chinese = client.get(url(draft, "site"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "贵州 · PUE 限值 1.2" in chinese


def test_site_own_room_and_compare(client, draft):
    response = post(client, draft, "site", {"mode": "own"})
    html = response.content.decode()
    for name in ("room_name", "province", "max_kw_per_rack", "pue", "power_feeds"):
        assert f'href="#id_{name}"' in html
    room = {
        "mode": "own",
        "room_name": "Our room",
        "province": "guizhou",
        "max_kw_per_rack": "12",
        "pue": "1.25",
        "power_feeds": "2",
        "cooling_available": ["air", "direct-liquid"],
        "inlet_temp_min_c": "25",
        "inlet_temp_max_c": "18",
    }
    html = post(client, draft, "site", room).content.decode()
    assert "must not be below the lowest" in html
    room["inlet_temp_min_c"] = "18"
    room["inlet_temp_max_c"] = "25"
    assert post(client, draft, "site", room).status_code == 302
    html = post(client, draft, "site", {"mode": "compare", "compare": ["gy-a"]}).content.decode()
    assert "Tick between 2 and 6" in html
    assert (
        post(client, draft, "site", {"mode": "compare", "compare": ["gy-a", "gy-b"]}).status_code
        == 302
    )


def test_procurement_rules(client, draft):
    family = {"nvidia-hopper", "huawei-da-vinci"}
    html = client.get(url(draft, "procurement")).content.decode()
    assert all(f'value="{key}"' in html for key in family)
    data = {
        **PROCUREMENT,
        "preferred_families": ["nvidia-hopper"],
        "excluded_families": ["nvidia-hopper"],
        "domestic": "required",
    }
    html = post(client, draft, "procurement", data).content.decode()
    assert "both chosen and excluded" in html
    assert "domestic accelerators only" in html
    data = {**PROCUREMENT, "preferred_families": ["huawei-da-vinci"], "domestic": "required"}
    assert post(client, draft, "procurement", data).status_code == 302


def test_answers_make_a_valid_scenario_with_site_and_procurement(client, draft):
    fill(client, draft, "model", "training", "site", "procurement")
    document = answers.scenario_document(draft.answers)
    scenario = load_scenario(document)
    assert scenario.model.layers == 28
    assert scenario.method == "lora"
    assert scenario.training.dataset_tokens == 20000 * 1500
    assert scenario.gradient_checkpointing is True
    assert scenario.extensions["site"] == {"data_centers": ["gy-a"]}
    assert scenario.extensions["procurement"]["modes"] == ["buy", "rent", "cloud"]
    assert scenario.extensions["procurement"]["years"] == 3


def test_check_answers_lists_everything_with_change_links(client, draft):
    fill(client, draft, "model", "training", "site", "procurement")
    response = client.get(reverse("wizard:check", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE="en")
    html = response.content.decode()
    assert "Qwen2.5-7B" in html
    assert "20,000" in html  # numbers grouped for the reader
    assert "Guiyang A" in html
    assert f"{url(draft, 'training')}?next=check#id_seq_len" in html
    # A Change link comes back to the check page.
    page = client.get(f"{url(draft, 'training')}?next=check").content.decode()
    assert 'name="next" value="check"' in page
    assert f'href="{reverse("wizard:check", args=[draft.pk])}"' in page
    response = post(client, draft, "training", {**TRAINING, "seq_len": "2048", "next": "check"})
    assert response["Location"] == reverse("wizard:check", args=[draft.pk])


def test_budget_shows_as_yuan(client, draft):
    fill(client, draft, "model", "training", "site")
    post(client, draft, "procurement", {**PROCUREMENT, "budget_cny": "3000000"})
    check = reverse("wizard:check", args=[draft.pk])
    assert "¥3,000,000" in client.get(check, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "3,000,000 元" in client.get(check, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


def test_confirm_answers(client, draft):
    fill(client, draft, "model", "training", "site", "procurement")
    response = client.post(reverse("wizard:check", args=[draft.pk]), {"version": draft.version})
    assert response.status_code == 302
    assert response["Location"] == reverse("results:list", args=[draft.pk])
    draft.refresh_from_db()
    assert draft.status == Assessment.Status.COMPLETE


def test_check_answers_before_finishing_says_what_is_missing(client, draft):
    fill(client, draft, "model")
    response = client.get(reverse("wizard:check", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE="en")
    html = response.content.decode()
    assert "Complete the section “Training”" in html
    assert "Confirm answers" not in html
    response = client.post(reverse("wizard:check", args=[draft.pk]), {"version": draft.version})
    assert response.status_code == 400
    draft.refresh_from_db()
    assert draft.status == Assessment.Status.DRAFT


def test_chinese_check_page_formats_dates(client, draft):
    fill(client, draft, "model")
    year = timezone.localdate().year + 1
    response = post(client, draft, "training", {**TRAINING, "deadline": f"{year}-03-31"})
    assert response.status_code == 302
    html = client.get(
        reverse("wizard:check", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert f"{year}年3月31日" in html
    assert "20,000" in html  # thousands grouped as in the economics pages


def test_estimate_partial_for_htmx(client, draft):
    fill(client, draft, "model")
    response = client.post(
        reverse("wizard:estimate", args=[draft.pk, "training"]),
        {**TRAINING, "version": draft.version},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<h2 id="estimate-title"')  # the panel's inside only
    assert "<html" not in html
    draft.refresh_from_db()
    assert "training" not in draft.answers  # the estimate never saves


def test_estimate_partial_for_incomplete_entries(client, draft):
    response = client.post(
        reverse("wizard:estimate", args=[draft.pk, "model"]),
        {"source": "preset"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert "Answer the questions on this page" in response.content.decode()


def test_estimate_only_on_steps_that_have_it(client, draft):
    response = client.post(reverse("wizard:estimate", args=[draft.pk, "site"]), {})
    assert response.status_code == 404


def test_preset_search_returns_options(client, buyer):
    response = client.get(reverse("wizard:preset_options"), {"q": "llama"})
    html = response.content.decode()
    assert "Llama 3.1 8B" in html
    assert "Qwen2.5-7B" not in html
    response = client.get(reverse("wizard:preset_options"), {"q": "llama", "preset": "qwen2-5-7b"})
    assert 'value="qwen2-5-7b" selected' in response.content.decode()


def test_estimate_panel_shows_gpus_and_memory_from_the_sizing_engine(client, draft):
    fill(client, draft, "model")
    endpoint = reverse("wizard:estimate", args=[draft.pk, "training"])
    lora = client.post(endpoint, {**TRAINING}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "H100 SXM5 80GB" in lora
    assert "Ascend 910B 64GB" in lora
    assert "1 GPU: H100 SXM5 80GB" in lora
    post(client, draft, "model", {**MODEL, "method": "full"})
    full = client.post(endpoint, {**TRAINING}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "GPUs: H100 SXM5 80GB" in full  # full fine-tuning of 7B needs several GPUs


def test_estimate_follows_domestic_only(client, draft):
    fill(client, draft, "model", "training")
    post(client, draft, "procurement", {**PROCUREMENT, "domestic": "required"})
    html = client.get(url(draft, "training"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Ascend 910B 64GB" in html
    assert "H100 SXM5 80GB" not in html


def test_no_javascript_estimate_button_previews_without_saving(client, draft):
    fill(client, draft, "model")
    response = post(client, draft, "training", {**TRAINING, "preview": "1"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "GPU: H100 SXM5 80GB" in html
    assert 'value="20000"' in html
    draft.refresh_from_db()
    assert "training" not in draft.answers


def test_estimate_shows_only_the_chosen_families(client, draft):
    fill(client, draft, "model", "training")
    post(client, draft, "procurement", {**PROCUREMENT, "preferred_families": ["huawei-da-vinci"]})
    html = client.get(url(draft, "training"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Ascend 910B 64GB" in html
    assert "H100 SXM5 80GB" not in html


@pytest.mark.parametrize(
    ("slug", "data"),
    [
        ("model", {"source": "custom", "method": "full", "name": "bad\x00name", "params_b": "7"}),
        ("site", {"mode": "own", "room_name": "r\x00", "province": "guizhou"}),
        ("site", {"mode": "own", "room_name": "r", "province": "atlantis"}),
        ("site", {"mode": "own", "room_name": "r", "province": "guizhou", "pue": "0.5"}),
        ("site", {"mode": "catalog", "data_center": "<script>alert(1)</script>"}),
        ("site", {"mode": "compare", "compare": ["gy-a", "nowhere"]}),
        ("procurement", {**PROCUREMENT, "years": "99"}),
        ("procurement", {**PROCUREMENT, "runs_per_year": "9000"}),
        ("procurement", {**PROCUREMENT, "rent_min_months": "0"}),
        ("procurement", {**PROCUREMENT, "resale_pct": "101"}),
        ("procurement", {**PROCUREMENT, "usage": "forever"}),
        ("procurement", {**PROCUREMENT, "budget_cny": "-1"}),
        ("procurement", {**PROCUREMENT, "budget_cny": "1e400"}),
        ("procurement", {**PROCUREMENT, "qualifications": ["bribery"]}),
        ("procurement", {**PROCUREMENT, "modes": ["steal"]}),
        ("procurement", {**PROCUREMENT, "modes": []}),
        ("procurement", {**PROCUREMENT, "domestic": "always"}),
    ],
)
def test_hostile_site_and_procurement_input_is_a_field_error(client, draft, slug, data):
    response = post(client, draft, slug, data)
    html = response.content.decode()
    assert response.status_code == 200
    assert "There is a problem" in html
    assert "<script>alert(1)</script>" not in html
    draft.refresh_from_db()
    assert slug not in draft.answers


def test_unicode_titles_and_names_are_kept(client, draft):
    response = client.post(
        reverse("wizard:rename", args=[draft.pk]),
        {"title": "贵阳 Qwen 微调 🚀", "version": draft.version},
    )
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.title == "贵阳 Qwen 微调 🚀"
    room = {
        "mode": "own",
        "room_name": "贵安机房·二期",
        "province": "guizhou",
        "max_kw_per_rack": "12",
        "pue": "1.2",
        "power_feeds": "2",
    }
    assert post(client, draft, "site", room).status_code == 302
    draft.refresh_from_db()
    assert draft.answers["site"]["room_name"] == "贵安机房·二期"


def test_modes_are_several_choices_and_domestic_can_be_preferred(client, draft):
    """Buy and cloud, not rent; domestic accelerators preferred, not required: stored as
    entered, written into the scenario's procurement section, listed on the check page."""
    fill(client, draft, "model", "training", "site")
    page = client.get(url(draft, "procurement"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert page.count('type="checkbox" name="modes"') == 3
    assert 'type="radio" name="domestic" value="preferred"' in page
    data = {**PROCUREMENT, "modes": ["buy", "cloud"], "domestic": "preferred"}
    assert post(client, draft, "procurement", data).status_code == 302
    draft.refresh_from_db()
    stored = draft.answers["procurement"]
    assert stored["modes"] == ["buy", "cloud"] and stored["domestic"] == "preferred"
    section = answers.scenario_document(draft.answers)["procurement"]
    assert section["modes"] == ["buy", "cloud"]
    assert section["prefer_domestic"] is True and section["domestic_only"] is False
    check = client.get(reverse("wizard:check", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE="en")
    html = check.content.decode()
    assert "Buy servers and host them in a data center; Rent cloud GPUs by the hour" in html
    assert "Preferred: among equal options, domestic ones rank first" in html
    nothing = post(client, draft, "procurement", {**PROCUREMENT, "modes": []})
    assert "Tick at least one way of getting the servers." in nothing.content.decode()


def test_answers_saved_with_one_mode_still_read(client, draft):
    """Answers saved before the modes became checkboxes: one ``mode`` and ``domestic_only``."""
    fill(client, draft, "model", "training", "site")
    old = {k: v for k, v in PROCUREMENT.items() if k != "modes"}
    draft.answers = {**draft.answers, "procurement": {**old, "mode": "buy", "domestic_only": True}}
    draft.save()
    section = answers.scenario_document(draft.answers)["procurement"]
    assert section["modes"] == ["buy"] and section["domestic_only"] is True
    assert not section["prefer_domestic"]
    step = next(s for s in steps.STEPS if s.slug == "procurement")
    assert step.is_complete(draft.answers)
    page = client.get(url(draft, "procurement"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="modes" value="buy" id="id_modes_0" checked' in " ".join(page.split())
    assert 'name="modes" value="rent" id="id_modes_1" checked' not in " ".join(page.split())
    assert 'name="domestic" value="required" id="id_domestic_2" checked' in " ".join(page.split())
    for old_any in ({"mode": "any"}, {}):
        every = answers.procurement_section({**old, **old_any})
        assert every["modes"] == ["buy", "rent", "cloud"]


def test_own_room_names_buying_for_it(client, draft):
    fill(client, draft, "model", "training")
    room = {
        "mode": "own",
        "room_name": "Server room 2",
        "province": "guizhou",
        "max_kw_per_rack": "20",
        "cooling_available": ["air"],
        "pue": "1.3",
        "power_feeds": "2",
    }
    assert post(client, draft, "site", room).status_code == 302
    page = client.get(url(draft, "procurement"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Buy servers for our own machine room" in page
    assert "Buy servers and host them in a data center" not in page


OWN_ROOM = {
    "mode": "own",
    "room_name": "Server room 2",
    "province": "guizhou",
    "max_kw_per_rack": "20",
    "cooling_available": ["air"],
    "pue": "1.3",
    "power_feeds": "2",
}


@pytest.mark.parametrize("old_mode", [{"mode": "any"}, {}])
def test_old_own_room_draft_with_every_mode_opens_complete(client, draft, old_mode):
    """A draft saved before the modes became checkboxes, for the buyer's own room, with the one
    radio at "any" (or no mode at all): renting a vendor's servers is no choice for an own room,
    so "any" reads as buying for the room or cloud, and the draft is the complete draft it was."""
    fill(client, draft, "model", "training")
    assert post(client, draft, "site", OWN_ROOM).status_code == 302
    draft.refresh_from_db()
    old = {k: v for k, v in PROCUREMENT.items() if k not in ("modes", "domestic")}
    draft.answers = {**draft.answers, "procurement": {**old, **old_mode}}
    draft.save()
    step = steps.get("procurement")
    assert step.status(draft.answers) == steps.COMPLETE
    assert steps.all_complete(draft.answers)
    section = answers.scenario_document(draft.answers)["procurement"]
    assert section["modes"] == ["buy", "cloud"]
    page = client.get(url(draft, "procurement"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    flat = " ".join(page.split())
    assert 'name="modes" value="buy" id="id_modes_0" checked' in flat
    assert 'name="modes" value="cloud" id="id_modes_1" checked' in flat
    check = client.get(reverse("wizard:check", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert "Needs attention" not in check.content.decode()
