"""FLOPs and bytes per token from the architecture: 2 FLOPs per multiply-accumulate through
every matrix a token passes (the *active* parameters for mixture-of-experts), causal
attention's products, the backward pass and recomputation; the physical constants they use.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.scenario import (
    Scenario,
    active_params,
)
from advisor.domain.scenario import trainable_params as _trainable_params
from advisor.domain.sizing.compute.results import FlopsPerToken

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

# GPTQ bases (quant_format "gptq") dequantise in PyTorch operators, not in a fused kernel: a
# QLoRA over a GPTQ checkpoint trains with Transformers' ``GPTQConfig(bits=4,
# disable_exllama=True)`` (the exllama kernels do not train; Qwen's finetune.py, https://github.
# com/QwenLM/Qwen/blob/main/finetune.py), which gives AutoGPTQ's ``qlinear_cuda_old.QuantLinear``
# (https://github.com/AutoGPTQ/AutoGPTQ, auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py). Its
# forward, for 128 rows or more, unpacks the whole weight: ``torch.bitwise_right_shift`` of the
# expanded packed int32 words (reads bits/8, writes 4 bytes per weight), ``.to(torch.int8)``
# (reads 4, writes 1), ``bitwise_and`` in place (1 + 1), ``weight - zeros`` (1 + 1), ``scales *``
# (reads 1, writes the 16-bit weight, 2) and the matmul reads it (2): bits/8 + 12 + 6 x n bytes
# per weight, n the width of the unpacked integers (1 byte; 2 for 8-bit, ``torch.int16``), 18.5
# for 4 bits against bitsandbytes' 4.56. The matmul's autograd keeps the 16-bit weight for the
# backward, so it is unpacked once per forward (and recomputed forward), not again backward.
GPTQ_UNPACK_BYTES = 12  # the int32 shift result written and read (4 + 4), the matmul's 2 + 2
GPTQ_NARROW_PASSES = 6  # cast write, and read and write, subtract read and write, scale read

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
    On GeForce cards it is the rate with FP32 accumulation, half the FP16-accumulate one
    (NVIDIA, "NVIDIA Ada GPU Architecture" whitepaper, v2.01, appendix table: RTX 4090 peak
    BF16 and FP16 tensor TFLOPS with FP32 accumulate 165.2 dense, FP16 with FP16 accumulate
    330.3, https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-
    architecture.pdf): PyTorch's 16-bit matrix products accumulate in FP32 (cuBLAS
    ``CUBLAS_COMPUTE_32F``), and BF16 has no FP16-accumulate rate at all.
    """
    peak = accelerator.bf16_dense_tflops or accelerator.fp16_dense_tflops
    if peak is None or peak <= 0:
        return None
    return peak * (FP32_PEAK_SHARE if scenario.precision == "fp32" else 1.0)


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
