"""The words a person reads for the scenario's codes and the options' figures.

One place defines them; the wizard's form, the results, option and comparison pages and the
PDF brief all use these (docs/decisions/0024-capacity-cloud-labels.md). A code without a label here
is shown as itself, so a new code stays visible until it is given words.
"""

from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from advisor.domain.scenario import DEFAULT_LORA_RANK

# The scenario's optional ``framework``: each label names the tools that behave alike.
FRAMEWORK_LABELS = {
    "hf": _("Hugging Face Transformers / PEFT (LLaMA-Factory, ms-swift, TRL)"),
    "torchtune": _("torchtune"),
    "litgpt": _("LitGPT"),
    "megatron": _("Megatron-LM (NeMo, MindSpeed, Megatron-SWIFT)"),
}

# The scenario's ``packed``: whether every sequence is filled to the full length.
PACKING_LABELS = {
    True: _("Packed: every sequence is filled to the full length"),
    False: _("Varying: each batch is padded to its longest sample"),
}

# The scenario's ``method``.
METHOD_LABELS = {
    "full": _("Full fine-tuning"),
    "lora": _("LoRA"),
    "qlora": _("QLoRA"),
    "dora": _("DoRA"),
    "freeze": _("Freeze (train some layers)"),
}

# The scenario's ``precision``.
PRECISION_LABELS = {
    "amp-bf16": _("Mixed bf16"),
    "bf16": _("Pure bf16"),
    "amp-fp16": _("Mixed fp16"),
    "fp16": _("Pure fp16"),
    "fp32": _("fp32"),
}

# The scenario's ``optimizer``.
OPTIMIZER_LABELS = {
    "adamw": _("AdamW"),
    "adamw-8bit": _("8-bit AdamW"),
    "paged-adamw-8bit": _("Paged 8-bit AdamW"),
    "paged-adamw": _("Paged AdamW"),
    "adafactor": _("Adafactor"),
    "sgd": _("SGD"),
}

# The layout's ``strategy`` (how the GPUs share the work).
STRATEGY_LABELS = {
    "single": _("One GPU"),
    "ddp": _("Data parallel (DDP)"),
    "fsdp": _("Fully sharded data parallel (FSDP)"),
    "zero1": _("DeepSpeed ZeRO stage 1"),
    "zero2": _("DeepSpeed ZeRO stage 2"),
    "zero3": _("DeepSpeed ZeRO stage 3"),
}

# The scenario's ``parallelism.offload``.
OFFLOAD_LABELS = {
    "none": _("No offload"),
    "optimizer": _("Optimizer states offloaded to host memory"),
    "optimizer+params": _("Optimizer states and weights offloaded to host memory"),
}

# How the capacity is obtained (an option's cheapest mode, and the groups of options).
MODE_LABELS = {
    "buy": _("Buy and host"),
    "rent": _("Rent dedicated servers"),
    "cloud": _("Cloud GPU-hours"),
}

# The per-GPU memory components of the sizing result.
MEMORY_COMPONENT_LABELS = {
    "frozen_weights": _("Frozen weights"),
    "trainable_weights": _("Trainable weights"),
    "master_weights": _("FP32 master weights"),
    "gradients": _("Gradients"),
    "optimizer_states": _("Optimizer states"),
    "activations": _("Activations"),
    "logits": _("Logits and loss"),
    "work_buffers": _("Communication and work buffers"),
    "fragmentation": _("Allocator fragmentation"),
    "framework_overhead": _("CUDA context and framework"),
    "total": _("Total per GPU"),
}


def label(labels: dict, code) -> str:
    """The words for ``code`` in the active language; the code itself when it has none."""
    if code is None or code == "":
        return ""
    words = labels.get(code)
    return str(words) if words is not None else str(code)


def recommended(words) -> str:
    """A choice label marked as the usual one in the wizard, e.g. "Mixed bf16 (recommended)"."""
    return format_lazy(_("{label} (recommended)"), label=words)


def default(words) -> str:
    return format_lazy(_("{label} (default)"), label=words)


def parallelism_label(strategy, tensor_parallel) -> str:
    """E.g. "Fully sharded data parallel (FSDP), no tensor parallelism"."""
    words = label(STRATEGY_LABELS, strategy)
    tp = int(tensor_parallel or 1)
    if tp <= 1:
        return gettext("%(strategy)s, no tensor parallelism") % {"strategy": words}
    return gettext("%(strategy)s, tensor parallel over %(tp)d GPUs") % {
        "strategy": words,
        "tp": tp,
    }


def method_label(method, lora) -> str:
    """E.g. "LoRA, rank 8 (the PEFT default)" or "LoRA, rank 16"; full methods: the name."""
    words = label(METHOD_LABELS, method)
    if lora is None:
        return words
    rank = lora.get("rank") if isinstance(lora, dict) else getattr(lora, "rank", None)
    if rank is None:
        return gettext("%(method)s, rank %(rank)d (the PEFT default)") % {
            "method": words,
            "rank": DEFAULT_LORA_RANK,
        }
    return gettext("%(method)s, rank %(rank)d") % {"method": words, "rank": int(rank)}
