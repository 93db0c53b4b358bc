"""Rules that span fields or steps, shared by the step forms and the check-answers page.

Each returns ``None`` or a sentence telling the user what is wrong and what to do. The rules and
their words are the domain's (advisor.domain.scenario, advisor.domain.document): the command
line refuses the same documents with the same sentences after the field path.
"""

from __future__ import annotations

from advisor.domain import scenario
from advisor.presentation.text import render_text

ADAPTER_FIELDS = ("lora_rank", "lora_alpha", "lora_targets", "lora_target_names")


def _text(message) -> str | None:
    return None if message is None else render_text(message)


def quant_bits_problem(method: str | None, quant_bits) -> str | None:
    return _text(scenario.quant_bits_problem(method, quant_bits))


def quant_format_problem(method: str | None, quant_format, quant_bits) -> str | None:
    return _text(scenario.quant_format_problem(method, quant_format, quant_bits))


def optimizer_impl_problem(optimizer: str | None, optimizer_impl) -> str | None:
    return _text(scenario.optimizer_impl_problem(optimizer, optimizer_impl))


def adapter_problem(method: str | None, values: dict) -> str | None:
    given = any(values.get(name) not in (None, "", []) for name in ADAPTER_FIELDS)
    return _text(scenario.adapter_problem(method, given))


def precision_problem(method: str | None, precision: str | None) -> str | None:
    return _text(scenario.precision_problem(method, precision))


def seq_len_problem(seq_len: int | None, context_length: int | None) -> str | None:
    return _text(scenario.seq_len_problem(seq_len, context_length))


def longest_sample_problem(seq_len: int | None, longest, average) -> str | None:
    return _text(scenario.longest_sample_problem(seq_len, longest, average))
