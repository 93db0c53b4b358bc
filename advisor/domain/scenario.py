"""Scenario v1: the fine-tuning job the sizing engine reads (a public contract).

The format is described field by field in ``docs/scenario-format.md`` (this module is the
implementation it describes; ``docs/sizing.md`` says how the engine reads it).
:func:`load_scenario` validates a JSON-like ``dict`` and returns frozen dataclasses;
:func:`dump_scenario` turns them back into the same ``dict`` (every reference case round-trips
exactly, key order included). Errors are :class:`ScenarioError` naming the field path (e.g.
``model.layers``) and the allowed values or range.

Compatible extension: unknown top-level *sections* (objects, e.g. a future ``site`` or
``procurement``) are kept as they are in :attr:`Scenario.extensions` and written back by
:func:`dump_scenario`; unknown scalar keys and unknown keys inside the known sections are
rejected, because they are almost always typos (``seq_length``) that would otherwise be
silently ignored. Optional fields this project adds to v1 default to the behaviour of a document
without them: ``loss_chunking`` (true, false or null; absent or null means not stated),
``framework`` (one of :data:`FRAMEWORKS` or null; absent or null means not stated, read as the
heavier of the frameworks' behaviours), ``avg_tokens_per_sample`` and
``parallelism.expert_parallel`` (absent means 1: every data-parallel rank holds every expert)
and ``moe_grouped_gemm`` (true, false or null; null means the experts run in a loop).

The module also derives what every part of the engine needs from the architecture: the
parameter layout of a block, active parameters of a mixture-of-experts model, and the trainable
parameter count of each method (LoRA/DoRA adapters by rank and targets).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property

from advisor.domain.i18n import N_, Message

# --- Closed sets of allowed values (scenario v1) --------------------------------------------

METHODS = ("full", "lora", "qlora", "dora", "freeze")
ADAPTER_METHODS = ("lora", "qlora", "dora")
PRECISIONS = ("bf16", "fp16", "fp32", "amp-bf16", "amp-fp16")
OPTIMIZERS = ("adamw", "adamw-8bit", "paged-adamw-8bit", "paged-adamw", "sgd", "adafactor")
STRATEGIES = ("single", "ddp", "fsdp", "zero1", "zero2", "zero3")
OFFLOADS = ("none", "optimizer", "optimizer+params")
QUANT_BITS = (4, 8)
# How a QLoRA base is quantised (optional field ``quant_format``): bitsandbytes NF4 (the QLoRA
# paper's format; "nf4-double-quant" with its block constants double-quantised,
# bnb_4bit_use_double_quant), GPTQ or AWQ checkpoints (group-wise integer weights), torchao's NF4
# (the QLoRA of torchtune: double-quantised block scales). ``None``: bitsandbytes
# (NF4 at 4 bits, LLM.int8 at 8), what a document without the field meant.
QUANT_FORMATS = ("nf4", "gptq", "awq", "torchao-nf4", "nf4-double-quant")
# The formats that exist only at 4 bits.
QUANT_FORMATS_4BIT = ("nf4", "awq", "torchao-nf4", "nf4-double-quant")
# How context parallelism exchanges attention (optional ``parallelism.context_parallel_comm``):
# "ring" passes key/value blocks around the ring, overlapped with the blocks' attention
# (Megatron-Core --cp-comm-type p2p, its default); "all-to-all" re-splits q, k, v and the output
# by heads (DeepSpeed-Ulysses; MindSpeed --context-parallel-algo ulysses_cp_algo).
CONTEXT_PARALLEL_COMMS = ("ring", "all-to-all")
# Training frameworks whose memory behaviour differs in ways v1 cannot otherwise say (optional
# field ``framework``): "hf" is Hugging Face Transformers/PEFT with the Trainer or Accelerate
# (and what is built on them: TRL, LLaMA-Factory, ms-swift's default backend, Qwen's
# finetune.py); "megatron" is Megatron-LM and its ports (NeMo, MindSpeed, Megatron-SWIFT).
FRAMEWORKS = ("hf", "torchtune", "litgpt", "megatron")
# How AdamW's step is implemented (optional field ``optimizer_impl``): "fused" (one kernel per
# parameter group that updates in place: torch.optim.AdamW(fused=True), DeepSpeed FusedAdam,
# Apex/Transformer Engine FusedAdam in Megatron) or "foreach" (PyTorch's multi-tensor
# implementation, its default on CUDA, which allocates a moment-sized temporary). ``None``: the
# framework's default (docs/scenario-format.md).
OPTIMIZER_IMPLS = ("fused", "foreach")
LORA_TARGET_PRESETS = ("attention", "all-linear")
LORA_TARGET_NAMES = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "qkv_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "lm_head",
)

# --- Numeric limits, all in one place: field path -> (minimum, maximum), inclusive ---------
# Chosen generously around anything that exists or is announced (the largest open models are
# ~1-2 T parameters; the longest trained contexts 1 M tokens; the largest single jobs a few
# thousand accelerators) so that a valid job is never refused, while typos of several orders of
# magnitude (params_b 70000 meaning 70 B) are.
LIMITS: dict[str, tuple[float, float]] = {
    "model.params_b": (0.01, 2000.0),
    "model.layers": (1, 1024),
    "model.hidden": (16, 131_072),
    "model.heads": (1, 1024),
    "model.kv_heads": (1, 1024),
    "model.intermediate": (16, 1_048_576),
    "model.vocab": (2, 4_194_304),
    "model.experts": (1, 4096),
    "model.experts_per_token": (1, 4096),
    "model.head_dim": (1, 65_536),
    "model.sliding_window": (1, 1_048_576),
    "model.sliding_window_layers": (1, 1024),
    "model.causal_mask_positions": (1, 1_048_576),
    "model.context_length": (1, 1_048_576),
    "lora.rank": (1, 65_536),
    "lora.alpha": (0, 1_048_576),
    "lora.dropout": (0, 0.99),
    "seq_len": (1, 1_048_576),
    "avg_tokens_per_sample": (1, 1_048_576),
    "longest_sample_tokens": (1, 1_048_576),
    "empty_cache_steps": (1, 1_000_000),
    "micro_batch": (1, 4096),
    "grad_accum": (1, 65_536),
    "hardware.count": (1, 4096),
    "hardware.nodes": (1, 4096),
    "parallelism.tensor_parallel": (1, 1024),
    "parallelism.pipeline_parallel": (1, 1024),
    "parallelism.expert_parallel": (1, 4096),
    "parallelism.context_parallel": (1, 4096),
    "training.dataset_tokens": (1, 10**15),
    "training.epochs": (0.001, 10_000.0),
}

# Defaults for an adapter run whose source does not state rank or targets: the Hugging Face
# PEFT ``LoraConfig`` defaults (r=8, lora_alpha=8) and the targets PEFT picks for Llama-style
# models when none are given (q_proj and v_proj, peft/utils/constants.py
# TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING).
DEFAULT_LORA_RANK = 8
DEFAULT_LORA_TARGETS = ("q_proj", "v_proj")
# Bits of the frozen base under QLoRA when not stated: 4 (NF4, the QLoRA paper's format).
DEFAULT_QUANT_BITS = 4


class ScenarioError(ValueError):
    """An invalid scenario: ``field`` is the dotted path, ``message`` says what is allowed.

    ``message`` is a translatable :class:`Message` (template marked with ``N_``); ``str()`` of
    the error is the one English line ``<field>: <message>`` the CLI prints.
    """

    def __init__(self, field_path: str, message: Message):
        self.field = field_path
        self.message = message
        super().__init__(f"{field_path}: {message.render()}")


# --- Dataclasses --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelArch:
    name: str
    params_b: float
    layers: int | None
    hidden: int | None
    heads: int | None
    kv_heads: int | None
    intermediate: int | None
    vocab: int | None
    tied_embeddings: bool | None
    experts: int | None
    experts_per_token: int | None
    # Optional (a compatible v1 extension): sliding-window attention, the keys each query
    # attends to at most in every layer (Mistral 7B v0.1: 4096). ``None``: full causal attention.
    sliding_window: int | None = None
    # Optional: the layers that use the window (Gemma 2: every other one, 21 of 42; gpt-oss: 12
    # of 24); the others attend to the whole sequence. ``None``: every layer.
    sliding_window_layers: int | None = None
    # Optional: the size of one attention head when it is not hidden / heads (Gemma 2 9B: 256
    # with hidden 3584 and 16 heads; Qwen3: 128). ``None``: hidden / heads.
    head_dim: int | None = None
    # Optional (a compatible v1 extension): the model's code keeps a boolean causal mask of
    # positions x positions on every GPU (Qwen-1's ``registered_causal_mask`` over
    # max_position_embeddings; GPT-2-style ``bias`` buffers). ``None``: no such buffer.
    causal_mask_positions: int | None = None
    # Optional (a compatible v1 extension): the longest sequence the model was trained for
    # (``max_position_embeddings``); ``seq_len`` may not exceed it. ``None``: not stated.
    context_length: int | None = None

    @property
    def params(self) -> float:
        """Total parameters (every expert), as a count."""
        return self.params_b * 1e9

    @property
    def has_architecture(self) -> bool:
        """True when the block shape is known (false only for rule-of-thumb generic sizes)."""
        return None not in (self.layers, self.hidden, self.heads, self.intermediate, self.vocab)

    @property
    def is_moe(self) -> bool:
        return self.experts is not None and self.experts > 1

    @cached_property
    def layout(self) -> ArchLayout | None:
        """The parameter layout inferred from the shape, or ``None`` for generic sizes."""
        return arch_layout(self) if self.has_architecture else None


@dataclass(frozen=True)
class LoraConfig:
    rank: int | None
    alpha: int | None
    targets: str | tuple[str, ...] | None  # a preset name, a tuple of matrix names, or None
    # Optional (a compatible v1 extension): the dropout probability on the adapters' input.
    # ``None``: not stated, read as on (a dropped-out copy of each adapted input and its mask).
    # 0: off; PEFT (LoraLayer.update_layer) and torchtune (LoRALinear) then use nn.Identity,
    # so each adapter keeps the input tensor itself.
    dropout: float | None = None

    @property
    def dropout_off(self) -> bool:
        return self.dropout == 0

    @property
    def rank_or_default(self) -> int:
        return self.rank if self.rank is not None else DEFAULT_LORA_RANK

    @property
    def target_names(self) -> tuple[str, ...]:
        """The matrix names adapted in every block (presets expanded later, per MLP layout)."""
        if self.targets is None:
            return DEFAULT_LORA_TARGETS
        if self.targets == "attention":
            return ("q_proj", "k_proj", "v_proj", "o_proj")
        if self.targets == "all-linear":
            return ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
        return self.targets


@dataclass(frozen=True)
class Hardware:
    accelerator: str | None
    count: int
    nodes: int


@dataclass(frozen=True)
class Parallelism:
    strategy: str
    offload: str
    tensor_parallel: int
    pipeline_parallel: int
    # Optional (a compatible v1 extension): expert parallelism, the GPUs of one data-parallel
    # group over which the routed experts of a mixture-of-experts model are split (each GPU
    # holds experts / expert_parallel of them and tokens travel to their experts by all-to-all:
    # Megatron-Core --expert-model-parallel-size, DeepSpeed-MoE ep_size, NeMo AutoModel
    # ep_size). Absent: 1, the frameworks' default (every data-parallel rank holds every expert).
    expert_parallel: int = 1
    # Optional: context parallelism, the GPUs of one data-parallel group over which each
    # sequence is split (Megatron-Core --context-parallel-size): activations and attention are
    # divided by it, the weights are not. Absent: 1. With ``context_parallel_comm`` (one of
    # CONTEXT_PARALLEL_COMMS; absent: "ring").
    context_parallel: int = 1
    context_parallel_comm: str | None = None

    @property
    def model_parallel(self) -> int:
        """GPUs that together hold one copy of the model (tensor x pipeline)."""
        return self.tensor_parallel * self.pipeline_parallel


@dataclass(frozen=True)
class Training:
    dataset_tokens: int | None
    epochs: float | None

    @property
    def total_tokens(self) -> float | None:
        if self.dataset_tokens is None or self.epochs is None:
            return None
        return self.dataset_tokens * self.epochs


@dataclass(frozen=True)
class Scenario:
    model: ModelArch
    method: str
    lora: LoraConfig | None
    precision: str
    quant_bits: int | None
    optimizer: str
    optimizer_in_backward: bool
    seq_len: int
    micro_batch: int
    grad_accum: int
    gradient_checkpointing: bool | None
    flash_attention: bool | None
    packed: bool | None
    hardware: Hardware
    parallelism: Parallelism
    training: Training
    # Optional (a compatible v1 extension): the loss is computed over the vocabulary in chunks
    # (torchtune CEWithChunkedOutputLoss, LitGPT's chunked output layer and loss, fused
    # linear-cross-entropy kernels) rather than on the whole fp32 logits at once. ``None``: not
    # stated, which the memory model reads as the whole logits at once (the heavier case).
    loss_chunking: bool | None = None
    # Optional (a compatible v1 extension): the training framework, one of FRAMEWORKS. ``None``:
    # not stated, which the memory model reads as the heavier behaviour wherever they differ.
    framework: str | None = None
    # Optional (a compatible v1 extension): the average tokens per sample of the dataset, which
    # the wizard asks. Unpacked samples are trained at their real length, so time follows it
    # (capped at seq_len); ``None``: not stated, every sample is taken at seq_len.
    avg_tokens_per_sample: int | None = None
    # Optional (a compatible v1 extension): the longest sample of the dataset in tokens, at most
    # seq_len (the truncation bound). Unpacked batches are padded to their longest sample, so
    # memory follows it (sizing/memory/lengths.py); ``None``: not stated.
    longest_sample_tokens: int | None = None
    # Optional (a compatible v1 extension): the routed experts of a mixture-of-experts model run
    # as grouped matrix multiplies (true: Megatron-Core --moe-grouped-gemm, NeMo AutoModel's
    # grouped experts, Transformer Engine GroupedLinear) or one after another in a loop (false:
    # Hugging Face Transformers v4 MoE blocks, Megatron-Core's SequentialMLP). ``None``: not
    # stated, read as the loop, the default of both Transformers v4 and Megatron-Core. Ignored
    # for dense models.
    moe_grouped_gemm: bool | None = None
    # Optional (a compatible v1 extension): AdamW's implementation, one of OPTIMIZER_IMPLS.
    # ``None``: the framework's default (DeepSpeed's and Megatron's fused Adam under ZeRO and
    # Megatron, PyTorch's foreach otherwise). Only with ``optimizer: adamw``.
    optimizer_impl: str | None = None
    # Optional (a compatible v1 extension): the output layer and the cross-entropy run as one
    # fused kernel over chunks of tokens that never materialises the logits (Liger Kernel's
    # LigerFusedLinearCrossEntropyLoss, Apple's Cut Cross-Entropy). ``None``: not stated, read as
    # false (the logits exist, whole or chunked as loss_chunking says).
    fused_loss: bool | None = None
    # Optional (a compatible v1 extension): the QLoRA base's quantisation format, one of
    # QUANT_FORMATS. ``None``: bitsandbytes (NF4 at 4 bits). Only with ``method: qlora``.
    quant_format: str | None = None
    # Optional (a compatible v1 extension): the training step runs under torch.compile (true),
    # or eagerly (false). ``None``: not stated, read as eager. The memory model reads it only for
    # a chunked loss: compiled, the fp32 upcast and cross-entropy of each chunk are one kernel
    # that keeps the 16-bit chunk itself for the backward (torchtune's compile_loss).
    torch_compile: bool | None = None
    # Optional (compatible v1 extensions) on the allocator's length drift of unpacked runs:
    # samples grouped by length with the longest batch first (Transformers' group_by_length),
    # and the cache emptied every N optimizer steps (Transformers' torch_empty_cache_steps).
    # ``None``: not stated, read as neither (what a document without them meant).
    length_grouped: bool | None = None
    empty_cache_steps: int | None = None
    # Unknown top-level sections, kept for compatible extension (excluded from hashing).
    extensions: dict = field(default_factory=dict, hash=False, compare=True, repr=False)
    # The key order of the source document, so that dump_scenario reproduces it.
    key_order: tuple[str, ...] = field(default=(), hash=False, compare=False, repr=False)

    @property
    def data_parallel(self) -> int:
        """Data-parallel degree: GPUs divided by the GPUs that hold one model copy."""
        return max(1, self.hardware.count // self.parallelism.model_parallel)

    @property
    def uses_adapters(self) -> bool:
        return self.method in ADAPTER_METHODS

    @property
    def lora_or_default(self) -> LoraConfig:
        return self.lora if self.lora is not None else LoraConfig(None, None, None)

    @property
    def quant_bits_or_default(self) -> int | None:
        if self.method != "qlora":
            return None
        return self.quant_bits if self.quant_bits is not None else DEFAULT_QUANT_BITS


# --- Validation helpers -------------------------------------------------------------------


def _type_error(path: str, template: str) -> ScenarioError:
    """``template`` is an ``N_``-marked sentence fragment such as "must be a number"."""
    return ScenarioError(path, Message(template))


def _range_error(path: str) -> ScenarioError:
    low, high = LIMITS[path]
    return ScenarioError(
        path,
        Message(N_("must be between {low} and {high}"), {"low": _fmt(low), "high": _fmt(high)}),
    )


def _fmt(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() else f"{value:g}"


def _section(data: dict, key: str, path: str) -> dict:
    if key not in data:
        raise ScenarioError(path, Message(N_("is required")))
    value = data[key]
    if not isinstance(value, dict):
        raise _type_error(path, N_("must be an object"))
    return value


def _key_text(key) -> str:
    """A key as it may appear in a one-line field path (odd keys JSON-quoted, shortened)."""
    if isinstance(key, str) and key.isidentifier():
        return key
    return json.dumps(key if isinstance(key, str) else str(key), ensure_ascii=True)[:40]


def _check_keys(data: dict, allowed: tuple[str, ...], prefix: str) -> None:
    for key in data:
        if key not in allowed:
            path = f"{prefix}{_key_text(key)}"
            raise ScenarioError(
                path,
                Message(
                    N_("is not a field of scenario v1 (allowed: {allowed})"),
                    {"allowed": ", ".join(allowed)},
                ),
            )


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _int(data: dict, key: str, path: str, *, nullable: bool = False) -> int | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        value = int(value)
    if not _is_int(value):
        raise _type_error(path, N_("must be a whole number"))
    low, high = LIMITS[path]
    if not low <= value <= high:
        raise _range_error(path)
    return value


def _number(data: dict, key: str, path: str, *, nullable: bool = False) -> float | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if not _is_number(value):
        raise _type_error(path, N_("must be a number"))
    low, high = LIMITS[path]
    if not low <= value <= high:
        raise _range_error(path)
    return value  # kept as given (int or float) so that dumping reproduces the source


def _int_or_one(data: dict, key: str, path: str) -> int:
    """An optional whole-number field whose absence means 1 (no parallelism, no accumulation)."""
    return _int(data, key, path) if key in data else 1


def _bool(data: dict, key: str, path: str, *, nullable: bool = False) -> bool | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if not isinstance(value, bool):
        raise _type_error(
            path, N_("must be true, false or null") if nullable else N_("must be true or false")
        )
    return value


def _choice(data: dict, key: str, path: str, allowed: tuple, *, default=None):
    value = data.get(key, default)
    if value is None and default is None:
        raise ScenarioError(path, Message(N_("is required")))
    if value not in allowed or isinstance(value, bool):
        raise ScenarioError(
            path,
            Message(N_("must be one of: {allowed}"), {"allowed": ", ".join(map(str, allowed))}),
        )
    return value


def _optional_choice(data: dict, key: str, path: str, allowed: tuple) -> str | None:
    if data.get(key) is None:
        return None
    return _choice(data, key, path, allowed)


def _string(data: dict, key: str, path: str, *, nullable: bool = False) -> str | None:
    value = data.get(key)
    if value is None:
        if nullable:
            return None
        raise ScenarioError(path, Message(N_("is required")))
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise _type_error(path, N_("must be a non-empty text of at most 200 characters"))
    return value


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
    """The windowed layers need a window, and are at most all the layers."""
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


# --- Derived architecture figures ----------------------------------------------------------

# Adapted-matrix names that belong to the MLP (applied to every routed expert of a MoE layer:
# PEFT's "all-linear" and Megatron-SWIFT both adapt the expert projections; the router is a
# linear layer too small to matter and is not adapted by default).
MLP_TARGETS = ("gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class ArchLayout:
    """Parameter counts derived from the block shape (all counts, not billions).

    ``head_dim`` is ``model.head_dim`` when given, else ``hidden / heads``: the query and
    output projections are ``hidden x heads·head_dim``, the key and value ones ``hidden x
    kv_heads·head_dim`` (Gemma 2 9B: 3584 x 4096 and 3584 x 2048).
    """

    head_dim: float
    q_out: float  # width of the query projection output (heads x head_dim)
    kv_out: float  # width of each of the key and value projection outputs
    gated_mlp: bool  # SwiGLU/GeGLU (three matrices) or a plain two-matrix MLP
    attention_params_per_layer: float
    expert_params: float  # one MLP (one routed expert for MoE)
    embedding_params: float  # input embedding plus the untied output head
    other_params: float  # what params_b holds beyond the counted blocks (norms, shared experts)
    routed_expert_count: int  # experts per layer (1 for dense)
    active_experts: int  # experts each token uses (1 for dense)

    @property
    def mlp_params_per_layer(self) -> float:
        return self.expert_params * self.routed_expert_count


def _mlp_params(hidden: int, intermediate: int, gated: bool) -> float:
    return (3 if gated else 2) * hidden * intermediate


def arch_layout(m: ModelArch) -> ArchLayout:
    """Derive the layout from the shape; the MLP type is whichever matches ``params_b`` best.

    v1 does not say whether the MLP is gated (SwiGLU, three matrices) or plain (two), so both
    parameter totals are computed and the one closer to the stated ``params_b`` is taken; for
    every real model the two differ by a third of the MLP share, far more than norms and biases.
    """
    heads = m.heads
    kv_heads = m.kv_heads or heads
    head_dim = m.head_dim or m.hidden / heads
    q_out = heads * head_dim
    kv_out = kv_heads * head_dim
    attention = m.hidden * q_out * 2 + m.hidden * kv_out * 2
    experts = m.experts if m.is_moe else 1
    active = m.experts_per_token if m.is_moe else 1
    embeddings = m.vocab * m.hidden * (1 if m.tied_embeddings else 2)

    def total(gated: bool) -> float:
        per_layer = attention + experts * _mlp_params(m.hidden, m.intermediate, gated)
        return m.layers * per_layer + embeddings

    gated = abs(total(True) - m.params) <= abs(total(False) - m.params)
    return ArchLayout(
        head_dim=head_dim,
        q_out=q_out,
        kv_out=kv_out,
        gated_mlp=gated,
        attention_params_per_layer=attention,
        expert_params=_mlp_params(m.hidden, m.intermediate, gated),
        embedding_params=embeddings,
        other_params=max(0.0, m.params - total(gated)),
        routed_expert_count=experts,
        active_experts=active,
    )


def active_params(m: ModelArch) -> float:
    """Parameters each token passes through (a count): total minus the unused routed experts.

    Dense models: every parameter. MoE: ``params_b`` minus, in every layer, the routed experts a
    token is not sent to (``experts - experts_per_token`` of them). Shared experts and dense
    layers stay in the active count because they are in ``params_b`` and not in the routed
    experts. When the shape is unknown the model is dense by definition of v1's generic rows.
    """
    layout = m.layout
    if layout is None or not m.is_moe:
        return m.params
    unused_share = 1 - layout.active_experts / layout.routed_expert_count
    return m.params - routed_expert_params(m) * unused_share


def routed_expert_params(m: ModelArch) -> float:
    """Parameters in the routed experts of every layer (a count; 0 for dense models).

    Their computed size, capped by what ``params_b`` leaves after attention and embeddings
    (models with some dense layers or a compressed attention, e.g. DeepSeek-V3's first three
    dense blocks and MLA, would otherwise over-count experts). Shared experts are not routed.
    """
    layout = m.layout
    if layout is None or not m.is_moe:
        return 0.0
    shared = m.layers * layout.attention_params_per_layer + layout.embedding_params
    return min(m.layers * layout.mlp_params_per_layer, max(0.0, m.params - shared))


def _matrix_shape(name: str, m: ModelArch, layout: ArchLayout) -> tuple[float, float]:
    """(d_in, d_out) of one adapted matrix in a block."""
    h = m.hidden
    shapes = {
        "q_proj": (h, layout.q_out),
        "k_proj": (h, layout.kv_out),
        "v_proj": (h, layout.kv_out),
        "o_proj": (layout.q_out, h),
        "qkv_proj": (h, layout.q_out + 2 * layout.kv_out),
        "gate_proj": (h, m.intermediate),
        "up_proj": (h, m.intermediate),
        "down_proj": (m.intermediate, h),
    }
    return shapes[name]


@dataclass(frozen=True)
class AdapterCount:
    """Adapter parameters (counts) and the frozen parameters they adapt."""

    lora_params: float  # A and B matrices: rank x (d_in + d_out) per adapted matrix
    magnitude_params: float  # DoRA magnitude vectors: d_out per adapted matrix (0 for LoRA)
    adapted_matrices: int  # adapted matrices per block, experts counted (for MoE)
    largest_adapted_out: float  # widest d_out among adapted matrices (DoRA norm buffer)

    @property
    def total(self) -> float:
        return self.lora_params + self.magnitude_params


def adapter_count(s: Scenario) -> AdapterCount:
    """LoRA/DoRA adapter parameters for the scenario, from the arch, rank and targets.

    Generic models (no shape): the adapters are taken as rank x 2 x hidden per adapted matrix
    with hidden estimated from ``params_b`` by the dense-transformer relation
    P ~ 12 x layers x hidden^2 with the Llama aspect ratio layers ~ hidden / 128 (Llama 2 7B:
    4096 / 32 layers, 70B: 8192 / 80), i.e. hidden ~ (P x 128 / 12)^(1/3).
    """
    if not s.uses_adapters:
        return AdapterCount(0.0, 0.0, 0, 0.0)
    lora = s.lora_or_default
    rank = lora.rank_or_default
    m = s.model
    layout = m.layout
    names = lora.target_names
    if layout is None:
        hidden = (m.params * 128 / 12) ** (1 / 3)
        layers = hidden / 128
        per_block = len([n for n in names if n != "lm_head"])
        params = layers * per_block * rank * 2 * hidden
        magnitude = layers * per_block * hidden if s.method == "dora" else 0.0
        return AdapterCount(params, magnitude, per_block, hidden)
    lora_per_block = 0.0
    magnitude_per_block = 0.0
    matrices = 0
    widest = 0.0
    for name in names:
        if name == "lm_head":
            continue
        if name == "gate_proj" and not layout.gated_mlp:
            continue  # a plain two-matrix MLP has only up_proj and down_proj
        d_in, d_out = _matrix_shape(name, m, layout)
        copies = layout.routed_expert_count if name in MLP_TARGETS else 1
        lora_per_block += copies * rank * (d_in + d_out)
        magnitude_per_block += copies * d_out
        matrices += copies
        widest = max(widest, d_out)
    lora_params = m.layers * lora_per_block
    magnitude = m.layers * magnitude_per_block
    if "lm_head" in names:
        lora_params += rank * (m.hidden + m.vocab)
        magnitude += m.vocab
        widest = max(widest, m.vocab)
    if s.method != "dora":
        magnitude = 0.0
    return AdapterCount(lora_params, magnitude, matrices, widest)


def routed_trainable_params(s: Scenario) -> float:
    """Trained parameters that live in the routed experts (a count; 0 for dense models).

    Full fine-tuning: every routed expert parameter. Adapters: the LoRA (and DoRA magnitude)
    parameters of the MLP matrices adapted in every routed expert.
    """
    m = s.model
    if not m.is_moe or m.layout is None:
        return 0.0
    if not s.uses_adapters:
        return routed_expert_params(m)
    layout = m.layout
    rank = s.lora_or_default.rank_or_default
    per_expert = 0.0
    for name in s.lora_or_default.target_names:
        if name not in MLP_TARGETS or (name == "gate_proj" and not layout.gated_mlp):
            continue
        d_in, d_out = _matrix_shape(name, m, layout)
        per_expert += rank * (d_in + d_out) + (d_out if s.method == "dora" else 0.0)
    return m.layers * layout.routed_expert_count * per_expert


def adapted_base_params(s: Scenario) -> float:
    """Frozen weights under an adapter, d_in x d_out summed over every adapted matrix of every
    block (routed experts counted; lm_head once): what DoRA re-normalises each forward pass."""
    if not s.uses_adapters or s.model.layout is None:
        return 0.0
    m, layout = s.model, s.model.layout
    per_block = 0.0
    for name in s.lora_or_default.target_names:
        if name == "lm_head" or (name == "gate_proj" and not layout.gated_mlp):
            continue
        d_in, d_out = _matrix_shape(name, m, layout)
        per_block += (layout.routed_expert_count if name in MLP_TARGETS else 1) * d_in * d_out
    total = m.layers * per_block
    if "lm_head" in s.lora_or_default.target_names:
        total += m.hidden * m.vocab
    return total


def trainable_params(s: Scenario) -> float:
    """Parameters that receive gradients and optimizer states (a count).

    full: every parameter; lora/qlora/dora: the adapters (DoRA adds its magnitude vectors);
    freeze: v1 does not say which layers, so every parameter is counted (the safe side for
    memory; no reference case uses it).
    """
    if s.uses_adapters:
        return adapter_count(s).total
    return s.model.params
