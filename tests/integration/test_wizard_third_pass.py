"""Issue 29's fields in the wizard: read from a config.json, asked, carried into the scenario,
shown on the check-answers page (in both languages), and refused where they cannot apply."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from advisor.assessments import answers
from tests.integration.test_wizard_support import TRAINING
from tests.support.training_step import (
    check_page,
    post_model,
    post_training,
    scenario_of,
    start_draft,
)

pytestmark = pytest.mark.django_db

QWEN_INT4 = {
    "_name_or_path": "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4",
    "model_type": "qwen2",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "tie_word_embeddings": False,
    "vocab_size": 152064,
    "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128},
}


@pytest.fixture
def draft(client):
    return start_draft(client)


def upload(method="qlora", **extra):
    config = SimpleUploadedFile("config.json", json.dumps(QWEN_INT4).encode())
    return {"source": "upload", "method": method, "config_file": config, **extra}


def test_a_gptq_config_fills_the_quantisation_format_and_bits(client, draft):
    response = post_model(client, draft, upload())
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.answers["model"]["quant_format"] == "gptq"
    assert draft.answers["model"]["quant_bits"] == "4"
    post_training(client, draft, TRAINING)
    scenario = scenario_of(draft)
    assert scenario.quant_format == "gptq" and scenario.quant_bits == 4
    html = check_page(client, draft)
    assert "Quantisation format" in html and "A GPTQ checkpoint" in html
    chinese = check_page(client, draft, "zh-hans")
    assert "量化格式" in chinese and "GPTQ 量化检查点" in chinese


def test_a_double_quantised_bitsandbytes_config_fills_its_format(client, draft):
    bnb = {
        "quant_method": "bitsandbytes",
        "load_in_4bit": True,
        "bnb_4bit_quant_type": "nf4",
        "bnb_4bit_use_double_quant": True,
    }
    config = json.dumps({**QWEN_INT4, "quantization_config": bnb}).encode()
    data = {"source": "upload", "method": "qlora"}
    data["config_file"] = SimpleUploadedFile("config.json", config)
    response = post_model(client, draft, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.answers["model"]["quant_format"] == "nf4-double-quant"
    post_training(client, draft, TRAINING)
    assert scenario_of(draft).quant_format == "nf4-double-quant"
    chinese = check_page(client, draft, "zh-hans")
    assert "NF4（bitsandbytes，双重量化）" in chinese


def test_the_buyers_own_answer_wins_over_the_config(client, draft):
    post_model(client, draft, upload(quant_format="awq"))
    draft.refresh_from_db()
    assert draft.answers["model"]["quant_format"] == "awq"


def test_a_lora_run_on_a_quantised_config_is_not_given_a_format(client, draft):
    post_model(client, draft, upload(method="lora"))
    draft.refresh_from_db()
    assert not draft.answers["model"].get("quant_format")
    assert "quant_format" not in (answers.scenario_document(draft.answers) or {})


def test_awq_at_8_bits_is_refused_with_the_scenarios_words(client, draft):
    response = post_model(client, draft, upload(quant_format="awq", quant_bits="8"))
    assert response.status_code == 200
    assert "AWQ stores its weights in 4 bits." in response.content.decode()


@pytest.mark.parametrize(
    ("optimizer_impl", "fused_loss", "impl", "fused"),
    [("fused", "yes", "fused", True), ("foreach", "no", "foreach", False)],
)
def test_the_optimizer_implementation_and_fused_loss_reach_the_scenario(
    client, draft, optimizer_impl, fused_loss, impl, fused
):
    data = {**TRAINING, "optimizer_impl": optimizer_impl, "fused_loss": fused_loss}
    response = post_training(client, draft, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    scenario = scenario_of(draft)
    assert scenario.optimizer_impl == impl and scenario.fused_loss is fused
    html = check_page(client, draft)
    assert "AdamW implementation" in html and "Fused loss kernel" in html
    chinese = check_page(client, draft, "zh-hans")
    assert "AdamW 实现方式" in chinese and "融合损失内核" in chinese


def test_not_sure_leaves_the_documents_as_they_were(client, draft):
    post_training(client, draft, {**TRAINING, "optimizer_impl": "", "fused_loss": ""})
    draft.refresh_from_db()
    document = answers.scenario_document(draft.answers)
    assert "optimizer_impl" not in document and "fused_loss" not in document
    html = check_page(client, draft)
    assert "Not sure: the framework&#x27;s default" in html or "Not sure: the framework's" in html


def test_an_implementation_for_another_optimizer_is_refused(client, draft):
    data = {**TRAINING, "optimizer": "adafactor", "optimizer_impl": "fused"}
    response = post_training(client, draft, data)
    assert response.status_code == 200
    assert "applies only to AdamW" in response.content.decode()


@pytest.mark.parametrize(("answer", "compiled"), [("yes", True), ("no", False)])
def test_the_compiled_step_reaches_the_scenario_and_the_check_page(client, draft, answer, compiled):
    response = post_training(client, draft, {**TRAINING, "torch_compile": answer})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert scenario_of(draft).torch_compile is compiled
    assert "Compiled training step" in check_page(client, draft)
    assert "编译训练步" in check_page(client, draft, "zh-hans")


def test_not_sure_about_compile_writes_nothing(client, draft):
    post_training(client, draft, {**TRAINING, "torch_compile": ""})
    draft.refresh_from_db()
    assert "torch_compile" not in answers.scenario_document(draft.answers)


def test_what_lowers_the_drift_reaches_the_scenario_and_the_check_page(client, draft):
    data = {**TRAINING, "packed": "no", "length_grouped": "yes", "empty_cache_steps": "1"}
    response = post_training(client, draft, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    scenario = scenario_of(draft)
    assert scenario.length_grouped is True and scenario.empty_cache_steps == 1
    html = check_page(client, draft)
    assert "Samples grouped by length" in html and "Cache emptied every N steps" in html
    chinese = check_page(client, draft, "zh-hans")
    assert "样本按长度分组" in chinese and "每 N 步清空一次缓存" in chinese


def test_packed_samples_leave_the_drift_questions_out(client, draft):
    data = {**TRAINING, "packed": "yes", "length_grouped": "yes", "empty_cache_steps": "1"}
    post_training(client, draft, data)
    draft.refresh_from_db()
    document = answers.scenario_document(draft.answers)
    assert "length_grouped" not in document and "empty_cache_steps" not in document
    assert "Samples grouped by length" not in check_page(client, draft)
