"""One architecture check where a model is entered: config.json upload, custom form, loader.

The finding: a config.json with more key/value heads than attention heads was accepted and
confirmed, and the results page then silently redirected to the check page for ever; the
upload's checks differed from the custom form's, and a missing dense MLP width was asked for
as "moe_intermediate_size".
"""

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from advisor.assessments import services
from advisor.domain.model_config import ConfigProblem as ConfigError
from advisor.domain.model_config import shape as model_fields
from advisor.domain.scenario import ScenarioError, load_scenario
from advisor.roles import PROCUREMENT_STAFF
from tests.integration.test_wizard_steps import LLAMA_CONFIG
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.training_step import post_model
from tests.support.users import make_user
from tests.unit.test_document_validation import SCENARIO

# (scenario model changes, config.json changes, custom form changes, field, config key, words)
IMPOSSIBLE = [
    (
        {"heads": 32, "kv_heads": 64},
        {"num_attention_heads": 32, "num_key_value_heads": 64},
        {"heads": "32", "kv_heads": "64"},
        "kv_heads",
        "num_key_value_heads",
        "must be at most",
    ),
    (
        {"heads": 32, "kv_heads": 12},
        {"num_attention_heads": 32, "num_key_value_heads": 12},
        {"heads": "32", "kv_heads": "12"},
        "kv_heads",
        "num_key_value_heads",
        "evenly",
    ),
    (
        {"experts": 8, "experts_per_token": 9},
        {"num_local_experts": 8, "num_experts_per_tok": 9},
        {"experts": "8", "experts_per_token": "9"},
        "experts_per_token",
        "num_experts_per_tok",
        "must be at most",
    ),
    (
        {"experts": 8, "experts_per_token": None},
        {"num_local_experts": 8},
        {"experts": "8"},
        "experts_per_token",
        "num_experts_per_tok",
        "together with",
    ),
]
IDS = ["kv>heads", "kv-not-divisor", "per-token>experts", "experts-alone"]


@pytest.mark.parametrize(
    ("model", "_config", "_form", "field", "_key", "words"), IMPOSSIBLE, ids=IDS
)
def test_the_scenario_loader_refuses(model, _config, _form, field, _key, words):
    doc = copy.deepcopy(SCENARIO)
    doc["model"].update(model)
    doc["parallelism"] = {"strategy": "fsdp"}
    with pytest.raises(ScenarioError) as error:
        load_scenario(doc)
    assert error.value.field == f"model.{field}" and words in str(error.value)


@pytest.mark.parametrize(
    ("_model", "config", "_form", "_field", "key", "words"), IMPOSSIBLE, ids=IDS
)
def test_the_config_upload_refuses_naming_the_config_key(_model, config, _form, _field, key, words):
    # In English whatever ran before in this process (the default language is Chinese).
    with translation.override("en"), pytest.raises(ConfigError) as error:
        model_fields({**LLAMA_CONFIG, **config})
    message = str(error.value)
    assert message.startswith(f"In this config, “{key}”") and words in message


def test_a_missing_dense_mlp_width_is_asked_for_by_its_usual_name():
    config = {k: v for k, v in LLAMA_CONFIG.items() if k != "intermediate_size"}
    with translation.override("en"), pytest.raises(ConfigError) as error:
        model_fields(config)
    assert "“intermediate_size”" in str(error.value)
    assert "moe_intermediate_size" not in str(error.value)


@pytest.fixture
def buyer(client):
    user = make_user("arch-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


CUSTOM = {
    "source": "custom",
    "method": "lora",
    "name": "m",
    "params_b": "7",
    "layers": "32",
    "hidden": "4096",
    "heads": "32",
    "intermediate": "11008",
    "vocab": "32000",
}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("_model", "config", "form", "field", "_key", "words"), IMPOSSIBLE, ids=IDS
)
def test_the_upload_and_the_custom_form_refuse_where_entered(
    client, buyer, _model, config, form, field, _key, words
):
    draft = services.create_assessment(buyer, "Impossible model")
    upload = SimpleUploadedFile("config.json", json.dumps({**LLAMA_CONFIG, **config}).encode())
    response = post_model(
        client, draft, {"source": "upload", "method": "lora", "config_file": upload}
    )
    assert response.status_code == 200 and words in response.content.decode()
    response = post_model(client, draft, {**CUSTOM, **form})
    html = response.content.decode()
    assert response.status_code == 200 and f'href="#id_{field}"' in html and words in html
    draft.refresh_from_db()
    assert "model" not in (draft.answers or {}), "nothing impossible is stored"


@pytest.mark.django_db
def test_results_of_an_impossible_stored_model_redirect_with_a_message(client, buyer, settings):
    """Answers stored before this check (or edited in the database) still get a message."""

    load_catalog()
    assessment = finished_assessment(buyer)
    answers = copy.deepcopy(assessment.answers)
    answers["model"] = {
        **CUSTOM,
        "params_b": 7.0,
        "layers": 32,
        "hidden": 4096,
        "heads": 32,
        "kv_heads": 64,
        "intermediate": 11008,
        "vocab": 32000,
    }
    type(assessment).objects.filter(pk=assessment.pk).update(answers=answers)
    response = client.get(
        reverse("results:list", args=[assessment.pk]), HTTP_ACCEPT_LANGUAGE="en", follow=True
    )
    assert response.redirect_chain and response.redirect_chain[-1][0].endswith(
        reverse("wizard:check", args=[assessment.pk])
    )
    html = response.content.decode()
    assert "These answers cannot be sized: model.kv_heads must be at most model.heads (32)" in html


# --- One parser: the wizard's upload and the admin's preset read a config the same way -------

QWEN_MOE_CONFIG = {
    "architectures": ["Qwen2MoeForCausalLM"],
    "model_type": "qwen2_moe",
    "hidden_size": 2048,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "intermediate_size": 5632,
    "moe_intermediate_size": 1408,
    "shared_expert_intermediate_size": 5632,
    "num_experts": 60,
    "num_experts_per_tok": 4,
    "vocab_size": 151936,
    "max_position_embeddings": 8192,
}


@pytest.mark.parametrize(
    ("config", "params_b"),
    [(LLAMA_CONFIG, 8.03), (QWEN_MOE_CONFIG, 14.3)],
    ids=["llama-3.1-8b", "qwen1.5-moe-a2.7b"],
)
def test_the_wizard_and_the_admin_read_the_same_shape_and_count(
    client, admin_client, buyer, config, params_b
):
    from advisor.wizard.forms import ModelStepForm
    from vendors.models import ModelPreset

    raw = json.dumps(config).encode()
    upload = SimpleUploadedFile("config.json", raw)
    form = ModelStepForm({"source": "upload", "method": "lora"}, {"config_file": upload})
    assert form.is_valid(), form.errors
    admin_client.post(
        reverse("admin:vendors_modelpreset_upload_config"),
        {"config_file": SimpleUploadedFile("config.json", raw), "name": "same"},
    )
    preset = ModelPreset.objects.get(name="same")
    for name in ("layers", "hidden", "heads", "kv_heads", "intermediate", "vocab", "experts"):
        assert form.cleaned_data[name] == getattr(preset, name), name
    assert form.cleaned_data["params_b"] == pytest.approx(preset.params_b)
    assert preset.params_b == pytest.approx(params_b, abs=0.05)
