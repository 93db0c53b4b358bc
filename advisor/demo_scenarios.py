"""The standard demonstration job, shared by the tests and the benches (one definition).

Qwen2.5 7B with LoRA (rank 16, all linear layers), 4,096-token packed samples, 500 M tokens
twice as a scenario document; the same job as a buyer answers the wizard (100 M tokens, three
epochs, comparing the Gui'an and Shanghai example sites, any procurement mode). The model's
architecture is its public Hugging Face ``config.json`` (as in the catalog's model preset
``qwen2-5-7b``). Nothing here is a measurement or a price: the catalog supplies those.

Plain data (no Django import): the tests and benches store the answers through
:func:`advisor.assessments.services.create_answered_assessment`.
"""

from __future__ import annotations

# A scenario document (docs/scenario-format.md) without site and procurement sections.
QWEN_7B_LORA = {
    "model": {
        "name": "Qwen2.5 7B",
        "params_b": 7.615617,
        "layers": 28,
        "hidden": 3584,
        "heads": 28,
        "kv_heads": 4,
        "intermediate": 18944,
        "vocab": 152064,
        "tied_embeddings": False,
        "experts": None,
        "experts_per_token": None,
    },
    "method": "lora",
    "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"},
    "precision": "bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 4096,
    "micro_batch": 1,
    "grad_accum": 8,
    "gradient_checkpointing": True,
    "flash_attention": True,
    "packed": True,
    "hardware": {"accelerator": None, "count": 1, "nodes": 1},
    "parallelism": {
        "strategy": "single",
        "offload": "none",
        "tensor_parallel": 1,
        "pipeline_parallel": 1,
    },
    "training": {"dataset_tokens": 500_000_000, "epochs": 2},
}

# The source article's own question: Qwen2.5 32B (its public config.json) with the same LoRA
# job; tests vary the layout, data and sections from here.
QWEN_32B_LORA = {
    **QWEN_7B_LORA,
    "model": {
        "name": "Qwen2.5 32B",
        "params_b": 32.763876,
        "layers": 64,
        "hidden": 5120,
        "heads": 40,
        "kv_heads": 8,
        "intermediate": 27648,
        "vocab": 152064,
        "tied_embeddings": False,
        "experts": None,
        "experts_per_token": None,
    },
}

# The two example sites the standard job compares.
COMPARED_SITES = ["example-guian", "example-shanghai-qingpu"]
# The standard job as the wizard hands it on: the scenario with those two sites (QWEN_7B_LORA
# alone weighs every data center of the catalog).
QWEN_7B_LORA_COMPARED = {**QWEN_7B_LORA, "site": {"data_centers": COMPARED_SITES}}

# The wizard's stored answers for the standard job (what services.save_step keeps).
MODEL = {"source": "preset", "preset": "qwen2-5-7b", "method": "lora"}
TRAINING = {
    "seq_len": 4096,
    "micro_batch": 1,
    "dataset_mode": "tokens",
    "total_tokens": 100_000_000,
    "epochs": 3,
    "precision": "amp-bf16",
    "optimizer": "adamw",
    "gradient_checkpointing": "yes",
    "flash_attention": "yes",
}
PROCUREMENT = {
    "modes": ["buy", "rent", "cloud"],
    "budget_cny": None,
    "qualifications": [],
    "preferred_families": [],
    "excluded_families": [],
    "domestic": "",
    "usage": "programme",
    "runs_per_year": 12,
    "years": 3,
    "rent_min_months": 1,
    "resale_pct": None,
}
SITE = {"mode": "compare", "compare": COMPARED_SITES}

# The same answers as a person types them into the four step forms (posted by the load bench).
STEP_VALUES = {
    "model": dict(MODEL),
    "training": {
        "seq_len": "4096",
        "micro_batch": "1",
        "dataset_mode": "tokens",
        "total_tokens": "100000000",
        "epochs": "3",
        "precision": "amp-bf16",
        "optimizer": "adamw",
        "gradient_checkpointing": "yes",
        "flash_attention": "yes",
    },
    "site": {"mode": "compare", "compare": list(COMPARED_SITES)},
    "procurement": {
        "modes": ["buy", "rent", "cloud"],
        "usage": "programme",
        "runs_per_year": "12",
        "years": "3",
        "rent_min_months": "1",
    },
}


def answers(site: dict | None = None) -> dict:
    """The standard job's answers, step by step, as the wizard stores them."""
    return {"model": MODEL, "training": TRAINING, "site": site or SITE, "procurement": PROCUREMENT}
