"""The rules across fields: a model's impossible shapes, the checks the wizard and the loader
share word for word, and the consistency of a whole scenario."""

from __future__ import annotations

from advisor.domain.i18n import N_, Message
from advisor.domain.scenario.model import ModelArch, Scenario
from advisor.domain.scenario.values import ADAPTER_METHODS, QUANT_FORMATS_4BIT, ScenarioError

# The names the architecture check uses for the fields it compares (the scenario's paths);
# the wizard's form passes its labels and the config.json reader the config's own keys.
ARCHITECTURE_NAMES = {
    "heads": "model.heads",
    "kv_heads": "model.kv_heads",
    "experts": "model.experts",
    "experts_per_token": "model.experts_per_token",
}


def architecture_problem(m, names=ARCHITECTURE_NAMES) -> tuple[str, Message] | None:
    """The first of :func:`architecture_problems`, or None."""
    problems = architecture_problems(m, names)
    return problems[0] if problems else None


def architecture_problems(m, names=ARCHITECTURE_NAMES) -> list[tuple[str, Message]]:
    """The impossible combinations in a model's shape, as ``(field, message)`` pairs.

    One check for every place a model is entered: the scenario loader, the wizard's custom
    model form and its config.json upload. ``m`` maps field names (``heads``, ``kv_heads``,
    ``experts``, ``experts_per_token``) to whole numbers or None; ``names`` says how the
    message names the other field (a path, a form label or a config key).
    """
    problems = []
    heads, kv_heads = m.get("heads"), m.get("kv_heads")
    if heads is not None and kv_heads is not None:
        if kv_heads > heads:
            problems.append(
                (
                    "kv_heads",
                    Message(
                        N_("must be at most {other} ({value})"),
                        {"other": names["heads"], "value": heads},
                    ),
                )
            )
        elif heads % kv_heads:
            problems.append(
                (
                    "kv_heads",
                    Message(
                        N_("must divide {other} ({value}) evenly"),
                        {"other": names["heads"], "value": heads},
                    ),
                )
            )
    experts, per_token = m.get("experts"), m.get("experts_per_token")
    if (experts is None) != (per_token is None):
        field_name = "experts_per_token" if per_token is None else "experts"
        other = "experts" if field_name == "experts_per_token" else "experts_per_token"
        problems.append(
            (
                field_name,
                Message(
                    N_("must be given together with {other} (both empty for a dense model)"),
                    {"other": names[other]},
                ),
            )
        )
    elif experts is not None and per_token > experts:
        problems.append(
            (
                "experts_per_token",
                Message(
                    N_("must be at most {other} ({value})"),
                    {"other": names["experts"], "value": experts},
                ),
            )
        )
    return problems


# Rules the wizard and the scenario loader share, word for word (the wizard renders these
# messages next to its fields; the CLIs print them after the field path).
QUANT_BITS_ONLY_QLORA = N_(
    "Quantised base weights apply only to QLoRA. Choose QLoRA as the method, or leave this empty."
)
OPTIMIZER_IMPL_ONLY_ADAMW = N_(
    "A fused or foreach implementation applies only to AdamW. Choose AdamW as the optimizer, or "
    "leave the implementation to the framework's default."
)
QUANT_FORMAT_ONLY_QLORA = N_(
    "A quantisation format applies only to QLoRA. Choose QLoRA as the method, or leave this empty."
)
QUANT_FORMAT_4BIT = N_(
    "{format} stores its weights in 4 bits. Set the quantised base weights to 4 bits, or leave "
    "them empty."
)
FUSED_LOSS_IS_CHUNKED = N_(
    "A fused linear cross-entropy works through the tokens in chunks, so it cannot go with "
    "loss_chunking false. Leave loss_chunking empty or true, or the fused loss false."
)
ADAPTER_ONLY_ADAPTER_METHODS = N_(
    "Adapter rank, alpha and targets apply only to LoRA, QLoRA or DoRA. Choose one of those "
    "methods, or clear the adapter settings."
)
QLORA_NOT_FP32 = N_(
    "QLoRA stores the frozen model in 4 or 8 bits and computes in 16 bits, so it cannot run in "
    "fp32. Choose bf16 (or mixed bf16), or choose LoRA for fp32."
)
LONGER_THAN_CONTEXT = N_(
    "The model was trained for at most {context} tokens per sequence; {seq_len} is longer. Use "
    "{context} or less, or choose a model with a longer context."
)


def quant_bits_problem(method: str | None, quant_bits) -> Message | None:
    if quant_bits not in (None, "") and method != "qlora":
        return Message(QUANT_BITS_ONLY_QLORA)
    return None


def adapter_problem(method: str | None, has_adapter_settings: bool) -> Message | None:
    if method not in ADAPTER_METHODS and has_adapter_settings:
        return Message(ADAPTER_ONLY_ADAPTER_METHODS)
    return None


def precision_problem(method: str | None, precision: str | None) -> Message | None:
    if method == "qlora" and precision == "fp32":
        return Message(QLORA_NOT_FP32)
    return None


def seq_len_problem(seq_len: int | None, context_length: int | None) -> Message | None:
    if seq_len and context_length and seq_len > context_length:
        return Message(
            LONGER_THAN_CONTEXT, {"context": f"{context_length:,}", "seq_len": f"{seq_len:,}"}
        )
    return None


LONGEST_ABOVE_SEQ_LEN = N_(
    "The longest sample ({longest} tokens) is longer than seq_len ({seq_len}), where samples "
    "are truncated. Give {seq_len} or less, or raise seq_len."
)
AVERAGE_ABOVE_LONGEST = N_(
    "The average tokens per sample ({average}) is more than the longest sample ({longest}). "
    "Check both figures."
)


def longest_sample_problem(seq_len, longest, average) -> Message | None:
    """The longest sample must fit the truncation bound and be at least the average."""
    if longest and seq_len and longest > seq_len:
        return Message(
            LONGEST_ABOVE_SEQ_LEN, {"longest": f"{longest:,}", "seq_len": f"{seq_len:,}"}
        )
    if longest and average and average > longest:
        return Message(
            AVERAGE_ABOVE_LONGEST, {"average": f"{average:,}", "longest": f"{longest:,}"}
        )
    return None


def optimizer_impl_problem(optimizer: str | None, optimizer_impl) -> Message | None:
    if optimizer_impl not in (None, "") and (optimizer or "adamw") != "adamw":
        return Message(OPTIMIZER_IMPL_ONLY_ADAMW)
    return None


def fused_loss_problem(fused_loss, loss_chunking) -> Message | None:
    if fused_loss is True and loss_chunking is False:
        return Message(FUSED_LOSS_IS_CHUNKED)
    return None


def quant_format_problem(method: str | None, quant_format, quant_bits) -> Message | None:
    if quant_format in (None, ""):
        return None
    if method != "qlora":
        return Message(QUANT_FORMAT_ONLY_QLORA)
    if quant_format in QUANT_FORMATS_4BIT and quant_bits not in (None, "", 4, "4"):
        return Message(QUANT_FORMAT_4BIT, {"format": quant_format.upper()})
    return None


def _check_consistency(s: Scenario) -> None:
    """Rules that involve more than one field."""
    for field_path, problem in (
        ("quant_format", quant_format_problem(s.method, s.quant_format, s.quant_bits)),
        ("fused_loss", fused_loss_problem(s.fused_loss, s.loss_chunking)),
        ("optimizer_impl", optimizer_impl_problem(s.optimizer, s.optimizer_impl)),
        ("lora", adapter_problem(s.method, s.lora is not None)),
        ("quant_bits", quant_bits_problem(s.method, s.quant_bits)),
        ("precision", precision_problem(s.method, s.precision)),
        ("seq_len", seq_len_problem(s.seq_len, s.model.context_length)),
        (
            "longest_sample_tokens",
            longest_sample_problem(s.seq_len, s.longest_sample_tokens, s.avg_tokens_per_sample),
        ),
    ):
        if problem is not None:
            raise ScenarioError(field_path, problem)
    if s.model.heads is not None and s.parallelism.tensor_parallel > s.model.heads:
        raise ScenarioError(
            "parallelism.tensor_parallel",
            Message(N_("must be at most model.heads ({heads})"), {"heads": s.model.heads}),
        )
    if s.model.layers is not None and s.parallelism.pipeline_parallel > s.model.layers:
        raise ScenarioError(
            "parallelism.pipeline_parallel",
            Message(N_("must be at most model.layers ({layers})"), {"layers": s.model.layers}),
        )
    model_parallel = s.parallelism.model_parallel
    if s.hardware.count % model_parallel:
        raise ScenarioError(
            "hardware.count",
            Message(
                N_("must be a multiple of tensor_parallel x pipeline_parallel ({model_parallel})"),
                {"model_parallel": model_parallel},
            ),
        )
    _check_window(s.model)
    _check_context_parallel(s)
    single = model_parallel * s.parallelism.context_parallel
    if s.parallelism.strategy == "single" and s.hardware.count != single:
        raise ScenarioError("parallelism.strategy", _single_needs(s, single))
    _check_expert_parallel(s)


def _single_needs(s: Scenario, gpus: int) -> Message:
    """Why a single-strategy scenario's GPU count is refused, naming the degrees it multiplies."""
    if s.parallelism.context_parallel == 1:
        return Message(
            N_(
                "is single (no data parallelism), so hardware.count must equal "
                "tensor_parallel x pipeline_parallel ({model_parallel}); "
                "use ddp, zero1-3 or fsdp for more GPUs"
            ),
            {"model_parallel": gpus},
        )
    return Message(
        N_(
            "is single (no data parallelism), so hardware.count must equal "
            "tensor_parallel x pipeline_parallel x context_parallel ({gpus}); "
            "use ddp, zero1-3 or fsdp for more GPUs"
        ),
        {"gpus": gpus},
    )


def _check_window(m: ModelArch) -> None:
    """The windowed layers need a window, and are at most all the layers; shared experts need
    routed ones."""
    if m.shared_expert_intermediate is not None and not m.is_moe:
        raise ScenarioError(
            "model.shared_expert_intermediate",
            Message(N_("only for a mixture-of-experts model (model.experts above 1)")),
        )
    if m.sliding_window_layers is not None:
        if m.sliding_window is None:
            raise ScenarioError(
                "model.sliding_window_layers",
                Message(N_("needs model.sliding_window (the window those layers use)")),
            )
        if m.layers is not None and m.sliding_window_layers > m.layers:
            raise ScenarioError(
                "model.sliding_window_layers",
                Message(N_("must be at most model.layers ({layers})"), {"layers": m.layers}),
            )


def _check_context_parallel(s: Scenario) -> None:
    """Context parallelism splits whole data-parallel groups (Megatron-Core: world = tensor x
    pipeline x context x data)."""
    cp = s.parallelism.context_parallel
    if s.data_parallel % cp:
        raise ScenarioError(
            "parallelism.context_parallel",
            Message(
                N_(
                    "must divide the data-parallel degree, hardware.count / (tensor_parallel x "
                    "pipeline_parallel) ({data_parallel})"
                ),
                {"data_parallel": s.data_parallel},
            ),
        )
    if s.parallelism.context_parallel_comm is not None and cp == 1:
        raise ScenarioError(
            "parallelism.context_parallel_comm",
            Message(N_("needs parallelism.context_parallel above 1")),
        )


def _check_expert_parallel(s: Scenario) -> None:
    """Expert parallelism splits the routed experts over GPUs of one data-parallel group."""
    ep = s.parallelism.expert_parallel
    if ep == 1:
        return
    path = "parallelism.expert_parallel"
    if not s.model.is_moe:
        raise ScenarioError(
            path, Message(N_("must be 1 unless the model has routed experts (model.experts)"))
        )
    if s.model.experts % ep:
        raise ScenarioError(
            path,
            Message(N_("must divide model.experts ({experts})"), {"experts": s.model.experts}),
        )
    if s.data_parallel % ep:
        raise ScenarioError(
            path,
            Message(
                N_(
                    "must divide the data-parallel degree, hardware.count / (tensor_parallel x "
                    "pipeline_parallel) ({data_parallel})"
                ),
                {"data_parallel": s.data_parallel},
            ),
        )
