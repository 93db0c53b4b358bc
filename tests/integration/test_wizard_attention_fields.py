"""Issue 29's attention-shape fields in the wizard: an uploaded config.json with a head size, a
sliding-window pattern and a quantisation config fills them, they reach the scenario, and the
check-answers page shows them in both languages; the model step refuses what cannot be."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from advisor.assessments import answers
from advisor.domain import model_config
from tests.integration.test_wizard_support import TRAINING
from tests.support.training_step import (
    check_page,
    post_model,
    post_training,
    scenario_of,
    start_draft,
)

pytestmark = pytest.mark.django_db

# Gemma 2 9B's config.json (google/gemma-2-9b) with a bitsandbytes NF4 quantisation config, as
# a quantised copy of the checkpoint carries it.
GEMMA2_NF4 = {
    "_name_or_path": "google/gemma-2-9b",
    "architectures": ["Gemma2ForCausalLM"],
    "model_type": "gemma2",
    "hidden_size": 3584,
    "intermediate_size": 14336,
    "num_attention_heads": 16,
    "num_hidden_layers": 42,
    "num_key_value_heads": 8,
    "head_dim": 256,
    "sliding_window": 4096,
    "max_position_embeddings": 8192,
    "vocab_size": 256000,
    "tie_word_embeddings": True,
    "quantization_config": {
        "quant_method": "bitsandbytes",
        "load_in_4bit": True,
        "bnb_4bit_quant_type": "nf4",
    },
}


@pytest.fixture
def draft(client):
    return start_draft(client)


def upload(config, method="qlora"):
    file = SimpleUploadedFile("config.json", json.dumps(config).encode())
    return {"source": "upload", "method": method, "config_file": file}


def test_an_uploaded_config_fills_head_size_window_and_quantisation(client, draft):
    response = post_model(client, draft, upload(GEMMA2_NF4))
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    model = draft.answers["model"]
    assert (model["head_dim"], model["sliding_window"], model["sliding_window_layers"]) == (
        256,
        4096,
        21,
    )
    assert (model["quant_format"], model["quant_bits"]) == ("nf4", "4")
    post_training(client, draft, TRAINING)
    scenario = scenario_of(draft)
    assert scenario.model.head_dim == 256 and scenario.model.layout.q_out == 4096
    assert (scenario.model.sliding_window, scenario.model.sliding_window_layers) == (4096, 21)
    assert scenario.quant_format == "nf4" and scenario.quant_bits == 4
    html = check_page(client, draft)
    for label in ("Attention head size", "Sliding attention window", "Layers that use the window"):
        assert label in html
    assert "NF4 (bitsandbytes)" in html
    chinese = check_page(client, draft, "zh-hans")
    for label in ("注意力头维度", "滑动注意力窗口", "使用滑动窗口的层数"):
        assert label in chinese


def test_a_config_without_them_leaves_the_document_as_it_was(client, draft):
    plain = {k: v for k, v in GEMMA2_NF4.items() if k not in ("head_dim", "sliding_window")}
    plain["hidden_size"] = 4096  # 16 heads of 256 = the hidden size: no head size stated
    post_model(client, draft, upload(plain, method="lora"))
    post_training(client, draft, TRAINING)
    draft.refresh_from_db()
    document = answers.scenario_document(draft.answers)
    assert not {"head_dim", "sliding_window", "sliding_window_layers"} & set(document["model"])
    html = check_page(client, draft)
    assert "Hidden size ÷ attention heads" in html


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # gpt-oss: layer_types names the windowed layers.
        (
            {
                "sliding_window": 128,
                "layer_types": ["sliding_attention", "full_attention"] * 12,
            },
            (128, 12),
        ),
        # Mistral 7B v0.1: every layer.
        ({"model_type": "mistral", "sliding_window": 4096}, (4096, None)),
        # Qwen2/2.5/3 configs state a window and turn it off.
        ({"model_type": "qwen2", "sliding_window": 131072, "use_sliding_window": False}, None),
        # Mistral 7B v0.2: null.
        ({"model_type": "mistral", "sliding_window": None}, None),
    ],
)
def test_the_window_pattern_is_read_as_each_config_states_it(config, expected):
    shape = {**{k: v for k, v in GEMMA2_NF4.items() if k != "model_type"}, "num_hidden_layers": 24}
    shape.pop("architectures")
    shape.pop("sliding_window")
    shape.update(config)
    read = model_config.read(json.dumps(shape).encode())
    assert (read["sliding_window"], read["sliding_window_layers"]) == (expected or (None, None))


def test_window_layers_without_a_window_are_refused(client, draft):
    data = {
        "source": "custom",
        "method": "lora",
        "name": "Mine",
        "params_b": "9.2",
        "layers": "42",
        "hidden": "3584",
        "heads": "16",
        "intermediate": "14336",
        "vocab": "256000",
        "sliding_window_layers": "21",
    }
    response = post_model(client, draft, data)
    assert response.status_code == 200
    assert "Give the window&#x27;s length too" in response.content.decode()
    response = post_model(
        client, draft, {**data, "sliding_window": "4096", "sliding_window_layers": "43"}
    )
    assert "At most the number of layers (42)." in response.content.decode()
