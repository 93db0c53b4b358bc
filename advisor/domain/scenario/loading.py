"""Loading a scenario document into frozen dataclasses (:func:`load_scenario`) and writing it
back (:func:`dump_scenario`), key order included."""

from __future__ import annotations

from advisor.domain.i18n import N_, Message
from advisor.domain.scenario.fields import (
    _bool,
    _check_keys,
    _choice,
    _int,
    _int_or_one,
    _is_int,
    _number,
    _optional_choice,
    _section,
    _string,
    _type_error,
)
from advisor.domain.scenario.model import (
    Hardware,
    LoraConfig,
    ModelArch,
    Parallelism,
    Scenario,
    Training,
)
from advisor.domain.scenario.rules import _check_consistency, architecture_problem
from advisor.domain.scenario.values import (
    CONTEXT_PARALLEL_COMMS,
    FRAMEWORKS,
    LORA_TARGET_NAMES,
    LORA_TARGET_PRESETS,
    METHODS,
    OFFLOADS,
    OPTIMIZER_IMPLS,
    OPTIMIZERS,
    PRECISIONS,
    QUANT_BITS,
    QUANT_FORMATS,
    STRATEGIES,
    ScenarioError,
)

# --- Loading ------------------------------------------------------------------------------

# The model's shape: the fields a catalog preset holds, and the core of every scenario's model.
MODEL_SHAPE_KEYS = (
    "params_b",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "intermediate",
    "vocab",
    "tied_embeddings",
    "experts",
    "experts_per_token",
)
_MODEL_KEYS = (
    "name",
    *MODEL_SHAPE_KEYS,
    "sliding_window",
    "causal_mask_positions",
    "context_length",
    "sliding_window_layers",
    "head_dim",
    "shared_expert_intermediate",
)
_LORA_KEYS = ("rank", "alpha", "targets", "dropout")
_HARDWARE_KEYS = ("accelerator", "count", "nodes")
_PARALLELISM_KEYS = (
    "strategy",
    "offload",
    "tensor_parallel",
    "pipeline_parallel",
    "expert_parallel",
    "context_parallel",
    "context_parallel_comm",
)
_TRAINING_KEYS = ("dataset_tokens", "epochs")
# Optional top-level fields, written back only when the document gave them (or they are set).
WRITTEN_WHEN_GIVEN = (
    "loss_chunking",
    "framework",
    "avg_tokens_per_sample",
    "longest_sample_tokens",
    "moe_grouped_gemm",
    "optimizer_impl",
    "fused_loss",
    "quant_format",
    "torch_compile",
    "length_grouped",
    "empty_cache_steps",
)
_TOP_KEYS = (
    "model",
    "method",
    "lora",
    "precision",
    "quant_bits",
    "optimizer",
    "optimizer_in_backward",
    "seq_len",
    "micro_batch",
    "grad_accum",
    "gradient_checkpointing",
    "flash_attention",
    "packed",
    "hardware",
    "parallelism",
    "training",
    *WRITTEN_WHEN_GIVEN,
)


def _load_model(data: dict) -> ModelArch:
    _check_keys(data, _MODEL_KEYS, "model.")
    model = ModelArch(
        name=_string(data, "name", "model.name"),
        params_b=_number(data, "params_b", "model.params_b"),
        layers=_int(data, "layers", "model.layers", nullable=True),
        hidden=_int(data, "hidden", "model.hidden", nullable=True),
        heads=_int(data, "heads", "model.heads", nullable=True),
        kv_heads=_int(data, "kv_heads", "model.kv_heads", nullable=True),
        intermediate=_int(data, "intermediate", "model.intermediate", nullable=True),
        vocab=_int(data, "vocab", "model.vocab", nullable=True),
        tied_embeddings=_bool(data, "tied_embeddings", "model.tied_embeddings", nullable=True),
        experts=_int(data, "experts", "model.experts", nullable=True),
        experts_per_token=_int(data, "experts_per_token", "model.experts_per_token", nullable=True),
        sliding_window=_int(data, "sliding_window", "model.sliding_window", nullable=True),
        causal_mask_positions=_int(
            data, "causal_mask_positions", "model.causal_mask_positions", nullable=True
        ),
        context_length=_int(data, "context_length", "model.context_length", nullable=True),
        sliding_window_layers=_int(
            data, "sliding_window_layers", "model.sliding_window_layers", nullable=True
        ),
        head_dim=_int(data, "head_dim", "model.head_dim", nullable=True),
        shared_expert_intermediate=_int(
            data, "shared_expert_intermediate", "model.shared_expert_intermediate", nullable=True
        ),
    )
    problem = architecture_problem(model.__dict__)
    if problem is not None:
        field_name, message = problem
        raise ScenarioError(f"model.{field_name}", message)
    return model


def _load_lora(data) -> LoraConfig | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise _type_error("lora", N_("must be an object or null"))
    _check_keys(data, _LORA_KEYS, "lora.")
    targets = data.get("targets")
    if isinstance(targets, list):
        if not targets:
            raise _type_error("lora.targets", N_("must be a non-empty list"))
        for index, name in enumerate(targets):
            if name not in LORA_TARGET_NAMES:
                raise ScenarioError(
                    f"lora.targets[{index}]",
                    Message(
                        N_("must be one of: {allowed}"), {"allowed": ", ".join(LORA_TARGET_NAMES)}
                    ),
                )
        targets = tuple(targets)
    elif targets is not None and targets not in LORA_TARGET_PRESETS:
        raise ScenarioError(
            "lora.targets",
            Message(
                N_("must be one of: {allowed}, a list of matrix names, or null"),
                {"allowed": ", ".join(LORA_TARGET_PRESETS)},
            ),
        )
    return LoraConfig(
        rank=_int(data, "rank", "lora.rank", nullable=True),
        alpha=_int(data, "alpha", "lora.alpha", nullable=True),
        targets=targets,
        dropout=_number(data, "dropout", "lora.dropout", nullable=True),
    )


def _load_hardware(data: dict) -> Hardware:
    _check_keys(data, _HARDWARE_KEYS, "hardware.")
    accelerator = data.get("accelerator")
    if accelerator is not None and (not isinstance(accelerator, str) or not accelerator.strip()):
        raise _type_error("hardware.accelerator", N_("must be an accelerator key or null"))
    hardware = Hardware(
        accelerator=accelerator,
        count=_int(data, "count", "hardware.count"),
        nodes=_int(data, "nodes", "hardware.nodes"),
    )
    if hardware.nodes > hardware.count:
        raise ScenarioError(
            "hardware.nodes",
            Message(N_("must be at most hardware.count ({count})"), {"count": hardware.count}),
        )
    return hardware


def _load_parallelism(data: dict) -> Parallelism:
    _check_keys(data, _PARALLELISM_KEYS, "parallelism.")
    return Parallelism(
        strategy=_choice(data, "strategy", "parallelism.strategy", STRATEGIES),
        offload=_choice(data, "offload", "parallelism.offload", OFFLOADS, default="none"),
        tensor_parallel=_int_or_one(data, "tensor_parallel", "parallelism.tensor_parallel"),
        pipeline_parallel=_int_or_one(data, "pipeline_parallel", "parallelism.pipeline_parallel"),
        expert_parallel=_int_or_one(data, "expert_parallel", "parallelism.expert_parallel"),
        context_parallel=_int_or_one(data, "context_parallel", "parallelism.context_parallel"),
        context_parallel_comm=_optional_choice(
            data,
            "context_parallel_comm",
            "parallelism.context_parallel_comm",
            CONTEXT_PARALLEL_COMMS,
        ),
    )


def _load_training(data) -> Training:
    if data is None:
        return Training(None, None)
    if not isinstance(data, dict):
        raise _type_error("training", N_("must be an object or null"))
    _check_keys(data, _TRAINING_KEYS, "training.")
    return Training(
        dataset_tokens=_int(data, "dataset_tokens", "training.dataset_tokens", nullable=True),
        epochs=_number(data, "epochs", "training.epochs", nullable=True),
    )


def load_scenario(data: dict) -> Scenario:
    """Validate a scenario v1 document and return it as dataclasses.

    Raises :class:`ScenarioError` (never anything else) for any invalid input.
    """
    if not isinstance(data, dict):
        raise _type_error("scenario", N_("must be a JSON object"))
    extensions = {}
    for key, value in data.items():
        if not isinstance(key, str):
            raise _type_error("scenario", N_("must be an object with text keys"))
        if key not in _TOP_KEYS:
            if isinstance(value, dict):
                extensions[key] = value  # a future section: kept, not interpreted
            else:
                _check_keys({key: value}, _TOP_KEYS, "")
    scenario = Scenario(
        model=_load_model(_section(data, "model", "model")),
        method=_choice(data, "method", "method", METHODS),
        lora=_load_lora(data.get("lora")),
        precision=_choice(data, "precision", "precision", PRECISIONS),
        quant_bits=_quant_bits(data.get("quant_bits")),
        optimizer=_choice(data, "optimizer", "optimizer", OPTIMIZERS, default="adamw"),
        optimizer_in_backward=bool(
            _bool(data, "optimizer_in_backward", "optimizer_in_backward", nullable=True)
        ),
        seq_len=_int(data, "seq_len", "seq_len"),
        micro_batch=_int(data, "micro_batch", "micro_batch"),
        grad_accum=_int_or_one(data, "grad_accum", "grad_accum"),
        gradient_checkpointing=_bool(
            data, "gradient_checkpointing", "gradient_checkpointing", nullable=True
        ),
        flash_attention=_bool(data, "flash_attention", "flash_attention", nullable=True),
        packed=_bool(data, "packed", "packed", nullable=True),
        hardware=_load_hardware(_section(data, "hardware", "hardware")),
        parallelism=_load_parallelism(_section(data, "parallelism", "parallelism")),
        training=_load_training(data.get("training")),
        loss_chunking=_bool(data, "loss_chunking", "loss_chunking", nullable=True),
        framework=_optional_choice(data, "framework", "framework", FRAMEWORKS),
        avg_tokens_per_sample=_int(
            data, "avg_tokens_per_sample", "avg_tokens_per_sample", nullable=True
        ),
        longest_sample_tokens=_int(
            data, "longest_sample_tokens", "longest_sample_tokens", nullable=True
        ),
        moe_grouped_gemm=_bool(data, "moe_grouped_gemm", "moe_grouped_gemm", nullable=True),
        optimizer_impl=_optional_choice(data, "optimizer_impl", "optimizer_impl", OPTIMIZER_IMPLS),
        fused_loss=_bool(data, "fused_loss", "fused_loss", nullable=True),
        quant_format=_optional_choice(data, "quant_format", "quant_format", QUANT_FORMATS),
        torch_compile=_bool(data, "torch_compile", "torch_compile", nullable=True),
        length_grouped=_bool(data, "length_grouped", "length_grouped", nullable=True),
        empty_cache_steps=_int(data, "empty_cache_steps", "empty_cache_steps", nullable=True),
        extensions=extensions,
        key_order=tuple(data.keys()),
    )
    _check_consistency(scenario)
    return scenario


def _quant_bits(value) -> int | None:
    if value is None:
        return None
    if not _is_int(value) or value not in QUANT_BITS:
        raise ScenarioError(
            "quant_bits",
            Message(N_("must be one of: {allowed}"), {"allowed": "4, 8, null"}),
        )
    return value


# --- Dumping ------------------------------------------------------------------------------


def _dump_model(m: ModelArch) -> dict:
    out = {key: getattr(m, key) for key in _MODEL_KEYS}
    for key in _MODEL_KEYS[_MODEL_KEYS.index("sliding_window") :]:
        if out[key] is None:
            del out[key]  # optional: written only when given
    return out


def _dump_lora(lora: LoraConfig | None):
    if lora is None:
        return None
    targets = list(lora.targets) if isinstance(lora.targets, tuple) else lora.targets
    out = {"rank": lora.rank, "alpha": lora.alpha, "targets": targets}
    if lora.dropout is not None:
        out["dropout"] = lora.dropout  # optional: written only when given
    return out


def dump_scenario(s: Scenario) -> dict:
    """The scenario as a JSON-ready ``dict`` (the inverse of :func:`load_scenario`)."""
    out = {
        "model": _dump_model(s.model),
        "method": s.method,
        "lora": _dump_lora(s.lora),
        "precision": s.precision,
        "quant_bits": s.quant_bits,
        "optimizer": s.optimizer,
        "optimizer_in_backward": s.optimizer_in_backward,
        "seq_len": s.seq_len,
        "micro_batch": s.micro_batch,
        "grad_accum": s.grad_accum,
        "gradient_checkpointing": s.gradient_checkpointing,
        "flash_attention": s.flash_attention,
        "packed": s.packed,
        "hardware": {
            "accelerator": s.hardware.accelerator,
            "count": s.hardware.count,
            "nodes": s.hardware.nodes,
        },
        "parallelism": {
            "strategy": s.parallelism.strategy,
            "offload": s.parallelism.offload,
            "tensor_parallel": s.parallelism.tensor_parallel,
            "pipeline_parallel": s.parallelism.pipeline_parallel,
        },
        "training": {
            "dataset_tokens": s.training.dataset_tokens,
            "epochs": s.training.epochs,
        },
    }
    if s.parallelism.expert_parallel != 1:
        out["parallelism"]["expert_parallel"] = s.parallelism.expert_parallel  # optional
    if s.parallelism.context_parallel != 1:
        out["parallelism"]["context_parallel"] = s.parallelism.context_parallel
    if s.parallelism.context_parallel_comm is not None:
        out["parallelism"]["context_parallel_comm"] = s.parallelism.context_parallel_comm
    for name in WRITTEN_WHEN_GIVEN:
        value = getattr(s, name)
        if value is not None or name in s.key_order:
            out[name] = value
    out.update(s.extensions)
    order = [key for key in s.key_order if key in out]
    order += [key for key in out if key not in order]
    return {key: out[key] for key in order}
