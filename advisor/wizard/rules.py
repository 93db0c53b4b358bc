"""Rules that span fields or steps, shared by the step forms and the check-answers page.

Each returns ``None`` or a sentence telling the user what is wrong and what to do.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from advisor.domain.scenario import ADAPTER_METHODS

ADAPTER_FIELDS = ("lora_rank", "lora_alpha", "lora_targets", "lora_target_names")


def quant_bits_problem(method: str | None, quant_bits) -> str | None:
    if quant_bits not in (None, "") and method != "qlora":
        return _(
            "Quantised base weights apply only to QLoRA. Choose QLoRA as the method, "
            "or leave this empty."
        )
    return None


def adapter_problem(method: str | None, values: dict) -> str | None:
    if method in ADAPTER_METHODS:
        return None
    if any(values.get(name) not in (None, "", []) for name in ADAPTER_FIELDS):
        return _(
            "Adapter rank, alpha and targets apply only to LoRA, QLoRA or DoRA. "
            "Choose one of those methods, or clear the adapter settings."
        )
    return None


def precision_problem(method: str | None, precision: str | None) -> str | None:
    if method == "qlora" and precision == "fp32":
        return _(
            "QLoRA stores the frozen model in 4 or 8 bits and computes in 16 bits, so it "
            "cannot run in fp32. Choose bf16 (or mixed bf16), or choose LoRA for fp32."
        )
    return None


def seq_len_problem(seq_len: int | None, context_length: int | None) -> str | None:
    if seq_len and context_length and seq_len > context_length:
        return _(
            "The model was trained for at most %(context)s tokens per sequence; "
            "%(seq_len)s is longer. Use %(context)s or less, or choose a model with a "
            "longer context."
        ) % {"context": f"{context_length:,}", "seq_len": f"{seq_len:,}"}
    return None
