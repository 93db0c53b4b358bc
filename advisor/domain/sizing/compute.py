"""Training time: FLOPs per token, achieved utilisation, communication, tokens/s, wall-clock.

The model (docs/sizing-time.md, docs/decisions/0005-throughput-model.md):

* **FLOPs per token** from the architecture: 2 FLOPs per multiply-accumulate through every
  matrix a token passes (the *active* parameters for mixture-of-experts, without the input
  embedding lookup), plus causal attention's score and value products; the backward pass costs
  two forwards for full fine-tuning and one for frozen-base methods (LoRA/QLoRA/DoRA compute the
  activation gradients but not the frozen weights' gradients); recomputation adds a forward.
* **Time per micro-batch** on each GPU is the sum of physical terms: matrix work at the
  accelerator's dense 16-bit peak times one utilisation calibrated on the published runs
  (:mod:`calibration`), element-wise memory traffic at the HBM/GDDR bandwidth, QLoRA's
  dequantisation of the frozen base (memory traffic per micro-batch, so large batches amortise
  it), and a fixed host/kernel-launch time per layer and pass.
* **Communication** per step from the strategy's collective volumes over the links
  (:mod:`network`): tensor-parallel all-reduces on the critical path, data-parallel gradient
  reductions and FSDP/ZeRO-3 gathers hidden behind the compute they can overlap with; CPU
  offload adds PCIe transfers and a CPU optimizer step.
* tokens/s for the whole job, step time, time to train ``dataset_tokens x epochs`` and GPU-hours,
  with a band from the errors measured on the reference cases.

Inputs and outputs are plain frozen dataclasses; ``assumptions`` lists translatable messages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import NamedTuple

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.i18n import N_, Code, Message
from advisor.domain.scenario import (
    STRATEGIES,
    Scenario,
    active_params,
    adapted_base_params,
    routed_expert_params,
    routed_trainable_params,
)
from advisor.domain.scenario import trainable_params as _trainable_params
from advisor.domain.sizing import calibration
from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.host_step import (
    ZERO_STRATEGIES,
    call_seconds,
    host_seconds,
    host_synchronised,
    layer_call_share,
    optimizer_host_calls,
)
from advisor.domain.sizing.memory import traits_of
from advisor.domain.sizing.network import (
    HOST_STAGED_SHARE,
    PCIE_TOPOLOGIES,
    Links,
    links_for,
)

# --- Physical constants --------------------------------------------------------------------

# Bytes of one 16-bit value (bf16/fp16 weights, activations and gradients).
BYTES_16BIT = 2

# Element-wise memory traffic per token, per layer and per pass, in bytes per unit of hidden
# width. Counted for a Llama-style block in 16-bit: two RMSNorms (read + write h each: 4h),
# two residual adds (3h each: 6h), rotary on q and k (~4h), the attention kernel's q/k/v/o reads
# and writes (~4h) and the SwiGLU activation (read 2i, write i with i ~ 2.7-3.5 h: ~9h), about
# 25 values of h = 50 bytes per pass. The backward pass of these ops moves about twice that and is
# counted as two passes (see ``_activation_passes``).
ELEMENTWISE_BYTES_PER_HIDDEN = 50

# Bytes per vocabulary entry per token for the output logits and the loss: 16-bit logits
# written (2) and read for the fp32 upcast (2), fp32 logits written and read by the softmax /
# cross-entropy (4 + 4), the fp32 gradient of the logits written and read (4 + 4): 20 bytes.
LOGITS_BYTES_PER_VOCAB = 20

# Share of the dense 16-bit peak available to fp32 training: NVIDIA's TF32 tensor-core rate is
# half the BF16 rate on Ampere and Hopper (A100 156 vs 312, H100 SXM 494.5 vs 989 TFLOP/s);
# frameworks enable TF32 for fp32 matmuls in training (HF Trainer ``tf32``, Lightning).
FP32_PEAK_SHARE = 0.5

# Dense transformer shape used when a generic model names only its size (v1 rule-of-thumb rows):
# P ~ 12 x layers x hidden^2 with layers ~ hidden / 128 (Llama 2 7B: 4096 wide, 32 layers;
# 70B: 8192 wide, 80 layers), the same relation scenario.adapter_count uses.
GENERIC_HIDDEN_PER_LAYER = 128

# QLoRA dequantisation (bitsandbytes MatMul4Bit: F.dequantize_4bit(B, state).to(A.dtype) in the
# forward and again in the backward, https://github.com/bitsandbytes-foundation/bitsandbytes,
# bitsandbytes/autograd/_functions.py; the same in a recomputed forward): per frozen quantised
# weight and pass, the 4-bit value and its block constant are read (quant_bits / 8 + 0.5 / 8
# bytes), the 16-bit copy is written (2) and read back by the matrix multiply (2). It is paid
# once per micro-batch whatever its length, so large batches amortise it (Dettmers et al. 2023,
# QLoRA, section 4: the paged/dequantised path's cost falls with batch size).
DEQUANT_WRITE_READ_BYTES = 4
DEQUANT_CONSTANT_BYTES = 0.5 / 8

# DoRA (Liu et al. 2024, "DoRA: Weight-Decomposed Low-Rank Adaptation"; PEFT
# DoraLinearLayer.forward, https://github.com/huggingface/peft, src/peft/tuners/lora/dora.py)
# re-normalises every adapted matrix in every forward pass: it forms B @ A (d_out x d_in),
# adds it to the frozen weight W and takes the norm of each row of W + s B A. Per weight
# element in 16 bits: W read (2), B A written and read (2 + 2), the sum written and read by the
# norm (2 + 2): 10 bytes of memory traffic, once per forward pass and micro-batch whatever its
# length (a recomputed forward repeats it; the norm is detached, so the backward does not).
# QLoRA's dequantisation of W (QDoRA) is counted by the dequantisation term.
DORA_BYTES_PER_WEIGHT = 10

FULL_METHODS = ("full", "freeze")

# Mixture of experts run as a loop over the experts (moe_grouped_gemm false or not stated):
# Hugging Face Transformers v4 MoE blocks (MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock:
# ``for expert_idx in range(num_experts)``) and Megatron-Core's SequentialMLP (the default
# without --moe-grouped-gemm) call every expert the GPU holds one after another. One HF expert
# call launches about 12 kernels (the mask lookup, torch.where, the token gather, gate, up,
# activation, product, down, the routing-weight gather and product, index_add_ and a cast) and
# torch.where waits for the device, so the host cannot run ahead of the GPU; a Llama decoder
# layer launches about 37 (two RMSNorms of 7, q/k/v/o, rotary on q and k, attention, the
# output copy, the MLP's 5, two residual adds). Each expert call is therefore counted as 12/37
# of the launch overhead of a layer and pass (the calibrated ``layer_pass_overhead_s``), in
# every pass, for each expert this GPU holds (experts / expert_parallel). Grouped GEMM kernels
# run all of a GPU's experts in one launch: no per-expert term.
EXPERT_CALL_SHARE_OF_LAYER = 12 / 37

# Roofline (Williams, Waterman and Patterson, "Roofline: An Insightful Visual Performance Model
# for Multicore Architectures", CACM 52(4), 2009; NVIDIA, "Matrix Multiplication Background User's
# Guide", docs.nvidia.com/deeplearning/performance, "Math and Memory Bounds"): a matrix product of
# M x K by K x N in 16 bits does 2 M N K FLOPs and moves at least 2 (M K + K N + M N) bytes, an
# arithmetic intensity of M N K / (M K + K N + M N) FLOP per byte; the accelerator's own ratio is
# its peak FLOP/s over its memory bandwidth (H100 SXM 989 TFLOP/s / 3.35 TB/s = 295 FLOP/B, A100
# 153, L40S 419, H20 148 / 4.0 = 37). The weight products of a micro-batch of T tokens through a
# layer of width h (N = h / tensor-parallel degree: each rank holds a slice; the gradients
# dX = dY W^T and dW = X^T dY are the same shapes transposed) take the longer of their two
# ceilings: FLOPs at the calibrated share of peak, or their minimum traffic at the memory
# bandwidth. Below the chip's ratio (a micro-batch of 256 tokens through a 4,096-wide layer is
# 228 FLOP/B, under the L40S's 419) the matrix work is memory-bound and no share of peak applies.
# A routed expert sees only the tokens sent to it (expert_gemm_intensity), so its products are
# the first to become memory-bound. Attention (FlashAttention keeps its tiles on chip) is not
# given this ceiling. The summed (no-overlap) form, time = FLOPs / (peak x u) + bytes /
# bandwidth, in which every chip's share of peak falls with its ratio (compute-cut chips such as
# the H20 reaching a larger share, what issue 29 item 8 looked for), made the leave-one-source-
# out throughput median worse (18.1 % -> 21.5 %; with the traffic of tiled kernels instead of
# the minimum, 22-38 %), so the ceiling is the roofline's own max (docs/decisions/0056-roofline-
# ceiling.md).


@lru_cache(maxsize=256)
def trainable_params(scenario: Scenario) -> float:
    """Trained parameters (a count), cached: adapter counting walks every target matrix."""
    return _trainable_params(scenario)


# --- Results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlopsPerToken:
    """Training FLOPs per token (whole model; divided over GPUs later)."""

    matmul_params: float  # parameters a token is multiplied through (active, no embedding lookup)
    forward: float  # one forward pass: matrices + attention + adapters
    backward: float
    recompute: float  # the extra forward of gradient checkpointing (0 when off)
    attention_forward: float  # the attention share of ``forward``

    @property
    def total(self) -> float:
        return self.forward + self.backward + self.recompute

    @property
    def attention(self) -> float:
        """Attention's FLOPs in every pass: forward, backward (twice), recomputation."""
        return self.attention_forward * (3 + (1 if self.recompute else 0))

    @property
    def weights(self) -> float:
        """The weight (and adapter) products' FLOPs in every pass: all but attention."""
        return self.total - self.attention


@dataclass(frozen=True)
class CommunicationCost:
    """Communication of one optimizer step on one GPU, in seconds."""

    tensor_parallel_s: float  # on the critical path, already inside the micro-batch time
    data_parallel_s: float  # gradient reductions and weight gathers, before overlap
    data_parallel_exposed_s: float  # the part compute cannot hide
    offload_s: float  # PCIe host transfers and the CPU optimizer step (not overlapped)
    data_parallel_gbs: float  # one-way GB/s per GPU the data-parallel collectives run at
    tensor_parallel_gbs: float
    bytes_per_step: float  # data-parallel bytes one GPU sends per step (for network sizing)
    overlap_window_s: float  # compute time the data-parallel traffic can hide behind


@dataclass(frozen=True)
class TimeEstimate:
    """Throughput and time of a training job; figures are ``None`` when they cannot be known."""

    accelerator_key: str
    gpus: int
    servers: int
    strategy: str
    family: str
    calibrated_family: bool
    flops_per_token: float
    peak_tflops_per_gpu: float | None
    matmul_utilisation: float | None  # calibrated share of peak reached by the matrix work
    model_flops_utilisation: float | None  # what the whole job achieves (MFU)
    tokens_per_step: float
    micro_batch_s: float | None
    compute_s_per_step: float | None
    communication: CommunicationCost | None
    step_time_s: float | None
    tokens_per_s: float | None
    tokens_per_s_low: float | None
    tokens_per_s_high: float | None
    total_tokens: float | None
    time_to_train_hours: float | None
    time_to_train_hours_low: float | None
    time_to_train_hours_high: float | None
    gpu_hours: float | None
    assumptions: list[Message] = field(default_factory=list)


# --- Architecture helpers -----------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """The block shape the time model needs, estimated for generic models."""

    layers: float
    hidden: float
    q_out: float  # query width (heads x head size)
    vocab: float  # 0 when unknown
    untied_embedding_params: float  # the input embedding table (a lookup: no FLOPs)


@lru_cache(maxsize=256)  # scenarios are frozen; the catalog sweep reuses them
def model_shape(scenario: Scenario) -> Shape:
    m = scenario.model
    layout = m.layout
    if layout is None:
        hidden = (m.params * GENERIC_HIDDEN_PER_LAYER / 12) ** (1 / 3)
        return Shape(hidden / GENERIC_HIDDEN_PER_LAYER, hidden, hidden, 0.0, 0.0)
    untied = 0.0 if m.tied_embeddings else m.vocab * m.hidden
    return Shape(m.layers, m.hidden, layout.q_out, m.vocab, untied)


def uses_recompute(scenario: Scenario) -> bool:
    """Gradient checkpointing when stated; off when not stated (every framework's default)."""
    return bool(scenario.gradient_checkpointing)


@lru_cache(maxsize=256)  # scenarios are frozen; the catalog sweep reuses them
def flops_per_token(scenario: Scenario) -> FlopsPerToken:
    """Training FLOPs per token by method (see the module docstring)."""
    shape = model_shape(scenario)
    matmul_params = max(active_params(scenario.model) - shape.untied_embedding_params, 0.0)
    # Causal attention: QK^T and AV each cost 2 x q_out FLOPs per key a query attends to, and a
    # query attends to seq / 2 keys on average under the causal mask (FlashAttention skips
    # masked blocks): 2 x seq x q_out per token and layer.
    attention_forward = shape.layers * 4 * attended_keys(scenario) * shape.q_out
    adapter_forward = 2 * trainable_params(scenario) if scenario.uses_adapters else 0.0
    forward = 2 * matmul_params + attention_forward + adapter_forward
    if scenario.method in FULL_METHODS:
        # Activation gradients and weight gradients: two matrix products per forward product.
        backward = 2 * (2 * matmul_params) + 2 * attention_forward
    else:
        # Frozen base: activation gradients only (one product per forward product); the
        # adapters get both halves; attention's backward is all activation gradients.
        backward = 2 * matmul_params + 2 * attention_forward + 2 * adapter_forward
    recompute = forward if uses_recompute(scenario) else 0.0
    return FlopsPerToken(matmul_params, forward, backward, recompute, attention_forward)


def attended_keys(scenario: Scenario) -> float:
    """Keys a query attends to on average over the layers: seq / 2 under the causal mask; with
    a sliding window of w keys (model.sliding_window; FlashAttention's window_size skips the
    blocks outside it, Dao 2023) position i attends to min(i, w), on average w - w^2 / (2 seq)
    for seq >= w (at 32k tokens with Mistral's 4,096-token window, 3,840 keys instead of
    16,384), in the layers that use the window (model.sliding_window_layers; all without it:
    Gemma 2 and gpt-oss alternate windowed and full layers)."""
    seq = scenario.seq_len
    m = scenario.model
    window = m.sliding_window
    if window is None or window >= seq:
        return seq / 2
    windowed = window - window * window / (2 * seq)
    if m.sliding_window_layers is None or not m.layers:
        return windowed
    share = min(1.0, m.sliding_window_layers / m.layers)
    return share * windowed + (1 - share) * seq / 2


def _activation_passes(scenario: Scenario) -> int:
    """Element-wise passes over the activations: forward 1, backward 2, recomputation 1."""
    return 3 + (1 if uses_recompute(scenario) else 0)


@lru_cache(maxsize=256)  # scenarios are frozen; the catalog sweep reuses them
def elementwise_bytes_per_token(scenario: Scenario) -> float:
    """Memory traffic of the non-matrix work per token (norms, activations, logits, loss)."""
    shape = model_shape(scenario)
    passes = _activation_passes(scenario)
    blocks = ELEMENTWISE_BYTES_PER_HIDDEN * shape.layers * shape.hidden * passes
    return blocks + LOGITS_BYTES_PER_VOCAB * shape.vocab


def _weight_bytes_per_param(scenario: Scenario) -> float:
    """Bytes per base weight as the GPUs hold and exchange it."""
    if scenario.method == "qlora":
        return scenario.quant_bits_or_default / 8
    return 4 if scenario.precision == "fp32" else BYTES_16BIT


def _gradient_bytes_per_param(scenario: Scenario) -> float:
    """Bytes per gradient value on the wire: 16-bit except in pure fp32 training.

    Mixed precision (amp-*) reduces gradients in the compute type: DeepSpeed's default
    ``communication_data_type`` is the fp16/bf16 type, Megatron's grad reduction in bf16 with the
    distributed optimizer, FSDP's ``reduce_dtype`` follows ``param_dtype`` in the common policy.
    """
    return 4 if scenario.precision == "fp32" else BYTES_16BIT


def peak_tflops(scenario: Scenario, accelerator: AcceleratorSpec) -> float | None:
    """Dense peak for the scenario's compute type (16-bit; fp32 runs on TF32 at half).

    The BF16 figure, or the FP16 figure where the catalog has only that (Ascend 910B has no
    published BF16 figure): every catalog accelerator with both figures lists them equal.
    """
    peak = accelerator.bf16_dense_tflops or accelerator.fp16_dense_tflops
    if peak is None or peak <= 0:
        return None
    return peak * (FP32_PEAK_SHARE if scenario.precision == "fp32" else 1.0)


# --- Per-scenario figures (computed once per scenario) ---------------------------------------------


@dataclass(frozen=True)
class JobFigures:
    """What the time model needs from a scenario, computed once (catalog sweeps reuse it)."""

    flops: FlopsPerToken
    elementwise_bytes_per_token: float
    tokens_per_micro_batch: int
    grad_accum: int
    layers: float
    hidden: float
    activation_passes: int
    recompute: bool
    tensor_parallel: int
    pipeline_parallel: int
    trainable_params: float
    total_params: float
    weight_bytes_per_param: float
    gradient_bytes_per_param: float
    host_optimizer_bytes_per_param: float
    offload: str
    is_qlora: bool
    is_moe: bool
    fp32: bool
    # QLoRA: bytes of memory traffic to dequantise the frozen base, per micro-batch, whole model
    # (and DoRA's re-normalisation of the adapted matrices, DORA_BYTES_PER_WEIGHT).
    dequant_bytes_per_micro_batch: float = 0.0
    # Pipeline stages are a device_map layer split (Transformers/Accelerate): one micro-batch
    # passes through them at a time (memory.FrameworkTraits.naive_pipeline).
    naive_pipeline: bool = False
    # Expert parallelism (parallelism.expert_parallel) and what it moves: the routed experts'
    # parameters and trained parameters (counts), and the experts each token is sent to.
    expert_parallel: int = 1
    routed_params: float = 0.0
    routed_trainable_params: float = 0.0
    experts_per_token: int = 1
    # Routed experts per layer that run one after another in a loop (0: dense, or grouped GEMM
    # stated); a GPU runs experts_in_loop / expert_parallel of them.
    experts_in_loop: int = 0
    # Roofline: the minimum memory traffic of the weight products, bytes per token on the whole
    # model (see gemm_intensity), paid at the memory bandwidth next to their FLOPs.
    gemm_bytes_per_token: float = 0.0
    # The optimizer step on the GPUs: bytes read and written per trained parameter (0 when the
    # optimizer runs on the host: offload), see optimizer_bytes_per_param.
    optimizer_bytes_per_param: float = 0.0
    # The optimizer step's host work (host_step): operator calls one GPU makes per step, with
    # the model's own tensors and with ZeRO's flat buffers, and whether the loop waits for the
    # device after each tensor (bitsandbytes: host and device time add up).
    optimizer_host_calls: float = 0.0
    optimizer_host_calls_zero: float = 0.0
    optimizer_host_synced: bool = False
    # Share of an eager layer's operator calls the training loop makes per layer and pass
    # (host_step.layer_call_share: fewer under torch.compile).
    layer_call_share: float = 1.0
    # Context parallelism (parallelism.context_parallel) and how it exchanges attention; the
    # key/value and query widths (heads x head size) its traffic is made of.
    context_parallel: int = 1
    context_parallel_comm: str = "ring"
    kv_width: float = 0.0
    q_width: float = 0.0

    @cached_property
    def model_parallel(self) -> int:
        return self.tensor_parallel * self.pipeline_parallel

    @cached_property
    def pipeline_slots(self) -> int:
        """Micro-batch slots of one optimizer step's pipeline schedule.

        1F1B: grad_accum micro-batches flow through pp stages in (grad_accum + pp - 1) slots
        (Narayanan et al. 2021, the pipeline bubble). A device_map layer split runs each
        micro-batch through every stage in turn: grad_accum x pp.
        """
        if self.naive_pipeline:
            return self.grad_accum * self.pipeline_parallel
        return self.grad_accum + self.pipeline_parallel - 1

    @cached_property
    def without_model_parallelism(self) -> JobFigures:
        """The same job with tensor, pipeline and context parallelism dropped (cached)."""
        return replace(
            self,
            tensor_parallel=1,
            pipeline_parallel=1,
            context_parallel=1,
            tokens_per_micro_batch=self.tokens_per_micro_batch * self.context_parallel,
        )

    def for_gpus(self, gpus: int) -> JobFigures:
        """Model and context parallelism kept when they divide ``gpus``, dropped otherwise."""
        if gpus % (self.model_parallel * self.context_parallel) == 0:
            return self
        return self.without_model_parallelism

    @cached_property
    def backward_share(self) -> float:
        """Share of a micro-batch's FLOPs spent in the backward pass (gradients flow there)."""
        return self.flops.backward / self.flops.total


# The last scenario asked about and its figures: a catalog sweep asks about the same object
# thousands of times, and an identity check is cheaper than hashing the nested dataclass.
_LAST_JOB: tuple[Scenario | None, JobFigures | None] = (None, None)


def job_figures(scenario: Scenario) -> JobFigures:
    """The scenario's :class:`JobFigures`, computed once per scenario."""
    global _LAST_JOB
    last_scenario, last_job = _LAST_JOB  # one tuple read: safe under threads
    if last_scenario is scenario:
        return last_job
    job = _job_figures(scenario)
    _LAST_JOB = (scenario, job)
    return job


def sample_length(scenario: Scenario) -> int:
    """Tokens a sample is trained at: ``seq_len``, or for unpacked samples with a stated
    average length that average (capped at ``seq_len``): an unpacked batch is padded only to its
    longest sample, not to ``seq_len`` (Transformers' DataCollatorWithPadding pads to the
    longest in the batch), so a dataset of short samples is trained at its real length. With
    several samples per micro-batch the longest is longer than the average: the average is the
    lower bound, said in the assumptions."""
    average = scenario.avg_tokens_per_sample
    if average is None or scenario.packed is True:
        return scenario.seq_len
    return min(average, scenario.seq_len)


def _at_sample_length(scenario: Scenario) -> Scenario:
    length = sample_length(scenario)
    return scenario if length == scenario.seq_len else replace(scenario, seq_len=length)


@lru_cache(maxsize=256)  # scenarios are frozen; equal scenarios share their figures
def _job_figures(scenario: Scenario) -> JobFigures:
    shape = model_shape(scenario)
    timed = _at_sample_length(scenario)  # time follows the real length; memory keeps seq_len
    return JobFigures(
        flops=flops_per_token(timed),
        elementwise_bytes_per_token=elementwise_bytes_per_token(timed),
        # One context-parallel rank's share of the micro-batch (Megatron-Core splits each
        # sequence over the context-parallel group): per-GPU work, its tensor-parallel and
        # expert all-to-all traffic follow it; summed over the data-parallel degree (which
        # counts the context-parallel ranks) it is the step's tokens.
        tokens_per_micro_batch=scenario.micro_batch
        * timed.seq_len
        // scenario.parallelism.context_parallel,
        context_parallel=scenario.parallelism.context_parallel,
        context_parallel_comm=scenario.parallelism.context_parallel_comm or "ring",
        kv_width=_kv_width(scenario),
        q_width=model_shape(scenario).q_out,
        grad_accum=scenario.grad_accum,
        layers=shape.layers,
        hidden=shape.hidden,
        activation_passes=_activation_passes(scenario),
        recompute=uses_recompute(scenario),
        tensor_parallel=scenario.parallelism.tensor_parallel,
        pipeline_parallel=scenario.parallelism.pipeline_parallel,
        trainable_params=trainable_params(scenario),
        total_params=scenario.model.params,
        weight_bytes_per_param=_weight_bytes_per_param(scenario),
        gradient_bytes_per_param=_gradient_bytes_per_param(scenario),
        host_optimizer_bytes_per_param=_host_optimizer_bytes_per_param(scenario),
        offload=scenario.parallelism.offload,
        is_qlora=scenario.method == "qlora",
        is_moe=scenario.model.is_moe,
        fp32=scenario.precision == "fp32",
        dequant_bytes_per_micro_batch=dequant_bytes_per_micro_batch(scenario)
        + dora_bytes_per_micro_batch(scenario),
        naive_pipeline=traits_of(scenario).naive_pipeline,
        expert_parallel=scenario.parallelism.expert_parallel,
        routed_params=routed_expert_params(scenario.model),
        routed_trainable_params=routed_trainable_params(scenario),
        experts_per_token=scenario.model.experts_per_token or 1,
        experts_in_loop=experts_in_loop(scenario),
        gemm_bytes_per_token=gemm_bytes_per_token(timed),
        optimizer_bytes_per_param=optimizer_bytes_per_param(scenario),
        optimizer_host_calls=optimizer_host_calls(
            scenario, "single", scenario.parallelism.pipeline_parallel
        ),
        optimizer_host_calls_zero=optimizer_host_calls(scenario, "zero1"),
        optimizer_host_synced=host_synchronised(scenario),
        layer_call_share=layer_call_share(scenario),
    )


def gemm_intensity(tokens: float, d_in: float, d_out: float, value_bytes: float = 2) -> float:
    """FLOP per byte of one matrix product of ``tokens x d_in`` by ``d_in x d_out``: 2 T K N
    FLOPs over the bytes read and written at least once, (T K + K N + T N) values (roofline;
    NVIDIA's Matrix Multiplication Background User's Guide, "Math and Memory Bounds")."""
    values = tokens * d_in + d_in * d_out + tokens * d_out
    return 2 * tokens * d_in * d_out / (values * value_bytes) if values else 0.0


def weight_gemm_intensity(scenario: Scenario) -> float:
    """Intensity of the step's weight products: a micro-batch of ``micro_batch x seq_len``
    tokens through ``hidden x hidden / tensor_parallel`` (every rank holds a slice of each
    matrix; pipeline stages see the whole micro-batch)."""
    shape = model_shape(scenario)
    tokens = scenario.micro_batch * scenario.seq_len / scenario.parallelism.context_parallel
    value_bytes = 4 if scenario.precision == "fp32" else BYTES_16BIT
    width = shape.hidden / scenario.parallelism.tensor_parallel
    return gemm_intensity(tokens, shape.hidden, width, value_bytes)


def expert_gemm_intensity(scenario: Scenario) -> float:
    """Intensity of a routed expert's products (0 for dense models and generic shapes).

    An expert sees only the tokens routed to it: ``micro_batch x seq_len x top-k / experts``
    on average, times the expert-parallel degree (each GPU holds 1/ep of the experts and
    receives their tokens from ep GPUs), through ``hidden x intermediate / tensor_parallel``.
    With many small experts this is far below the dense products' intensity (Qwen1.5-MoE at
    8,192 tokens: 546 tokens per expert through 2,048 x 1,408, 329 FLOP/B).
    """
    m = scenario.model
    if not m.is_moe or m.layout is None:
        return 0.0
    tokens = scenario.micro_batch * scenario.seq_len * m.experts_per_token / m.experts
    tokens *= scenario.parallelism.expert_parallel / scenario.parallelism.context_parallel
    value_bytes = 4 if scenario.precision == "fp32" else BYTES_16BIT
    width = m.intermediate / scenario.parallelism.tensor_parallel
    return gemm_intensity(tokens, m.hidden, width, value_bytes)


def gemm_bytes_per_token(scenario: Scenario) -> float:
    """Minimum memory traffic of the weight products per token (whole model): their FLOPs
    (every pass: forward, backward, recomputation; attention excluded) over their intensity,
    the routed experts' share (their active parameters over those a token passes through) at
    the experts' own intensity."""
    flops = flops_per_token(scenario)
    intensity = weight_gemm_intensity(scenario)
    if intensity <= 0:
        return 0.0
    expert_intensity = expert_gemm_intensity(scenario)
    if expert_intensity <= 0 or flops.matmul_params <= 0:
        return flops.weights / intensity
    m = scenario.model
    routed_active = routed_expert_params(m) * m.experts_per_token / m.experts
    routed = flops.weights * min(1.0, routed_active / flops.matmul_params)
    return (flops.weights - routed) / intensity + routed / expert_intensity


def _kv_width(scenario: Scenario) -> float:
    """Width of the key (or value) projection output, kv_heads x head size (0 if unknown)."""
    layout = scenario.model.layout
    return layout.kv_out if layout is not None else model_shape(scenario).q_out


def experts_in_loop(scenario: Scenario) -> int:
    """Routed experts per layer run one after another (see EXPERT_CALL_SHARE_OF_LAYER)."""
    if not scenario.model.is_moe or scenario.moe_grouped_gemm:
        return 0
    return scenario.model.experts


def dequant_bytes_per_micro_batch(scenario: Scenario) -> float:
    """QLoRA: memory traffic of dequantising the frozen block matrices once per pass
    (forward, backward, and a recomputed forward), for one micro-batch (0 for other methods)."""
    if scenario.method != "qlora":
        return 0.0
    shape = model_shape(scenario)
    quantised = max(scenario.model.params - shape.untied_embedding_params - _head_params(shape), 0)
    passes = 2 + (1 if uses_recompute(scenario) else 0)
    per_weight = scenario.quant_bits_or_default / 8 + DEQUANT_CONSTANT_BYTES
    return quantised * (per_weight + DEQUANT_WRITE_READ_BYTES) * passes


def dora_bytes_per_micro_batch(scenario: Scenario) -> float:
    """DoRA: memory traffic of re-normalising the adapted matrices, once per forward pass (and
    a recomputed forward) per micro-batch (0 for other methods; see DORA_BYTES_PER_WEIGHT)."""
    if scenario.method != "dora":
        return 0.0
    passes = 1 + (1 if uses_recompute(scenario) else 0)
    return adapted_base_params(scenario) * DORA_BYTES_PER_WEIGHT * passes


def _head_params(shape) -> float:
    """The output head (vocab x hidden), which PEFT/Transformers keep in 16 bits."""
    return shape.vocab * shape.hidden


# --- Time per micro-batch ------------------------------------------------------------------------


def matmul_utilisation(
    job: JobFigures, accelerator: AcceleratorSpec, cal: Calibration
) -> tuple[float, bool, str]:
    """Calibrated share of peak reached by matrix work: (value, family measured?, family).

    The same for dense and mixture-of-experts models: the shared MoE factor fitted until
    2026-12-03 did not hold out of fold (decision 0056); what it stood for is modelled.
    """
    family = calibration.family_of(accelerator)
    value, calibrated = cal.family_utilisation(family)
    return min(value, 1.0), calibrated, family


def micro_batch_seconds(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> float:
    """Seconds one GPU spends computing one micro-batch (forward, backward, recomputation).

    Matrix work at the calibrated share of peak, element-wise traffic at the memory bandwidth,
    and the launch overhead of every layer this GPU holds in every pass.
    """
    return sum(micro_batch_parts(job, accelerator, peak_tflops_per_gpu, utilisation, cal))


def micro_batch_parts(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> tuple[float, float, float, float]:
    """(weight products, attention, element-wise traffic, launches) of one micro-batch, s."""
    tokens = job.tokens_per_micro_batch / job.model_parallel
    rate = peak_tflops_per_gpu * 1e12 * utilisation
    weights_s = job.flops.weights * tokens / rate
    attention_s = job.flops.attention * tokens / rate
    memory_s = 0.0
    if accelerator.memory_bandwidth_tbps:
        dequant = job.dequant_bytes_per_micro_batch / job.model_parallel
        bandwidth = accelerator.memory_bandwidth_tbps * 1e12
        memory_s = (job.elementwise_bytes_per_token * tokens + dequant) / bandwidth
        # Roofline: the weight products take the longer of their two ceilings.
        weights_s = max(weights_s, job.gemm_bytes_per_token * tokens / bandwidth)
    layers_here = job.layers / job.pipeline_parallel
    launch_s = cal.layer_pass_overhead_s * layers_here * job.activation_passes
    launch_s *= job.layer_call_share
    return weights_s, attention_s, memory_s, launch_s


def micro_batch_with_traffic(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    links: Links,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> tuple[float, float, float]:
    """One micro-batch with the traffic inside it: (seconds, tensor-parallel seconds,
    tensor-parallel GB/s). Tensor-parallel collectives wait for the products (fusing them with
    the products, Ascend MC2, was scored and not kept: docs/decisions/0060); context
    parallelism's exchanges, partly hidden behind attention, are added here too."""
    weights_s, attention_s, memory_s, launch_s = micro_batch_parts(
        job, accelerator, peak_tflops_per_gpu, utilisation, cal
    )
    tp_s, tp_gbs = tensor_parallel_seconds(job, links)
    cp_s = context_parallel_seconds(job, links, attention_s)
    return weights_s + attention_s + memory_s + launch_s + tp_s + cp_s, tp_s, tp_gbs


# --- Communication ---------------------------------------------------------------------------------


def _ring_share(group: int) -> float:
    """Share of a buffer each GPU sends in a ring reduce-scatter or all-gather: (g - 1) / g."""
    return (group - 1) / group if group > 1 else 0.0


def tensor_parallel_seconds(job: JobFigures, links: Links) -> tuple[float, float]:
    """Per micro-batch: (seconds, GB/s) of Megatron-style tensor-parallel all-reduces.

    Two all-reduces of the micro-batch's activations (tokens x hidden, 16-bit) per layer in the
    forward, two in the backward and two more in a recomputed forward (Korthikanti et al. 2022;
    sequence parallelism replaces each by a reduce-scatter plus all-gather of the same volume).
    """
    tp = job.tensor_parallel
    if tp <= 1:
        return 0.0, 0.0
    per_layer = 4 + (2 if job.recompute else 0)
    layers_here = job.layers / job.pipeline_parallel
    buffer = job.tokens_per_micro_batch * job.hidden * BYTES_16BIT
    sent = 2 * _ring_share(tp) * buffer * per_layer * layers_here
    gbs = links.collective_gbs(tp, spans_servers=tp > links.gpus_per_server)
    return sent / (gbs * 1e9), gbs


def context_parallel_seconds(job: JobFigures, links: Links, attention_s: float) -> float:
    """Per micro-batch: context parallelism's attention traffic on the critical path.

    Each GPU holds tokens / cp of every sequence (Megatron-Core's context parallelism; its
    per-GPU work and activations are already divided). ``ring`` (Megatron-Core
    ``AttnFuncWithCPAndKVP2P``, --cp-comm-type p2p, after Liu, Zaharia and Abbeel, "Ring
    Attention with Blockwise Transformers", arXiv:2310.01889): in every layer the key and value
    blocks (2 x tokens x kv_heads·head_dim / tp, 16-bit) go round the ring in cp - 1 steps in
    the forward pass, and the backward pass sends them again with their gradients (twice the
    forward's bytes; a recomputed forward once more); each step's transfer runs during the
    attention of the block already received, so only what exceeds the attention time is paid.
    ``all-to-all`` (Jacobs et al., "DeepSpeed Ulysses", arXiv:2309.14509, section 3; MindSpeed
    ulysses_cp_algo): q, k and v are re-split by heads before attention and the output back
    after it, (cp - 1) / cp of each leaving the GPU, the same four again for the gradients in
    the backward pass; attention waits for them, so none is hidden.
    """
    cp = job.context_parallel
    if cp <= 1:
        return 0.0
    tokens = job.tokens_per_micro_batch
    layers_here = job.layers / job.pipeline_parallel
    passes = 1 + (1 if job.recompute else 0)
    spans = cp * job.tensor_parallel > links.gpus_per_server
    gbs = links.collective_gbs(cp, spans_servers=spans) * 1e9
    if job.context_parallel_comm == "all-to-all":
        width = 2 * job.q_width + 2 * job.kv_width
        sent = (passes + 1) * _ring_share(cp) * tokens * width * BYTES_16BIT
        return sent * layers_here / job.tensor_parallel / gbs
    blocks = (passes + 2) * (cp - 1) * 2 * tokens * job.kv_width * BYTES_16BIT
    ring_s = blocks * layers_here / job.tensor_parallel / gbs
    return max(0.0, ring_s - attention_s)


def data_parallel_bytes(job: JobFigures, strategy: str, data_parallel: int) -> tuple[float, str]:
    """Bytes one GPU sends per optimizer step for data parallelism, and when they are sent.

    Returns (bytes, timing) where timing is ``"step"`` (once after the last micro-batch: DDP's
    and ZeRO-1's gradient all-reduce) or ``"micro-batch"`` (ZeRO-2 reduce-scatters each
    micro-batch's gradients; ZeRO-3/FSDP also gather the weights for the forward and again for
    the backward of every micro-batch). Ring all-reduce sends 2 (g-1)/g of the buffer,
    reduce-scatter and all-gather (g-1)/g each.
    """
    if data_parallel <= 1:
        return 0.0, "step"
    mp = job.model_parallel
    share = _ring_share(data_parallel)
    grad_bytes, weight_bytes = job.gradient_bytes_per_param, job.weight_bytes_per_param
    # Expert parallelism: the routed experts a GPU holds (1/ep of them) are reduced and
    # gathered only over the dp / ep ranks of their expert-data-parallel group, never over
    # the whole data-parallel group, and never gathered at all when ep equals it (Megatron-Core
    # expert_data_parallel groups; DeepSpeed-MoE, Rajbhandari et al. 2022, section 5.1).
    ep = expert_parallel_degree(job, data_parallel)
    if ep > 1:
        expert_share = _ring_share(data_parallel // ep)
        routed_trained, routed = job.routed_trainable_params, job.routed_params
        grads = share * (job.trainable_params - routed_trained) + (
            expert_share * routed_trained / ep
        )
        weights = share * (job.total_params - routed) + expert_share * routed / ep
        grads *= grad_bytes / mp
        weights *= weight_bytes / mp
    else:
        grads = share * job.trainable_params * grad_bytes / mp
        weights = share * job.total_params * weight_bytes / mp
    accum = job.grad_accum
    if strategy in ("zero3", "fsdp"):
        return accum * (2 * weights + grads), "micro-batch"
    if strategy == "zero2":
        updated = grads / grad_bytes * BYTES_16BIT
        return accum * grads + updated, "micro-batch"
    return 2 * grads, "step"  # ddp, zero1, and single with replicas


def expert_parallel_degree(job: JobFigures, data_parallel: int) -> int:
    """The job's expert-parallel degree where it divides ``data_parallel``, else 1."""
    ep = job.expert_parallel
    return ep if ep > 1 and data_parallel % ep == 0 else 1


def expert_loop_seconds(job: JobFigures, data_parallel: int, layer_pass_overhead_s: float) -> float:
    """Per micro-batch: the host time of running this GPU's experts one by one (see
    EXPERT_CALL_SHARE_OF_LAYER); 0 for dense models and grouped GEMM."""
    if not job.experts_in_loop:
        return 0.0
    local = job.experts_in_loop / expert_parallel_degree(job, data_parallel)
    layers_here = job.layers / job.pipeline_parallel
    calls = local * layers_here * job.activation_passes
    return calls * EXPERT_CALL_SHARE_OF_LAYER * layer_pass_overhead_s


def expert_parallel_seconds(job: JobFigures, links: Links, data_parallel: int) -> float:
    """Per micro-batch: the all-to-all exchanges of expert parallelism (critical path).

    Every MoE layer sends each token to its top-k experts and brings the results back: two
    all-to-alls of tokens x k hidden vectors (16-bit), of which (ep - 1) / ep leave the GPU, in
    the forward pass, two more carrying the gradients in the backward pass, and two in a
    recomputed forward (GShard, Lepikhin et al. 2020, section 2.2; Megatron-Core's alltoall
    token dispatcher: dispatch and combine). Each layer's expert work waits for them, so they
    are not hidden behind compute. Every layer is counted as a MoE layer (v1 does not say how
    many leading layers are dense). 0 without expert parallelism.
    """
    ep = expert_parallel_degree(job, data_parallel)
    if ep <= 1:
        return 0.0
    tokens = job.tokens_per_micro_batch / job.tensor_parallel
    exchanges = 2 * (2 + (1 if job.recompute else 0))
    layers_here = job.layers / job.pipeline_parallel
    sent = exchanges * tokens * job.experts_per_token * job.hidden * BYTES_16BIT
    sent *= _ring_share(ep) * layers_here
    gbs = links.collective_gbs(ep, spans_servers=ep * job.model_parallel > links.gpus_per_server)
    return sent / (gbs * 1e9)


# Effective host memory bandwidth of a CPU optimizer step (Adam is element-wise, memory bound):
# a 2-socket server with 8 DDR5-4800 channels per socket peaks at ~600 GB/s, and vectorised
# CPU Adam implementations reach roughly a fifth of that. An engineering estimate: the one
# offload case in the reference set (torchtune 70B FSDP CPU offload) agrees within its error.
HOST_OPTIMIZER_GBS = 120.0


def _host_optimizer_bytes_per_param(scenario: Scenario) -> float:
    """Bytes an Adam step reads and writes per parameter on the host.

    Reads weight, gradient and two moments and writes weight and both moments; mixed precision
    also writes the 16-bit copy sent back to the GPU: 28 bytes for amp-*, 14 for pure 16-bit.
    """
    master = 4 if scenario.precision in ("fp32", "amp-bf16", "amp-fp16") else BYTES_16BIT
    moments = 1 if scenario.optimizer in ("adamw-8bit", "paged-adamw-8bit") else master
    grads = _gradient_bytes_per_param(scenario)
    copy = BYTES_16BIT if scenario.precision.startswith("amp") else 0
    return 2 * master + grads + 4 * moments + copy


# Optimizer states per trained parameter an update reads and writes on the GPU: AdamW's two
# moments (Loshchilov and Hutter 2019), SGD's momentum buffer, Adafactor's factored second moment
# (a row and a column per matrix: nothing per parameter, Shazeer and Stern 2018).
OPTIMIZER_STATES = {
    "adamw": 2,
    "paged-adamw": 2,
    "adamw-8bit": 2,
    "paged-adamw-8bit": 2,
    "sgd": 1,
    "adafactor": 0,
}


def optimizer_bytes_per_param(scenario: Scenario) -> float:
    """Bytes the optimizer step reads and writes per trained parameter on the GPU.

    The update is element-wise, so it runs at the memory bandwidth (PyTorch's foreach/fused
    AdamW, DeepSpeed's FusedAdam and Megatron's fused Adam are multi-tensor kernels over every
    parameter): the weight (the fp32 master under amp-*) read and written, the gradient read,
    each state read and written (4 bytes, 16-bit in pure 16-bit training, 1 for 8-bit AdamW),
    and under amp-* the 16-bit copy written: 4 + 4 + 2 + 2 x (4 + 4) + 2 = 28 bytes for amp-bf16
    AdamW, 2 + 2 + 2 + 2 x (2 + 2) = 14 for pure bf16. 0 when the optimizer runs on the host
    (offload: its time is in offload_seconds).
    """
    if scenario.parallelism.offload != "none":
        return 0.0
    amp = scenario.precision in ("fp32", "amp-bf16", "amp-fp16")
    master = 4 if amp else BYTES_16BIT
    state = 1 if scenario.optimizer in ("adamw-8bit", "paged-adamw-8bit") else master
    states = OPTIMIZER_STATES.get(scenario.optimizer, 2)
    copy = BYTES_16BIT if scenario.precision.startswith("amp") else 0
    return 2 * master + _gradient_bytes_per_param(scenario) + 2 * states * state + copy


def optimizer_seconds(
    job: JobFigures, strategy: str, data_parallel: int, memory_bandwidth_tbps: float | None
) -> float:
    """Per optimizer step: the update of the trained parameters this GPU holds, at the memory
    bandwidth (see optimizer_bytes_per_param). Model parallelism splits them over its ranks;
    ZeRO-1/2/3 and FSDP also over the data-parallel ranks (each updates its shard); DDP
    updates every replica. 0 when the bandwidth is unknown."""
    if not memory_bandwidth_tbps or not job.optimizer_bytes_per_param:
        return 0.0
    return optimizer_step_bytes(job, strategy, data_parallel) / (memory_bandwidth_tbps * 1e12)


def optimizer_step_bytes(job: JobFigures, strategy: str, data_parallel: int) -> float:
    """Bytes one GPU's optimizer step reads and writes (see :func:`optimizer_seconds`)."""
    shards = job.model_parallel
    if strategy in SHARDED_OPTIMIZER_STRATEGIES:
        shards *= data_parallel
    held = job.trainable_params / shards
    return held * job.optimizer_bytes_per_param


# Strategies whose optimizer states (and step) are split over the data-parallel ranks.
SHARDED_OPTIMIZER_STRATEGIES = frozenset(("zero1", "zero2", "zero3", "fsdp"))

# The optimizer step's time is said when it is at least this share of a step.
OPTIMIZER_SHARE_SAID = 0.1


def offload_seconds(job: JobFigures, links: Links, gpus: int) -> float:
    """Per optimizer step: PCIe transfers and the CPU optimizer step of CPU offload.

    ``optimizer``: each GPU sends its gradient shard to the host and receives the updated
    16-bit weights. ``optimizer+params``: the weight shard also streams in for the forward and
    the backward of every micro-batch and the gradients stream out each micro-batch. The CPU
    updates the trainable parameters of the GPUs it hosts.
    """
    if job.offload == "none":
        return 0.0
    trainable_share = job.trainable_params / gpus
    grads = trainable_share * job.gradient_bytes_per_param
    pcie_bytes = grads + trainable_share * BYTES_16BIT
    if job.offload == "optimizer+params":
        weights_share = job.total_params * job.weight_bytes_per_param / gpus
        pcie_bytes += job.grad_accum * (2 * weights_share + grads)
    gpus_per_host = min(gpus, links.gpus_per_server)
    host_bytes = trainable_share * gpus_per_host * job.host_optimizer_bytes_per_param
    return pcie_bytes / (links.pcie_gbs * 1e9) + host_bytes / (HOST_OPTIMIZER_GBS * 1e9)


# --- One optimizer step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StepTime:
    """One optimizer step of the whole job (every GPU works in parallel)."""

    micro_batch_s: float  # compute of one micro-batch on one GPU, tensor-parallel traffic included
    compute_s: float  # all micro-batches through the pipeline
    communication: CommunicationCost
    step_s: float
    tokens_per_step: float
    optimizer_s: float = 0.0  # the optimizer step on the GPU (memory-bound), in step_s

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_s


def step_time(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    gpus: int,
    strategy: str,
    links: Links,
    peak_tflops_per_gpu: float,
    utilisation: float,
    cal: Calibration,
) -> StepTime:
    micro_s, tp_s, tp_gbs = micro_batch_with_traffic(
        job, accelerator, links, peak_tflops_per_gpu, utilisation, cal
    )
    data_parallel = max(1, gpus // job.model_parallel)
    ep_s = expert_parallel_seconds(job, links, data_parallel)
    ep_s += expert_loop_seconds(job, data_parallel, cal.layer_pass_overhead_s)
    parts = _step_parts(
        job,
        gpus,
        strategy,
        links,
        micro_s,
        cal.layer_pass_overhead_s,
        accelerator.memory_bandwidth_tbps,
    )
    slots, compute_s, dp_bytes, dp_gbs, dp_s, window, exposed_s, offload_s, tokens = parts[:9]
    optimizer_s = parts[9]
    comm = CommunicationCost(
        tensor_parallel_s=tp_s * slots,
        data_parallel_s=dp_s,
        data_parallel_exposed_s=exposed_s,
        offload_s=offload_s,
        data_parallel_gbs=dp_gbs,
        tensor_parallel_gbs=tp_gbs,
        bytes_per_step=dp_bytes,
        overlap_window_s=window,
    )
    return StepTime(
        micro_batch_s=micro_s + ep_s,
        compute_s=compute_s,
        communication=comm,
        step_s=compute_s + exposed_s + offload_s + optimizer_s,
        tokens_per_step=tokens,
        optimizer_s=optimizer_s,
    )


# What compute hides a step's data-parallel traffic (an index into StepCompute.windows): a
# step-end all-reduce overlaps the last backward (bucketed all-reduce in DDP/ZeRO-1); ZeRO-2
# reduces buckets during every backward; FSDP/ZeRO-3 prefetch the next layer's weights during
# all compute.
LAST_BACKWARD, EVERY_BACKWARD, ALL_COMPUTE = 0, 1, 2


class StepTraffic(NamedTuple):
    """What one optimizer step sends and trains on ``gpus`` GPUs under one strategy: the same
    on every accelerator, so a catalog sweep computes it once per (GPU count, strategy)."""

    data_parallel: int
    dp_bytes: float  # bytes one GPU sends for data parallelism (data_parallel_bytes)
    overlap: int  # the compute that hides them: LAST_BACKWARD, EVERY_BACKWARD or ALL_COMPUTE
    tokens: float  # tokens per optimizer step, whole job
    optimizer_bytes: float  # bytes one GPU's optimizer step reads and writes (0: on the host)
    # The step's host calls (host_step) in seconds: what its device time can hide (the host
    # issues ahead), and what adds to it (bitsandbytes waits for the device after each tensor).
    optimizer_floor_s: float
    optimizer_added_s: float


def strategy_host_calls(job: JobFigures, strategy: str) -> float:
    """The optimizer step's host calls under ``strategy`` (ZeRO steps its flat buffers)."""
    if strategy in ZERO_STRATEGIES:
        return job.optimizer_host_calls_zero
    return job.optimizer_host_calls


def step_traffic(job: JobFigures, gpus: int, strategy: str, call_s: float = 0.0) -> StepTraffic:
    """``call_s``: host seconds of one operator call (host_step.call_seconds)."""
    data_parallel = max(1, gpus // job.model_parallel)
    dp_bytes, timing = data_parallel_bytes(job, strategy, data_parallel)
    optimizer_bytes = 0.0
    if job.optimizer_bytes_per_param:
        optimizer_bytes = optimizer_step_bytes(job, strategy, data_parallel)
    tokens = job.tokens_per_micro_batch * job.grad_accum * data_parallel
    overlap = LAST_BACKWARD
    if timing == "micro-batch":
        overlap = ALL_COMPUTE if strategy in ("zero3", "fsdp") else EVERY_BACKWARD
    floor_s = strategy_host_calls(job, strategy) * call_s
    added_s = 0.0
    if job.optimizer_host_synced:
        floor_s, added_s = 0.0, floor_s
    # Positional: a named tuple built from keywords costs about three times as much, and a
    # catalog sweep builds thousands of these and of StepCompute.
    return StepTraffic(data_parallel, dp_bytes, overlap, tokens, optimizer_bytes, floor_s, added_s)


class StepCompute(NamedTuple):
    """One optimizer step's compute on ``gpus`` GPUs of one accelerator, whatever the
    data-parallel strategy: a catalog sweep computes it once per (accelerator, GPU count)."""

    slots: int  # micro-batch slots of the pipeline schedule
    micro_s: float  # one micro-batch with the expert all-to-all and loop
    compute_s: float  # all micro-batches through the pipeline
    dp_gbs: float  # the data-parallel collectives' bandwidth per GPU
    offload_s: float
    dp_bytes_per_s: float  # dp_gbs in bytes per second (every strategy's traffic divides by it)
    # The compute that can hide data-parallel traffic, by StepTraffic.overlap: the last
    # micro-batch's backward, every micro-batch's backward, all micro-batches.
    windows: tuple[float, float, float]


def step_compute(
    job: JobFigures, gpus: int, links: Links, micro_s: float, layer_pass_overhead_s: float
) -> StepCompute:
    """The step's compute from one micro-batch's seconds (tensor-parallel traffic included;
    the all-to-all of expert parallelism and the expert loop are added here, where the
    data-parallel degree is known)."""
    data_parallel = max(1, gpus // job.model_parallel)
    if job.expert_parallel > 1:
        micro_s += expert_parallel_seconds(job, links, data_parallel)
    if job.experts_in_loop:
        micro_s += expert_loop_seconds(job, data_parallel, layer_pass_overhead_s)
    slots = job.pipeline_slots
    compute_s = micro_s * slots
    dp_gbs = links.collective_gbs(data_parallel, spans_servers=gpus > links.gpus_per_server)
    offload_s = offload_seconds(job, links, gpus)
    last_backward = micro_s * job.backward_share
    windows = (last_backward, last_backward * job.grad_accum, compute_s)
    # Positional, as in step_traffic.
    return StepCompute(slots, micro_s, compute_s, dp_gbs, offload_s, dp_gbs * 1e9, windows)


def exposed_seconds(compute: StepCompute, traffic: StepTraffic) -> tuple[float, float, float]:
    """(data-parallel seconds, the compute that can hide them, the part not hidden); which
    compute hides them is the traffic's ``overlap`` (see LAST_BACKWARD)."""
    dp_s = traffic.dp_bytes / compute.dp_bytes_per_s if traffic.dp_bytes else 0.0
    window = compute.windows[traffic.overlap]
    exposed_s = dp_s - window
    return dp_s, window, exposed_s if exposed_s > 0.0 else 0.0  # max(0.0, ...) without a call


def memory_bytes_per_s(memory_bandwidth_tbps: float | None) -> float | None:
    """The card's memory bandwidth in bytes per second (``None``: unknown)."""
    return memory_bandwidth_tbps * 1e12 if memory_bandwidth_tbps else None


def _optimizer_s(traffic: StepTraffic, bytes_per_s: float | None) -> float:
    """The optimizer step: its traffic at ``bytes_per_s`` (:func:`memory_bytes_per_s`) and its
    host calls (host_step), the longer of the two when the host issues ahead, their sum when
    the loop waits for the device after each tensor (StepTraffic's floor and added seconds)."""
    device_s = 0.0
    if bytes_per_s and traffic.optimizer_bytes:
        device_s = traffic.optimizer_bytes / bytes_per_s
    floor_s = traffic.optimizer_floor_s
    return (device_s if device_s > floor_s else floor_s) + traffic.optimizer_added_s


def _step_parts(
    job: JobFigures,
    gpus: int,
    strategy: str,
    links: Links,
    micro_s: float,
    layer_pass_overhead_s: float,
    memory_bandwidth_tbps: float | None = None,
) -> tuple:
    """One optimizer step from one micro-batch's seconds (see :func:`step_compute`).

    Returns (slots, compute_s, dp_bytes, dp_gbs, dp_s, window, exposed_s, offload_s,
    tokens_per_step, optimizer_s).
    """
    compute = step_compute(job, gpus, links, micro_s, layer_pass_overhead_s)
    traffic = step_traffic(job, gpus, strategy, call_seconds(layer_pass_overhead_s))
    dp_s, window, exposed_s = exposed_seconds(compute, traffic)
    return (
        compute.slots,
        compute.compute_s,
        traffic.dp_bytes,
        compute.dp_gbs,
        dp_s,
        window,
        exposed_s,
        compute.offload_s,
        traffic.tokens,
        _optimizer_s(traffic, memory_bytes_per_s(memory_bandwidth_tbps)),
    )


# --- The estimate -------------------------------------------------------------------------------------


def _servers_for(scenario: Scenario, gpus: int, links: Links, server: ServerSpec | None) -> int:
    if server is None and gpus == scenario.hardware.count:
        return scenario.hardware.nodes
    return max(1, math.ceil(gpus / links.gpus_per_server))


def _for_gpus(scenario: Scenario, gpus: int) -> Scenario:
    """The scenario with its tensor/pipeline parallelism, or without when it does not divide."""
    if gpus % (scenario.parallelism.model_parallel * scenario.parallelism.context_parallel) == 0:
        return scenario
    return _without_model_parallelism(scenario)


def tokens_per_second(
    scenario: Scenario,
    accelerator: AcceleratorSpec,
    gpus: int | None = None,
    server: ServerSpec | None = None,
    strategy: str | None = None,
    cal: Calibration | None = None,
) -> float | None:
    """Whole-job tokens/s only (no messages): the fast path for sweeping the catalog.

    Same model and arguments as :func:`estimate_time`; ``None`` when the peak is unknown.
    """
    cal = cal or calibration.STORED
    gpus = gpus or scenario.hardware.count
    peak = peak_tflops(scenario, accelerator)
    if peak is None:
        return None
    job = job_figures(scenario).for_gpus(gpus)
    utilisation = matmul_utilisation(job, accelerator, cal)[0]
    links = links_for(accelerator, server)
    strategy = strategy or scenario.parallelism.strategy
    return step_time(job, accelerator, gpus, strategy, links, peak, utilisation, cal).tokens_per_s


class ThroughputSweep:
    """Whole-job tokens/s of one scenario for many (accelerator, GPU count, strategy).

    The fast path of a catalog sweep: the same model as :func:`tokens_per_second` (and equal
    results for the same arguments), with each part of a step computed once for what it
    depends on: the scenario's figures once, the traffic of a (GPU count, strategy) once for
    every accelerator, an accelerator's micro-batch once per job variant, its step compute
    once per GPU count (:meth:`rates_by_gpus`), and each (accelerator, GPU count, strategy)
    once. The keys are complete because the scenario, server and calibration are fixed for the
    sweep's life and an accelerator's key names its figures in a catalog; each table holds one
    entry per key the caller asks about.
    """

    def __init__(
        self,
        scenario: Scenario,
        *,
        server: ServerSpec | None = None,
        cal: Calibration | None = None,
    ):
        self.scenario = scenario
        self.server = server
        self.cal = cal or calibration.STORED
        self.call_s = call_seconds(self.cal.layer_pass_overhead_s)
        self.job = job_figures(scenario)
        self._micro: dict[tuple[str, bool], tuple[float, Links] | None] = {}
        self._traffic: dict[int, TrafficByStrategy] = {}
        self._rates: dict[str, RatesByGpus] = {}

    def tokens_per_s(self, accelerator: AcceleratorSpec, gpus: int, strategy: str) -> float | None:
        """Whole-job tokens/s on ``gpus`` of ``accelerator`` (``None``: peak unknown)."""
        return self.rates(accelerator, gpus)[strategy]

    def rates(self, accelerator: AcceleratorSpec, gpus: int) -> RatesByStrategy:
        """Whole-job tokens/s on ``gpus`` of ``accelerator`` by strategy, each computed when
        first read (``None``: peak unknown)."""
        return self.rates_by_gpus(accelerator)[gpus]

    def rates_by_gpus(self, accelerator: AcceleratorSpec) -> RatesByGpus:
        """The :meth:`rates` tables of ``accelerator`` by GPU count, each made when first read:
        a caller sweeping GPU counts asks for the accelerator once, not once per count."""
        rates = self._rates.get(accelerator.key)
        if rates is None:
            rates = self._rates[accelerator.key] = RatesByGpus(self, accelerator)
        return rates

    def traffic(self, gpus: int) -> TrafficByStrategy:
        """The step traffic on ``gpus`` GPUs by strategy (every accelerator shares it)."""
        traffic = self._traffic.get(gpus)
        if traffic is None:
            traffic = self._traffic[gpus] = TrafficByStrategy(
                self.job.for_gpus(gpus), gpus, self.call_s
            )
        return traffic

    def micro_seconds(self, accelerator: AcceleratorSpec, job: JobFigures):
        """(one micro-batch's seconds, links) of ``job`` on ``accelerator`` (``None``: peak
        unknown); ``job`` is the sweep's or its variant without model parallelism."""
        key = (accelerator.key, job is self.job)
        out = self._micro.get(key, _UNSET)
        if out is not _UNSET:
            return out
        peak = peak_tflops(self.scenario, accelerator)
        out = None
        if peak is not None:
            utilisation = matmul_utilisation(job, accelerator, self.cal)[0]
            links = links_for(accelerator, self.server)
            micro_s = micro_batch_with_traffic(
                job, accelerator, links, peak, utilisation, self.cal
            )[0]
            out = (micro_s, links)
        self._micro[key] = out
        return out


_UNSET = object()  # a table's "not computed yet" where None is a stored answer


class RatesByGpus(dict):
    """One accelerator's :class:`RatesByStrategy` tables by GPU count, made when first read."""

    __slots__ = ("sweep", "accelerator", "memory_bytes_per_s", "micro")  # no attribute dict

    def __init__(self, sweep: ThroughputSweep, accelerator: AcceleratorSpec):
        self.sweep = sweep  # dict.__new__ made the empty table; no dict.__init__ needed
        self.accelerator = accelerator
        self.memory_bytes_per_s = memory_bytes_per_s(accelerator.memory_bandwidth_tbps)
        # The micro-batch of the sweep's job, which every GPU count that the job's model
        # parallelism divides uses (the others take the job without it, asked of the sweep).
        self.micro = sweep.micro_seconds(accelerator, sweep.job)

    def __missing__(self, gpus: int) -> RatesByStrategy:
        sweep = self.sweep
        traffic = sweep.traffic(gpus)
        job = traffic.job  # the sweep's job for this GPU count (JobFigures.for_gpus)
        micro = self.micro if job is sweep.job else sweep.micro_seconds(self.accelerator, job)
        compute = None
        if micro is not None:
            micro_s, links = micro
            compute = step_compute(job, gpus, links, micro_s, sweep.cal.layer_pass_overhead_s)
        rates = self[gpus] = RatesByStrategy(compute, traffic, self.memory_bytes_per_s)
        return rates


class TrafficByStrategy(dict):
    """The :class:`StepTraffic` of one job on ``gpus`` GPUs by strategy, made when first read."""

    __slots__ = ("job", "gpus", "call_s")  # no per-table attribute dict

    def __init__(self, job: JobFigures, gpus: int, call_s: float = 0.0):
        self.job = job  # dict.__new__ made the empty table; no dict.__init__ needed
        self.gpus = gpus
        self.call_s = call_s  # host seconds of one operator call (host_step)

    def __missing__(self, strategy: str) -> StepTraffic:
        traffic = self[strategy] = step_traffic(self.job, self.gpus, strategy, self.call_s)
        return traffic


class RatesByStrategy(dict):
    """Whole-job tokens/s on one (accelerator, GPU count) by strategy, computed when first
    read; ``None`` for every strategy when the accelerator's peak is unknown (``compute``)."""

    __slots__ = ("compute", "traffic", "memory_bytes_per_s")  # one table per pair

    def __init__(
        self,
        compute: StepCompute | None,
        traffic: TrafficByStrategy,
        memory_bytes_per_s: float | None,
    ):
        self.compute = compute  # dict.__new__ made the empty table; no dict.__init__ needed
        self.traffic = traffic
        self.memory_bytes_per_s = memory_bytes_per_s

    def __missing__(self, strategy: str) -> float | None:
        compute = self.compute
        value = None
        if compute is not None:
            traffic = self.traffic[strategy]
            exposed_s = exposed_seconds(compute, traffic)[2]
            optimizer_s = _optimizer_s(traffic, self.memory_bytes_per_s)
            # The step's seconds in step_time's order: compute, exposed, offload, optimizer.
            value = traffic.tokens / (
                compute.compute_s + exposed_s + compute.offload_s + optimizer_s
            )
        self[strategy] = value
        return value


def _optimizer_step_message(
    job: JobFigures, step: StepTime, strategy: str, cal: Calibration
) -> Message:
    """What bounds an optimizer step that is a large share of the step: its host calls
    (host_step) when they take at least half of it, else its traffic at the memory bandwidth."""
    calls = strategy_host_calls(job, strategy)
    host_s = host_seconds(calls, cal.layer_pass_overhead_s)
    timing = {"seconds": _fmt(step.optimizer_s, 3), "step": _fmt(step.step_s, 3)}
    if host_s >= 0.5 * step.optimizer_s:
        return Message(
            N_(
                "The optimizer step makes {calls} operator calls on the host (its loop over "
                "the trained tensors): {seconds} s of each {step} s step, a large share because "
                "each step trains few tokens."
            ),
            {"calls": _fmt(calls, 0), **timing},
        )
    return Message(
        N_(
            "The optimizer step reads and writes {bytes} bytes per trained parameter at "
            "the memory bandwidth: {seconds} s of each {step} s step, a large share "
            "because each step trains few tokens."
        ),
        {"bytes": _fmt(job.optimizer_bytes_per_param, 0), **timing},
    )


def estimate_time(
    scenario: Scenario,
    accelerator: AcceleratorSpec,
    gpus: int | None = None,
    server: ServerSpec | None = None,
    strategy: str | None = None,
    cal: Calibration | None = None,
) -> TimeEstimate:
    """Throughput and time of ``scenario`` on ``gpus`` x ``accelerator`` (in ``server``).

    ``gpus`` and ``strategy`` default to the scenario's own; tensor and pipeline parallelism are
    kept from the scenario when they divide ``gpus`` (otherwise dropped). The per-GPU micro-batch
    and accumulation are the scenario's, so more data-parallel GPUs process a larger global batch.
    ``cal`` replaces the stored calibration (used by the calibration bench).
    """
    cal = cal or calibration.STORED
    gpus = gpus or scenario.hardware.count
    strategy = strategy or scenario.parallelism.strategy
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}")
    scenario = _for_gpus(scenario, gpus)
    job = job_figures(scenario)
    links = links_for(accelerator, server)
    servers = _servers_for(scenario, gpus, links, server)
    data_parallel = max(1, gpus // job.model_parallel)
    total_tokens = scenario.training.total_tokens
    assumptions = _method_assumptions(scenario, job.flops)
    utilisation, calibrated, family = matmul_utilisation(job, accelerator, cal)
    peak = peak_tflops(scenario, accelerator)
    base = dict(
        accelerator_key=accelerator.key,
        gpus=gpus,
        servers=servers,
        strategy=strategy,
        family=family,
        calibrated_family=calibrated,
        flops_per_token=job.flops.total,
        peak_tflops_per_gpu=peak,
        tokens_per_step=job.tokens_per_micro_batch * job.grad_accum * data_parallel,
        total_tokens=total_tokens,
    )
    if peak is None:
        assumptions.append(
            Message(
                N_(
                    "The dense 16-bit peak of {accelerator} is not in the catalog, so its "
                    "throughput and training time cannot be estimated."
                ),
                {"accelerator": accelerator.name},
            )
        )
        return _unknown(base, assumptions)
    step = step_time(job, accelerator, gpus, strategy, links, peak, utilisation, cal)
    tokens_per_s = step.tokens_per_s
    mfu = tokens_per_s * job.flops.total / (gpus * peak * 1e12)
    low, high = tokens_per_s * cal.error_ratio_low, tokens_per_s * cal.error_ratio_high
    hours = hours_low = hours_high = gpu_hours = None
    if total_tokens is not None:
        hours = total_tokens / tokens_per_s / 3600
        hours_low, hours_high = total_tokens / high / 3600, total_tokens / low / 3600
        gpu_hours = hours * gpus
    spans = gpus > links.gpus_per_server
    assumptions += _hardware_assumptions(
        scenario,
        accelerator,
        links,
        peak,
        utilisation,
        mfu,
        calibrated,
        family,
        cal,
        step.communication,
        spans,
    )
    if step.optimizer_s >= OPTIMIZER_SHARE_SAID * step.step_s:
        assumptions.append(_optimizer_step_message(job, step, strategy, cal))
    bound = _memory_bound_message(scenario, job, accelerator, peak, utilisation)
    if bound is not None:
        assumptions.append(bound)
    ep = expert_parallel_degree(job, data_parallel)
    if ep > 1:
        assumptions.append(
            Message(
                N_(
                    "Expert parallelism over {ep} GPUs: each holds 1/{ep} of the routed experts, "
                    "which are never gathered across them; tokens reach their experts and come "
                    "back by all-to-all, {seconds} s per micro-batch not hidden behind compute."
                ),
                {"ep": ep, "seconds": _fmt(expert_parallel_seconds(job, links, data_parallel), 3)},
            )
        )
    if job.context_parallel > 1:
        assumptions.append(
            _context_parallel_message(job, accelerator, links, peak, utilisation, cal)
        )
    if hours is not None:
        assumptions.append(_band_message(cal, hours_low, hours_high))
    return TimeEstimate(
        **base,
        matmul_utilisation=utilisation,
        model_flops_utilisation=mfu,
        micro_batch_s=step.micro_batch_s,
        compute_s_per_step=step.compute_s,
        communication=step.communication,
        step_time_s=step.step_s,
        tokens_per_s=tokens_per_s,
        tokens_per_s_low=low,
        tokens_per_s_high=high,
        time_to_train_hours=hours,
        time_to_train_hours_low=hours_low,
        time_to_train_hours_high=hours_high,
        gpu_hours=gpu_hours,
        assumptions=assumptions,
    )


def _context_parallel_message(
    job: JobFigures,
    accelerator: AcceleratorSpec,
    links: Links,
    peak: float,
    utilisation: float,
    cal: Calibration,
) -> Message:
    attention_s = micro_batch_parts(job, accelerator, peak, utilisation, cal)[1]
    values = {
        "cp": job.context_parallel,
        "seconds": _fmt(context_parallel_seconds(job, links, attention_s), 3),
    }
    if job.context_parallel_comm == "all-to-all":
        template = N_(
            "Context parallelism over {cp} GPUs: each holds 1/{cp} of every sequence and its "
            "activations; q, k, v and the attention output are exchanged by all-to-all, {seconds} "
            "s per micro-batch not hidden behind compute."
        )
    else:
        template = N_(
            "Context parallelism over {cp} GPUs: each holds 1/{cp} of every sequence and its "
            "activations; keys and values go round the ring during attention, {seconds} s per "
            "micro-batch not hidden behind it."
        )
    return Message(template, values)


def _without_model_parallelism(scenario: Scenario) -> Scenario:
    parallelism = replace(
        scenario.parallelism,
        tensor_parallel=1,
        pipeline_parallel=1,
        context_parallel=1,
        context_parallel_comm=None,
    )
    return replace(scenario, parallelism=parallelism)


def _unknown(base: dict, assumptions: list[Message]) -> TimeEstimate:
    return TimeEstimate(
        **base,
        matmul_utilisation=None,
        model_flops_utilisation=None,
        micro_batch_s=None,
        compute_s_per_step=None,
        communication=None,
        step_time_s=None,
        tokens_per_s=None,
        tokens_per_s_low=None,
        tokens_per_s_high=None,
        time_to_train_hours=None,
        time_to_train_hours_low=None,
        time_to_train_hours_high=None,
        gpu_hours=None,
        assumptions=assumptions,
    )


# --- Assumption messages ---------------------------------------------------------------------------


def _fmt(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def _percent(share: float) -> str:
    """A share as a percentage with its sign (kept out of templates: "%" confuses gettext)."""
    return f"{share * 100:.0f}%"


def _method_assumptions(scenario: Scenario, flops: FlopsPerToken) -> list[Message]:
    out = []
    params_b = scenario.model.params_b
    per_param = (flops.total - _attention_total(scenario, flops)) / max(flops.matmul_params, 1.0)
    out.append(
        Message(
            N_(
                "Compute per trained token: {gflops} GFLOP (about {per_param} x the {params} B "
                "parameters a token passes through, plus attention at {seq_len} tokens)."
            ),
            {
                "gflops": _fmt(flops.total / 1e9),
                "per_param": _fmt(per_param),
                "params": _fmt(flops.matmul_params / 1e9, 2),
                "seq_len": f"{sample_length(scenario):,}",
            },
        )
    )
    if scenario.model.is_moe:
        out.append(
            Message(
                N_(
                    "Mixture of experts: compute follows the {active} B parameters active per "
                    "token, not the {total} B in memory."
                ),
                {
                    "active": _fmt(active_params(scenario.model) / 1e9, 2),
                    "total": _fmt(params_b, 2),
                },
            )
        )
    if scenario.gradient_checkpointing is None:
        out.append(
            Message(
                N_(
                    "Gradient checkpointing is not stated: taken as off (the frameworks' default), "
                    "so no recomputation is counted."
                )
            )
        )
    if sample_length(scenario) != scenario.seq_len:
        out.append(
            Message(
                N_(
                    "Samples average {avg} tokens and are not packed: time is computed at that "
                    "length (each batch is padded only to its longest sample; with several "
                    "samples per micro-batch somewhat longer), not at {seq_len}; memory is sized "
                    "for the longest batch, {seq_len} tokens."
                ),
                {"avg": f"{sample_length(scenario):,}", "seq_len": f"{scenario.seq_len:,}"},
            )
        )
    elif scenario.packed is not True:
        out.append(
            Message(
                N_(
                    "Tokens are counted as the frameworks count them, padding included; with "
                    "unpacked samples shorter than {seq_len} tokens fewer real tokens are trained "
                    "per second."
                ),
                {"seq_len": f"{scenario.seq_len:,}"},
            )
        )
    return out


def _attention_total(scenario: Scenario, flops: FlopsPerToken) -> float:
    return flops.attention


def _hardware_assumptions(
    scenario: Scenario,
    accelerator: AcceleratorSpec,
    links: Links,
    peak: float,
    utilisation: float,
    mfu: float,
    calibrated: bool,
    family: str,
    cal: Calibration,
    comm: CommunicationCost,
    spans: bool,
) -> list[Message]:
    out = [
        Message(
            N_(
                "{accelerator}: {peak} TFLOP/s dense 16-bit peak; matrix work runs at {util} of "
                "it (one utilisation for every accelerator, calibrated on the published runs), "
                "the whole job at {mfu} after memory-bound work, launch overhead and "
                "communication."
            ),
            {
                "accelerator": accelerator.name,
                "peak": _fmt(peak, 0),
                "util": _percent(utilisation),
                "mfu": _percent(mfu),
            },
        )
    ]
    if not calibrated:
        out.append(
            Message(
                N_(
                    "No published measured run of the {family} family is in the calibration set: "
                    "the shared utilisation ({util}) is assumed for it."
                ),
                {
                    "family": accelerator.architecture or family,
                    "util": _percent(utilisation),
                },
            )
        )
    if not accelerator.memory_bandwidth_tbps:
        out.append(
            Message(
                N_(
                    "The memory bandwidth of {accelerator} is not in the catalog: element-wise "
                    "(memory-bound) work is not counted separately for it."
                ),
                {"accelerator": accelerator.name},
            )
        )
    if scenario.method == "qlora":
        out.append(
            Message(
                N_(
                    "QLoRA dequantises the frozen base in every pass: {gb} GB of memory traffic "
                    "per micro-batch, whatever its length (larger micro-batches amortise it)."
                ),
                {"gb": _fmt(dequant_bytes_per_micro_batch(scenario) / 1e9, 1)},
            )
        )
    if scenario.method == "dora":
        out.append(
            Message(
                N_(
                    "DoRA re-normalises every adapted matrix in every forward pass: {gb} GB of "
                    "memory traffic per micro-batch, whatever its length."
                ),
                {"gb": _fmt(dora_bytes_per_micro_batch(scenario) / 1e9, 1)},
            )
        )
    if comm.data_parallel_s > 0 or comm.tensor_parallel_s > 0:
        params = {
            "topology": Code("topology", links.topology),
            "link": _fmt(comm.data_parallel_gbs or comm.tensor_parallel_gbs, 0),
            "exposed": _fmt(comm.data_parallel_exposed_s, 2),
            "total": _fmt(comm.data_parallel_s, 2),
            "tp": _fmt(comm.tensor_parallel_s, 2),
        }
        if spans:
            template = N_(
                "Communication within each server over {topology} and between servers over "
                "the network: {link} GB/s per GPU each way for the slowest hop; {exposed} s per "
                "step of data-parallel traffic ({total} s in all) and {tp} s of tensor-parallel "
                "traffic are not hidden behind compute."
            )
        else:
            template = N_(
                "Communication over {topology}: {link} GB/s per GPU each way; {exposed} s per "
                "step of data-parallel traffic ({total} s in all) and {tp} s of tensor-parallel "
                "traffic are not hidden behind compute."
            )
        out.append(Message(template, params))
        peer = _peer_to_peer_message(accelerator, links)
        if peer is not None:
            out.append(peer)
    if comm.offload_s > 0:
        out.append(
            Message(
                N_(
                    "CPU offload adds {seconds} s per step for PCIe transfers and the optimizer "
                    "step on the host."
                ),
                {"seconds": _fmt(comm.offload_s, 2)},
            )
        )
    return out


def _peer_to_peer_message(accelerator: AcceleratorSpec, links: Links) -> Message | None:
    """What the collectives inside a server assume about peer-to-peer between the cards:
    stated when the cards cannot (traffic through host memory), an assumption when the catalog
    does not say and the traffic runs over PCIe; nothing for NVLink, HCCS and xGMI."""
    if accelerator.peer_to_peer is False:
        return Message(
            N_(
                "{accelerator} cards cannot reach each other's memory directly (no "
                "peer-to-peer): collectives inside a server go through host memory, at "
                "{gbs} GB/s per GPU each way, half of what PCIe gives with peer-to-peer."
            ),
            {
                "accelerator": accelerator.name,
                "gbs": _fmt(links.pcie_gbs * HOST_STAGED_SHARE, 1),
            },
        )
    if accelerator.peer_to_peer is None and links.topology in PCIE_TOPOLOGIES:
        return Message(
            N_(
                "The catalog does not say whether {accelerator} cards can reach each other's "
                "memory directly (peer-to-peer over PCIe): assumed they can. Without it, "
                "collectives inside a server would take about twice as long."
            ),
            {"accelerator": accelerator.name},
        )
    return None


def _memory_bound_message(
    scenario: Scenario,
    job: JobFigures,
    accelerator: AcceleratorSpec,
    peak: float,
    utilisation: float,
) -> Message | None:
    """Said when the weight products are memory-bound: their intensity is below the FLOP per
    byte the accelerator needs to run them at the calibrated share of its peak."""
    if not accelerator.memory_bandwidth_tbps:
        return None
    timed = _at_sample_length(scenario)
    intensity = weight_gemm_intensity(timed)
    expert = expert_gemm_intensity(timed)
    if 0 < expert < intensity:
        intensity = expert  # the routed experts' products are the first to be memory-bound
    # TFLOP/s over TB/s: FLOP per byte at the share of peak the matrix work reaches.
    ratio = peak * utilisation / accelerator.memory_bandwidth_tbps
    if intensity <= 0 or intensity >= ratio:
        return None
    return Message(
        N_(
            "Matrix work is memory-bound here: a micro-batch of {tokens} tokens does about "
            "{intensity} FLOP per byte it moves, fewer than the {ratio} FLOP per byte "
            "{accelerator} needs to keep its matrix units busy, so it runs at the memory "
            "bandwidth; more tokens per micro-batch would use the card better."
        ),
        {
            "tokens": f"{job.tokens_per_micro_batch:,}",
            "intensity": _fmt(intensity, 0),
            "ratio": _fmt(ratio, 0),
            "accelerator": accelerator.name,
        },
    )


def _band_message(cal: Calibration, low_hours: float, high_hours: float) -> Message:
    return Message(
        N_(
            "Training time between {low} and {high} hours: the 10th to 90th percentile of the "
            "throughput error measured on {cases} published runs."
        ),
        {"low": _fmt(low_hours), "high": _fmt(high_hours), "cases": cal.error_cases},
    )
