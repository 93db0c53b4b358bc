"""A scenario's figures the throughput model reads, computed once per scenario (:class:`JobFigures`),
and the arithmetic intensity and traffic of its matrix products.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from advisor.domain.scenario import (
    Scenario,
    adapted_base_params,
    routed_expert_params,
    routed_trainable_params,
)
from advisor.domain.sizing.compute.flops import (
    BYTES_16BIT,
    DEQUANT_CONSTANT_BYTES,
    DEQUANT_WRITE_READ_BYTES,
    DORA_BYTES_PER_WEIGHT,
    GPTQ_NARROW_PASSES,
    GPTQ_UNPACK_BYTES,
    _activation_passes,
    _gradient_bytes_per_param,
    _host_optimizer_bytes_per_param,
    _weight_bytes_per_param,
    elementwise_bytes_per_token,
    flops_per_token,
    model_shape,
    optimizer_bytes_per_param,
    trainable_params,
    uses_recompute,
)
from advisor.domain.sizing.compute.results import FlopsPerToken
from advisor.domain.sizing.host_step import (
    host_synchronised,
    layer_call_share,
    optimizer_host_calls,
    zero3_routed_tensors,
)
from advisor.domain.sizing.memory import traits_of

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
    # ZeRO-3's fetch and release on the host (host_step.zero3_routed_tensors): the routed
    # experts' partitioned tensors, whole model, fetched one by one in every pass.
    zero3_routed_tensors: float = 0.0
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
def job_figures(scenario: Scenario) -> JobFigures:
    """The scenario's :class:`JobFigures`, computed once per scenario (equal scenarios share
    them: a pure function of a frozen value)."""
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
        zero3_routed_tensors=zero3_routed_tensors(scenario),
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
    recompute = 1 if uses_recompute(scenario) else 0
    bits = scenario.quant_bits_or_default
    if scenario.quant_format == "gptq":
        # AutoGPTQ's PyTorch unpacking, once per forward (see GPTQ_UNPACK_BYTES).
        narrow = 2 if bits == 8 else 1
        per_weight = bits / 8 + GPTQ_UNPACK_BYTES + GPTQ_NARROW_PASSES * narrow
        return quantised * per_weight * (1 + recompute)
    per_weight = bits / 8 + DEQUANT_CONSTANT_BYTES
    return quantised * (per_weight + DEQUANT_WRITE_READ_BYTES) * (2 + recompute)


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
