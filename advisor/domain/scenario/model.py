"""The scenario's frozen dataclasses, and what the engine derives from a model's architecture:
the parameter layout of a block, active parameters of a mixture-of-experts model, and the
trainable parameter count of each method (LoRA/DoRA adapters by rank and targets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from advisor.domain.scenario.values import (
    ADAPTER_METHODS,
    DEFAULT_LORA_RANK,
    DEFAULT_LORA_TARGETS,
    DEFAULT_QUANT_BITS,
)

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
    # Optional (a compatible v1 extension), mixture-of-experts only: the MLP width of the
    # shared experts every token passes through in each MoE layer, summed (Qwen2-MoE's
    # ``shared_expert_intermediate_size``; DeepSeek-MoE's ``n_shared_experts`` x
    # ``moe_intermediate_size``). ``None``: none stated (their parameters, if any, stay
    # unplaced in ``params_b``).
    shared_expert_intermediate: int | None = None
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
    # not stated, which the memory model reads as the most used stack (Hugging Face with PEFT
    # and TRL), the heavier behaviour of the others at the band's upper edge (decision 0139).
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
    shared_expert_params: float  # the shared experts of one layer (0 when none are stated)
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
    shared_width = m.shared_expert_intermediate if m.is_moe else None

    def shared(gated: bool) -> float:
        return _mlp_params(m.hidden, shared_width, gated) if shared_width else 0.0

    def total(gated: bool) -> float:
        per_layer = attention + experts * _mlp_params(m.hidden, m.intermediate, gated)
        return m.layers * (per_layer + shared(gated)) + embeddings

    gated = abs(total(True) - m.params) <= abs(total(False) - m.params)
    return ArchLayout(
        head_dim=head_dim,
        q_out=q_out,
        kv_out=kv_out,
        gated_mlp=gated,
        attention_params_per_layer=attention,
        expert_params=_mlp_params(m.hidden, m.intermediate, gated),
        shared_expert_params=shared(gated),
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
    shared += m.layers * layout.shared_expert_params
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
    shared_width = m.shared_expert_intermediate if layout.shared_expert_params else None
    for name in names if shared_width else ():
        # The shared experts' projections, once per layer (PEFT's "all-linear" and ms-swift's
        # ALL adapt every nn.Linear, shared_expert.gate_proj/up_proj/down_proj included).
        if name not in MLP_TARGETS or (name == "gate_proj" and not layout.gated_mlp):
            continue
        d_in, d_out = (shared_width, m.hidden) if name == "down_proj" else (m.hidden, shared_width)
        lora_per_block += rank * (d_in + d_out)
        magnitude_per_block += d_out
        matrices += 1
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
