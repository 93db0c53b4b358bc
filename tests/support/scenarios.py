"""Test data: the standard job (advisor/demo_scenarios.py, which the benches share) and the
builders that vary it. Each builder returns a copy of its own, so a test that changes its
document never changes the one another test reads."""

from __future__ import annotations

import copy

from advisor.demo_scenarios import (
    COMPARED_SITES,
    MODEL,
    PROCUREMENT,
    QWEN_7B_LORA,
    QWEN_7B_LORA_COMPARED,
    QWEN_32B_LORA,
    SITE,
    STEP_VALUES,
    TRAINING,
)
from advisor.demo_scenarios import answers as standard_answers

__all__ = [
    "COMPARED_SITES",
    "MODEL",
    "PROCUREMENT",
    "QWEN_7B_LORA",
    "QWEN_7B_LORA_COMPARED",
    "QWEN_32B_LORA",
    "SITE",
    "STEP_VALUES",
    "TRAINING",
    "LLAMA2_7B_MODEL",
    "answers",
    "llama2_7b_full",
    "scenario",
]


def scenario(base: dict | None = None, **sections) -> dict:
    """A scenario document of its own (a deep copy): ``base`` (default: the standard 7B job)
    with the given top-level sections replaced.
    ``scenario(QWEN_32B_LORA, site={"data_centers": ["example-guian"]})``."""
    document = copy.deepcopy(QWEN_7B_LORA if base is None else base)
    document.update(copy.deepcopy(sections))
    return document


def answers(site: dict | None = None, **steps) -> dict:
    """The standard job's answers, step by step, as the wizard stores them; a step given by
    name merges into the standard one: ``answers(procurement={"modes": ["cloud"]})``."""
    stored = standard_answers(site)
    for name, values in steps.items():
        stored[name] = {**stored[name], **values}
    return copy.deepcopy(stored)


# Llama 2 7B: 32 layers, hidden 4096, 32 heads (MHA), SwiGLU 11008, vocab 32000, untied;
# 6,738,415,616 parameters (its Hugging Face config.json).
LLAMA2_7B_MODEL = {
    "name": "Llama 2 7B",
    "params_b": 6.738415616,
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 32,
    "intermediate": 11008,
    "vocab": 32000,
    "tied_embeddings": False,
    "experts": None,
    "experts_per_token": None,
}


def llama2_7b_full(accelerator: str, strategy: str) -> dict:
    """A sizing scenario (no site): full fine-tuning of Llama 2 7B (6,738,415,616 parameters)
    in mixed bf16 on one server of eight ``accelerator`` cards under ``strategy``, 4,096-token
    packed sequences, checkpointing and flash attention, four micro-batches of one per step."""
    return {
        "model": copy.deepcopy(LLAMA2_7B_MODEL),
        "method": "full",
        "lora": None,
        "precision": "amp-bf16",
        "quant_bits": None,
        "optimizer": "adamw",
        "optimizer_in_backward": False,
        "seq_len": 4096,
        "micro_batch": 1,
        "grad_accum": 4,
        "gradient_checkpointing": True,
        "flash_attention": True,
        "packed": True,
        "hardware": {"accelerator": accelerator, "count": 8, "nodes": 1},
        "parallelism": {
            "strategy": strategy,
            "offload": "none",
            "tensor_parallel": 1,
            "pipeline_parallel": 1,
        },
        "training": {"dataset_tokens": None, "epochs": None},
    }
