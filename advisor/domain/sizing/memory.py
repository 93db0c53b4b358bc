"""Per-GPU memory of a fine-tuning job, broken down into named components.

The model follows what the frameworks behind the reference cases (PyTorch with the Hugging Face
Trainer/PEFT, DeepSpeed, FSDP, torchtune, LitGPT, Megatron) actually keep on the device:

* model states: weights (frozen and trained, 16-bit, fp32 or quantised), the fp32 master copy of
  mixed precision, gradients and optimizer states, each divided by the sharding that the
  strategy applies (ZeRO-1 optimizer, ZeRO-2 + gradients, ZeRO-3/FSDP + weights) and by the
  tensor x pipeline split;
* activations saved for the backward pass, per token and per block, counted tensor by tensor
  after Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
  Models" (arXiv:2205.05198, section 4.1: 34*s*b*h + 5*a*s^2*b bytes per layer), adapted to
  grouped-query attention, gated MLPs, mixture-of-experts routing, FlashAttention (no s^2 term,
  Dao et al. 2022) and frozen layers (a frozen linear layer needs no saved input);
* the logits/loss spike of the output layer (b*s*vocab elements in 16 bits, upcast to fp32 for
  the loss, and their gradient);
* work buffers (ZeRO-3/FSDP parameter gathers, gradient buckets, dequantisation), the
  caching allocator's fragmentation, and the CUDA context.

Every constant carries its reason. The figures are calibrated against the measured reference
cases only through the few framework constants marked "calibrated"; no case is special-cased.
Bytes everywhere inside; GiB (2**30 bytes) in the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.i18n import N_, Message
from advisor.domain.scenario import (
    LIMITS,
    STRATEGIES,
    ArchLayout,
    ModelArch,
    Scenario,
    adapter_count,
    arch_layout,
    routed_expert_params,
    routed_trainable_params,
)

GIB = 2**30

# --- Storage sizes -----------------------------------------------------------------------
# Bytes per element of each floating-point type (IEEE 754 / bfloat16).
DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
# Bytes per element of the compute (activation) type of each precision regime: the amp-*
# regimes compute in 16 bits through autocast or a 16-bit working copy.
COMPUTE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "amp-bf16": 2, "amp-fp16": 2}
FP32 = 4
# QLoRA storage: bitsandbytes NF4 keeps one fp32 absmax per block of 64 weights
# (32/64 = 0.5 bit per weight) unless double quantisation is on (0.127 bit, Dettmers et al.
# 2023, section 2); the Hugging Face BitsAndBytesConfig default is off, so 0.5 bit is counted
# (GPTQ int4 with group 128 needs 0.16 bit, below it). LLM.int8 keeps one fp32 scale per row:
# negligible, counted as 0.
QUANT_CONSTANT_BITS = {4: 0.5, 8: 0.0}
# GPTQ (Frantar et al. 2023, arXiv:2210.17323; AutoGPTQ QuantLinear: qweight, qzeros packed in
# int32, fp16 scales, group_size 128 in the Qwen, TheBloke and Hugging Face GPTQConfig
# defaults) and AWQ (Lin et al. 2024, arXiv:2306.00978; AutoAWQ WQLinear_GEMM: 4-bit qweight,
# packed 4-bit qzeros and fp16 scales per group of 128 input rows) keep per group of 128 weights
# one fp16 scale and one packed zero of the weight's width: (16 + bits) / 128 bit per weight.
QUANT_GROUP_SIZE = 128
GROUPWISE_FORMATS = ("gptq", "awq")
# torchao's NF4 (quant_format "torchao-nf4"), the QLoRA of torchtune (torchtune/modules/peft/
# lora.py and modules/low_precision/nf4_linear.py import to_nf4 and linear_nf4 from
# torchao.dtypes.nf4tensor; pytorch/torchtune at 30b8519, 2024-09-24). NF4Tensor.from_tensor
# (torchao/dtypes/nf4tensor.py, pytorch/ao) always double-quantises: per block of 64 weights
# (torchtune's to_nf4 default block_size) one int8 scaler (``quantized_scalers``), and per 256
# scalers (scaler_block_size) one ``quantization_factor`` in the weight's dtype (16 bits):
# 8 / 64 + 16 / (64 x 256) bit per weight. Its dequantisation (LinearNF4: ``weight.to(dtype)``,
# NF4Tensor.get_original_weight) is counted like bitsandbytes' (DEQUANT_COPIES 16-bit copies
# of the widest matrix); the decode's int64 index intermediates are not modelled.
TORCHAO_NF4 = "torchao-nf4"
TORCHAO_NF4_BLOCK = 64
TORCHAO_NF4_SCALER_BLOCK = 256
TORCHAO_NF4_CONSTANT_BITS = 8 / TORCHAO_NF4_BLOCK + 16 / (
    TORCHAO_NF4_BLOCK * TORCHAO_NF4_SCALER_BLOCK
)
# Formats whose non-quantised weights (embeddings, output layer, norms) stay in the training
# dtype and whose output layer is never quantised, whatever the framework: GPTQ/AWQ
# checkpoints (their kernels replace the blocks' linears only; PEFT skips k-bit preparation for
# GPTQ), and torchao's NF4 as torchtune uses it: the model is built in the training dtype
# (training.set_default_dtype), only the blocks' LoRALinear/FrozenNF4Linear bases are
# converted with to_nf4, PEFT's prepare_model_for_kbit_training is never called, and the
# output layer stays a 16-bit nn.Linear ("TODO: quantize_base is not applied to final
# output_proj currently", torchtune/models/llama3_1/_component_builders.py, lora_llama3_1, at
# 30b8519).
BLOCKS_ONLY_FORMATS = (*GROUPWISE_FORMATS, TORCHAO_NF4)
# bitsandbytes NF4 with double quantisation (quant_format "nf4-double-quant"; Transformers'
# BitsAndBytesConfig bnb_4bit_use_double_quant=True, which QLoRA's recipes set): the fp32
# absmax of every 64 weights is itself quantised to 8 bits in blocks of 256 with one fp32
# constant per block (bitsandbytes functional.quantize_4bit, compress_statistics=True;
# Dettmers et al. 2023, "QLoRA", arXiv:2305.14314, section 2, "Double Quantization":
# 8/64 + 32/(64 x 256) = 0.127 bit per weight instead of 32/64 = 0.5).
BNB_NF4_DOUBLE_QUANT = "nf4-double-quant"
BNB_DOUBLE_QUANT_CONSTANT_BITS = 8 / 64 + 32 / (64 * 256)


def quant_constant_bits(scenario: Scenario) -> float:
    """Bits per quantised weight spent on quantisation constants (block or group scales)."""
    bits = scenario.quant_bits_or_default
    if scenario.quant_format in GROUPWISE_FORMATS:
        return (16 + bits) / QUANT_GROUP_SIZE
    if scenario.quant_format == TORCHAO_NF4:
        return TORCHAO_NF4_CONSTANT_BITS
    if scenario.quant_format == BNB_NF4_DOUBLE_QUANT:
        return BNB_DOUBLE_QUANT_CONSTANT_BITS
    return QUANT_CONSTANT_BITS[bits]


def quantised_weight_bytes(scenario: Scenario) -> float:
    """Bytes per quantised base weight as stored (and as ZeRO-3/FSDP gather it)."""
    return (scenario.quant_bits_or_default + quant_constant_bits(scenario)) / 8


# --- Optimizer states ----------------------------------------------------------------------
# AdamW keeps two moments per trained parameter (Loshchilov & Hutter 2019), in the parameter's
# dtype under pure 16-bit or fp32 training and in fp32 under mixed precision. bitsandbytes 8-bit
# AdamW quantises both moments to 1 byte (Dettmers et al. 2022, "8-bit Optimizers via
# Block-wise Quantization"; its fp32 block constants, one per 2048 values, are negligible).
# SGD is counted with one momentum buffer (the safe side; without momentum it keeps none).
# Adafactor (Shazeer & Stern 2018) keeps factored second moments, one row and one column vector
# per matrix: about 2/hidden fp32 values per parameter (handled in code).
ADAM_MOMENTS = 2
OPTIMIZER_8BIT_BYTES = 2.0
PAGED_OPTIMIZERS = ("paged-adamw", "paged-adamw-8bit")

# Gradient bytes per trained parameter held through the backward pass under mixed precision,
# by strategy: fp32 .grad of an autocast fp32 model (single, DDP), Megatron's fp32 main_grad
# buffer (its distributed optimizer is recorded as zero1), DeepSpeed ZeRO-2/3's gradient
# partition in the 16-bit parameter dtype, FSDP's fp32 reduce dtype (sharded).
AMP_BACKWARD_GRAD_BYTES = {"single": 4, "ddp": 4, "zero1": 4, "zero2": 2, "zero3": 2, "fsdp": 4}
# Gradient lifetime. PyTorch creates a parameter's .grad when autograd's AccumulateGrad node
# runs for it in the backward pass, and Optimizer.zero_grad() frees them (set_to_none=True, the
# default since PyTorch 2.0: torch/optim/optimizer.py, Optimizer.zero_grad; PyTorch 2.0 release
# notes, 2023-03-15). Without gradient accumulation (grad_accum 1) no gradient exists when the
# backward pass starts: they appear layer by layer as the saved activations of that layer are
# freed, so the backward pass peaks at its start (activations, no gradients) or at its end
# (gradients, no activations), never both; the output layer's gradient is the first made, beside
# the logits. With accumulation, the previous micro-batches' gradients are alive at the start.
# Megatron allocates its fp32 main_grad buffer once for the whole run
# (megatron/core/distributed/param_and_grad_buffer.py), so it is alive throughout.
GRADIENT_BUFFER_PERSISTENT_FRAMEWORKS = ("megatron",)
# The optimizer step's transient. PyTorch's multi-tensor AdamW (torch/optim/adam.py,
# _multi_tensor_adam, used by AdamW: ``exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)``
# then _foreach_div_/_foreach_add_/_foreach_addcdiv_) allocates one new tensor per parameter the
# size of the second moment for the whole parameter group at once: one moment-sized temporary
# alive at the step. The fused implementations update in place in one kernel (torch
# _fused_adamw_, DeepSpeed FusedAdam csrc/adam/multi_tensor_adam.cu, Apex/Transformer Engine
# FusedAdam used by Megatron) and allocate none. PyTorch picks foreach by default for CUDA
# tensors (torch/optim/optimizer.py, _default_to_fused_or_foreach; fused=False unless asked);
# DeepSpeed builds FusedAdam when its configuration names an "AdamW" optimizer, as the Qwen and
# ms-swift ZeRO configurations do; Megatron always uses a fused Adam.
FOREACH_TEMPORARY_MOMENTS = 1
# DeepSpeed ZeRO-1/2/3 convert the rank's gradient partition to fp32 for the optimizer step
# (stage_1_and_2.py single_partition_of_fp32_groups[i].grad; stage3.py per optimizer
# sub-group), after the activations are freed.
AMP_STEP_GRAD_BYTES = {"zero1": 4, "zero2": 4, "zero3": 4}

# Fused linear cross-entropy (scenario field ``fused_loss``): Liger Kernel's
# LigerFusedLinearCrossEntropyLoss (Hsu et al., "Liger Kernel: Efficient Triton Kernels for LLM
# Training", LinkedIn, arXiv:2410.10989, 2024-10; src/liger_kernel/ops/fused_linear_cross_entropy.py,
# fused_linear_cross_entropy_forward) never materialises the logits: it allocates grad_input
# (zeros_like the hidden states) and walks the tokens in chunks of
# next_power_of_2(BT / ceil(V / H)) tokens, so a chunk's logits hold about BT x H values. Two
# hidden-sized tensors per token in the compute dtype, and a fp32 loss per token.
FUSED_LOSS_HIDDEN_COPIES = 2
# Whole-vocabulary cross-entropy, as the Hugging Face Trainer runs it (Transformers'
# loss/loss_utils.py ForCausalLMLoss since 4.46: ``logits = logits.float()``, labels shifted by
# padding, then F.cross_entropy; before 4.46 the model's forward upcast the logits and the loss
# took ``logits[..., :-1, :].contiguous()``, a second fp32 copy). Forward, at the loss: the
# 16-bit logits (held by the model's output), the fp32 upcast and the fp32 log-softmax output
# that cross_entropy saves for the backward: 2 + 4 + 4 bytes per logit (before 4.46 the fp32
# logits, their shifted copy and the log-softmax: 4 + 4 + 4). The Trainer drops the output
# (compute_loss returns the loss alone) before the backward, which then holds the saved
# log-softmax, nll_loss's fp32 gradient and log_softmax's fp32 gradient at once: 4 + 4 + 4;
# the cast back to 16 bits comes after the first two are freed. Three fp32 tensors per logit
# at the peak in every case, whatever the compute dtype (fp32 logits are not copied by
# ``.float()``).
WHOLE_LOSS_FP32_TENSORS = 3
# Chunked cross-entropy (scenario field ``loss_chunking``; torchtune's CEWithChunkedOutputLoss,
# torchtune/modules/loss/ce_chunked_output_loss.py, and LitGPT's lm_head_chunk_size with
# chunked_cross_entropy): the output layer projects each chunk of tokens on its own
# (TransformerDecoder.chunked_output: ``[self.output(chunk) for chunk in h.chunk(n)]``), so the
# logits' gradient exists one chunk at a time, consumed by that chunk's own projection. What
# stays for the whole batch: the 16-bit logit chunks, alive until the loss is computed
# (torchtune's recipes then ``del logits``: "free logits otherwise it peaks backward memory"),
# and what each chunk's cross-entropy saves for the backward. Eager, torchtune's
# compute_cross_entropy upcasts the chunk (``logits.float()``) and F.cross_entropy's
# log_softmax saves its fp32 output: 4 bytes per logit, for every chunk (LitGPT's 16-bit
# log-softmax saves 2: the heavier one is counted). Under torch.compile (scenario field
# ``torch_compile``; torchtune's training.compile_loss compiles compute_cross_entropy alone,
# "The CE and upcasting have to be compiled together"), the upcast and the cross-entropy are
# one generated kernel whose backward recomputes the upcast from the 16-bit chunk it keeps
# (PyTorch's min-cut partitioner, torch/_functorch/partitioners.py,
# min_cut_rematerialization_partition, saves the fewest bytes and recomputes pointwise ops):
# nothing beyond the chunks and one fp32 value per token.
CHUNKED_LOSS_EAGER_SAVED_BYTES = FP32

# --- Frameworks' buffers -------------------------------------------------------------------
# DeepSpeed ZeRO gradient buckets: reduce_bucket_size 2e8 elements in the configs shipped by Qwen
# and ms-swift (swift/llm/ds_config/zero2.json) and in the Hugging Face examples. ZeRO-1/2
# (deepspeed/runtime/zero/stage_1_and_2.py, backward()) allocate the whole bucket in the 16-bit
# parameter dtype before every backward pass when contiguous_gradients is on (the default), and a
# second one for double buffering when overlap_comm is on (it is in those configs), whatever the
# number of trained parameters: a LoRA job pays it too. ZeRO-3 (stage3.py) fills its bucket only
# as far as the trained parameters it collects; one bucket is counted there. The all-gather of
# updated parameters after the step reuses memory the gradients freed.
ZERO_BUCKET_ELEMENTS = 2e8
ZERO12_IPG_BUFFERS = 2
ZERO3_BUCKETS = 1
# ZeRO-3 keeps up to stage3_max_live_parameters gathered parameters (DeepSpeed default and the
# value in the HF/Qwen/PEFT/ms-swift configs: 1e9).
ZERO3_MAX_LIVE_PARAMETERS = 1e9
# FSDP gathers the unit being computed, prefetches the next one, and holds the unsharded
# gradient of the current unit before its reduce-scatter: three units of parameters (PyTorch
# FSDP docs, "backward_prefetch").
FSDP_GATHERED_UNITS = 3
# QLoRA dequantises each frozen matrix in full before multiplying, in the forward pass and again
# in the backward pass (bitsandbytes MatMul4Bit: F.dequantize_4bit(B, state).to(A.dtype)): the
# dequantised copy in the quantisation dtype and its cast to the compute dtype, 16 bits each,
# are alive at once when the two differ (Lightning's BitsandbytesPrecision quantises from fp16
# and computes in bf16). The largest such matrix sets the buffer. Whether the output layer is
# quantised depends on the framework: PEFT/Transformers keep it in 16 bits, Lightning's
# BitsandbytesPrecision (LitGPT) replaces every nn.Linear, the output layer included, whose
# dequantised copy (vocab x hidden) then appears at the start of the backward pass, when every
# saved activation is alive. v1 does not say which, so the output layer's size is counted for
# the buffer while its storage stays 16-bit (the heavier reading of each).
DEQUANT_COPIES = 2
# GPTQ and AWQ kernels dequantise a matrix once, into one 16-bit buffer: AutoAWQ's
# WQLinear_GEMM (awq/modules/linear/gemm.py) calls awq_ext.dequantize_weights_cuda for batches
# of 1,024 tokens or more and multiplies with torch.matmul; AutoGPTQ's ExLlamaV2 QuantLinear
# reserves one temp_dq scratch of the largest layer's in x out 16-bit values
# (auto_gptq/nn_modules/qlinear/qlinear_exllamav2.py, ExLlamaV2DeviceTensors). Both keep the
# output layer in 16 bits (they quantise the decoder blocks' linear layers only).
DEQUANT_COPIES_GROUPWISE = 1
# A causal mask kept as a model buffer (scenario field model.causal_mask_positions): Qwen-1's
# remote modeling code registers ``torch.tril(torch.ones((max_positions, max_positions),
# dtype=torch.bool))`` as the non-persistent buffer ``registered_causal_mask`` of QWenModel
# (https://huggingface.co/Qwen/Qwen-7B/blob/main/modeling_qwen.py, QWenModel.__init__), one byte
# per entry, moved to the GPU with the model and never partitioned (ZeRO-3 and FSDP shard
# parameters, not buffers): 1 GiB at 32,768 positions. Counted on every GPU.
CAUSAL_MASK_BYTES_PER_ENTRY = 1


# --- What the training framework changes ------------------------------------------------------
@dataclass(frozen=True)
class FrameworkTraits:
    """Memory behaviours that differ between training frameworks (scenario field ``framework``).

    ``chunked_loss``: the recipes compute the loss over the vocabulary in chunks unless told
    otherwise (torchtune's recipes all use CEWithChunkedOutputLoss since v0.3, 2024-09).
    ``adapters_in_compute_dtype``: LoRA adapters, their gradients and AdamW states are kept in
    the training dtype (torchtune and LitGPT build them like the base layers; Megatron in its
    params_dtype) instead of PEFT's fp32 (LoraConfig autocast_adapter_dtype, default since PEFT
    0.12). ``quantises_output_layer``: QLoRA also quantises the output head, so its dequantised
    copy (vocab x hidden) is the largest work buffer (Lightning's BitsandbytesPrecision, used by
    LitGPT, replaces every nn.Linear; PEFT/bitsandbytes through Transformers skip lm_head,
    torchtune quantises only the block projections). ``naive_pipeline``: several pipeline stages
    are a layer split with device_map (Transformers/Accelerate), where one micro-batch passes
    through the stages at a time; Megatron and torchtune pipelines keep up to one micro-batch per
    stage in flight (1F1B). ``whole_load_under_zero3``: the model is loaded whole onto each GPU
    before DeepSpeed ZeRO-3 partitions it, when it fits there, and the caching allocator keeps
    that memory (ms-swift's Ascend table: ZeRO-3 LoRA at 22 GB for 7B on 4 NPUs, the same as
    DDP, and 31 GB for 14B on 8 NPUs, the 26.4 GiB fp16 model plus the runtime). Transformers
    avoids it only when the DeepSpeed configuration exists before from_pretrained (zero.Init),
    which depends on the script; torchtune, LitGPT and Megatron build the model sharded.
    """

    chunked_loss: bool
    adapters_in_compute_dtype: bool
    quantises_output_layer: bool
    naive_pipeline: bool
    whole_load_under_zero3: bool
    # QLoRA's non-quantised weights (embeddings, output layer, norms) upcast to fp32 before
    # training: PEFT's prepare_model_for_kbit_training (peft/utils/other.py: "cast all non INT8
    # parameters to fp32", skipped for GPTQ, AQLM, EETQ and HQQ models), which the Hugging Face
    # QLoRA recipes call (PEFT's examples, TRL's SFTTrainer for a k-bit model, Qwen's
    # finetune.py, Axolotl). torchtune, LitGPT and Megatron keep them in the training dtype.
    upcasts_kbit_rest: bool = False


# Not stated: the heavier reading of every behaviour.
FRAMEWORK_TRAITS = {
    None: FrameworkTraits(False, False, True, False, True, upcasts_kbit_rest=True),
    "hf": FrameworkTraits(False, False, False, True, True, upcasts_kbit_rest=True),
    "torchtune": FrameworkTraits(True, True, False, False, False),
    "litgpt": FrameworkTraits(False, True, True, False, False),
    "megatron": FrameworkTraits(False, True, False, False, False),
}


def stores_attention_scores(scenario: Scenario) -> bool:
    """Whether attention keeps the seq x seq scores: only eager attention (stated ``false``).

    Not stated (``null``) means the framework's default attention: PyTorch's
    scaled_dot_product_attention, whose flash and memory-efficient kernels never store the
    scores, is the default of Hugging Face Transformers since 4.36 for every model that
    supports it (https://huggingface.co/docs/transformers/perf_infer_gpu_one, "PyTorch scaled
    dot product attention"), of torchtune and LitGPT (their attention modules call it), and
    Megatron uses fused (Transformer Engine or its own) kernels.
    """
    return scenario.flash_attention is False


# An unstated framework whose pipeline stages run without data or tensor parallelism (strategy
# "single", tensor_parallel 1) is a device_map layer split: the scenario format records such a
# split as N stages with the "single" strategy (device_map has no tensor parallelism), and that is how Transformers/Accelerate (and the tools on them: PEFT, TRL,
# ms-swift's model-parallel mode) spread a model too large for one GPU; Megatron and torchtune
# pipelines, which keep micro-batches in flight, are stated frameworks and run beside data
# parallelism. Memory: one micro-batch in flight instead of up to one per stage; time: one GPU
# works at once (the slower reading).
_UNSTATED_LAYER_SPLIT = replace(FRAMEWORK_TRAITS[None], naive_pipeline=True)


def traits_of(scenario: Scenario) -> FrameworkTraits:
    p = scenario.parallelism
    if scenario.framework is None and p.strategy == "single" and p.tensor_parallel == 1:
        return _UNSTATED_LAYER_SPLIT
    return FRAMEWORK_TRAITS[scenario.framework]


def upcasts_kbit_rest(scenario: Scenario, traits: FrameworkTraits) -> bool:
    """Whether a QLoRA base's non-quantised weights are cast to fp32 (PEFT's k-bit preparation
    of a bitsandbytes base; never for BLOCKS_ONLY_FORMATS)."""
    return traits.upcasts_kbit_rest and scenario.quant_format not in BLOCKS_ONLY_FORMATS


def quantises_output_layer(scenario: Scenario, traits: FrameworkTraits) -> bool:
    """Whether a QLoRA base's output layer is quantised too (LitGPT's bitsandbytes plugin, or
    an unstated framework; never for BLOCKS_ONLY_FORMATS)."""
    return traits.quantises_output_layer and scenario.quant_format not in BLOCKS_ONLY_FORMATS


def optimizer_step_is_foreach(scenario: Scenario, strategy: str) -> bool:
    """Whether AdamW's step allocates the foreach temporary (``optimizer_impl``, else the
    framework's default: fused under DeepSpeed ZeRO and Megatron, PyTorch's foreach otherwise)."""
    if scenario.optimizer != "adamw":
        return False
    if scenario.optimizer_impl is not None:
        return scenario.optimizer_impl == "foreach"
    fused_by_default = scenario.framework == "megatron" or strategy in ("zero1", "zero2", "zero3")
    return not fused_by_default


def gradients_made_in_backward(scenario: Scenario) -> bool:
    """Whether the gradients are created during the backward pass (so not alive at its start):
    one micro-batch per step, and no persistent gradient buffer (Megatron's main_grad)."""
    return (
        scenario.grad_accum == 1
        and not scenario.optimizer_in_backward
        and scenario.framework not in GRADIENT_BUFFER_PERSISTENT_FRAMEWORKS
    )


def chunked_loss_bytes(scenario: Scenario, compute_bytes: int) -> int:
    """Bytes per logit a chunked loss keeps for the whole batch: the 16-bit chunks, and unless
    the step is compiled each chunk's fp32 log-softmax (CHUNKED_LOSS_EAGER_SAVED_BYTES)."""
    saved = 0 if scenario.torch_compile else CHUNKED_LOSS_EAGER_SAVED_BYTES
    return compute_bytes + saved


def loss_is_chunked(scenario: Scenario) -> bool:
    """Whether the loss is computed in chunks: as stated, else the framework's default."""
    if scenario.loss_chunking is not None:
        return scenario.loss_chunking
    return traits_of(scenario).chunked_loss


# --- Fixed overhead ------------------------------------------------------------------------
# Runtime context as the vendor's tool shows it before the first tensor: CUDA context with
# PyTorch's kernels, cuBLAS and cuDNN workspaces take 0.5-1.5 GiB on A100/H100 (0.3-2 GiB in
# the sizing notes, depending on CUDA version and lazy loading); 1.0 GiB taken, the same for
# ROCm. Ascend: npu-smi readings also include the device's own reservation, 3,197 of 65,536 MB
# on an idle 910B with no process (npu-smi 25.2 output published in
# https://github.com/Project-HAMi/HAMi-WebUI/issues/47, 2025-09-10), i.e. 3.1 GiB, plus the
# CANN/torch_npu context, taken at the low end of CUDA's range (0.4 GiB): 3.5 GiB. Not fitted
# on the reference cases. NCCL/HCCL add their channel buffers when more than one device takes
# part (NCCL_BUFFSIZE 4 MiB x channels x peers, about 0.25 GiB for 8 GPUs).
CONTEXT_GIB = {"cuda": 1.0, "rocm": 1.0, "cann": 3.5, "other": 1.0}
NCCL_GIB = 0.25
# The caching allocator reserves more than the live tensors (rounding to 2 MiB blocks, freed
# blocks of other sizes). 5 %: the reserved/allocated gap PyTorch users report for steady
# training loops of fixed shape. This is the memory model's one constant fitted on the reference
# cases (nvidia-smi-style readings centred); bench/sizing_fidelity.py refits it without each
# source in turn and scores that source (leave one source out).
FRAGMENTATION_SHARE = 0.05

# --- Device readings when batch lengths vary ------------------------------------------------
# The caching allocator (PyTorch's, and torch_npu's port of it) gives memory back to the
# driver only when a new segment cannot be had. When batch lengths vary (``packed`` not true),
# a batch longer than any before needs blocks larger than the cached ones: new segments are
# allocated while the smaller cached blocks stay reserved, so nvidia-smi, npu-smi and
# max_memory_reserved climb above what the job needs. The allocator releases those cached
# segments before it reports out-of-memory, so this never decides whether a job fits; it
# only explains the device reading. bench/allocator_drift.py replays training steps through
# a replica of the allocator's policy (a model, not a measurement) for five length
# distributions (a scenario does not state its own), each over three model shapes and five
# sample orders: the drift, as a multiple of the step's dynamic peak (activations and logits),
# is a range. Its upper end (LENGTH_DRIFT_HIGH_OF_DYNAMIC) is the heaviest distribution's median
# over orders: what a reading may reach. The planning figure compared with a reading
# (LENGTH_DRIFT_OF_DYNAMIC) is, with gradient checkpointing, that upper end too (2.0 at 200
# samples, 2.1 settled at 500), not the median over the distributions (1.15), because the
# planning figure must not fall short of a reading (issue 29, item 10; decision 0052):
# recomputation interleaves short-lived blocks with the long-lived checkpoints (GMLake, Guo et
# al., ASPLOS 2024, names recomputation and LoRA among the causes of fragmentation), and a
# scenario does not say which length distribution it trains on. Without checkpointing the activations are freed in the reverse order of allocation; the
# replay's medians there (0.06 to 0.58) over-predict the readings of runs outside the reference
# set (issue 15), so the planning figure is the lowest distribution's (0.06, near zero) and the
# range still reaches 0.6. A reading cannot exceed the card; the fit total never includes
# either figure.
LENGTH_DRIFT_OF_DYNAMIC = {True: 2.1, False: 0.06}
LENGTH_DRIFT_HIGH_OF_DYNAMIC = {True: 2.1, False: 0.6}
# What removes most of that drift, when a scenario states it (decision 0059), replayed through
# the same allocator (bench/allocator_drift.py, the heaviest distribution's median over
# orders; never above the unstated figures above, so stating either never raises a reading):
# * length grouping (``length_grouped``; Transformers' group_by_length, whose
#   LengthGroupedSampler sorts megabatches of up to 50 batches longest first and puts the
#   longest batch of all at the very front, trainer_pt_utils.get_length_grouped_indices): the
#   first step reserves the longest batch's blocks and every later batch fits into them;
# * the cache emptied at every step (``empty_cache_steps: 1``; Transformers'
#   torch_empty_cache_steps, whose Trainer.training_step calls torch.cuda.empty_cache() after
#   the loss and before the backward pass): segments cached for earlier, longer batches go back
#   before each backward pass, though the next forward pass may still climb. Emptying every N > 1
#   steps lets N steps' batches accumulate and is not replayed: read as not emptied.
# Keyed by (grouped, emptied every step), then by gradient checkpointing.
LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC = {
    (True, False): {True: 0.27, False: 0.08},
    (False, True): {True: 0.73, False: 0.41},
    (True, True): {True: 0.29, False: 0.09},
}
# Below this (GiB) a reading rounds to the total as figures are shown: nothing worth saying.
LENGTH_DRIFT_SHOWN_GIB = 0.05

# Host RAM each rank's process takes besides offloaded or paged states: the Python process with
# PyTorch and CUDA libraries (about 3 GiB resident) and its data-loader workers with pinned
# staging buffers (PyTorch DataLoader default of 2 prefetched batches per worker).
HOST_PROCESS_GIB = 4.0

# --- Usable capacity -----------------------------------------------------------------------
# The number in a card's name is its installed memory in binary units (HBM and GDDR devices
# come in power-of-two sizes: an "80 GB" A100/H100 has 80 GiB of HBM). The driver keeps part
# of it: PyTorch reports 79.1-79.3 GiB total on 80 GB A100/H100 (about 1 %); datacenter GDDR6
# cards with ECC on by default also lose 1/16 of it to ECC (A10G 24 GB shows 22.5 GiB, L40S
# 48 GB shows 45.0 GiB in nvidia-smi).
DRIVER_RESERVE_SHARE = 0.01
GDDR_ECC_SHARE = 1 / 16
GDDR_ECC_DEFAULT_ON = ("a10g-24gb", "l40s-48gb", "l40-48gb", "l20-48gb")


# Planning reserve: a job counts as fitting only if its predicted peak leaves this share of the
# usable memory free, for what the model cannot see (framework versions, longer-than-stated
# samples, allocator behaviour over a long run). The spread itself is reported as a band.
FIT_RESERVE_SHARE = 0.05

# Uncertainty band: 10th and 90th percentiles of the signed relative error
# (predicted - measured) / measured over the measured memory cases of the reference set, as
# printed by bench/sizing_fidelity.py; tests/unit/test_sizing_fidelity.py recomputes them and
# fails when these stored values drift. The real peak lies between predicted / (1 + P90) and
# predicted / (1 + P10) for 80 % of the cases. Two bands: with the framework each case's source
# names (for scenarios that state one), and with every case's framework left unstated, where
# the model takes the heavier reading and over-predicts more (for scenarios that do not).
MEMORY_ERROR_P10 = -0.111
MEMORY_ERROR_P90 = 0.138
MEMORY_ERROR_UNSTATED_P10 = -0.092
MEMORY_ERROR_UNSTATED_P90 = 0.139


def memory_error_band(scenario: Scenario) -> tuple[float, float]:
    """(P10, P90) of the memory error for this scenario: unstated framework or stated."""
    if scenario.framework is None:
        return MEMORY_ERROR_UNSTATED_P10, MEMORY_ERROR_UNSTATED_P90
    return MEMORY_ERROR_P10, MEMORY_ERROR_P90


def usable_capacity_gib(accelerator: AcceleratorSpec) -> float:
    """Memory PyTorch can allocate on this card, in GiB (installed minus driver and ECC)."""
    installed = float(accelerator.memory_gb)
    ecc = GDDR_ECC_SHARE if accelerator.key in GDDR_ECC_DEFAULT_ON else 0.0
    return installed * (1 - DRIVER_RESERVE_SHARE - ecc)


def plannable_capacity_gib(accelerator: AcceleratorSpec) -> float:
    """Usable memory less the planning reserve: what a job may be sized against."""
    return usable_capacity_gib(accelerator) * (1 - FIT_RESERVE_SHARE)


def context_gib(accelerator: AcceleratorSpec | None, gpus: int) -> float:
    """Device memory taken before the first tensor: runtime context plus collective buffers."""
    stack = accelerator.software_stack if accelerator is not None else "cuda"
    base = CONTEXT_GIB.get(stack, CONTEXT_GIB["other"])
    return base + (NCCL_GIB if gpus > 1 else 0.0)


# --- Layout of one candidate -----------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """How the job is laid out on the GPUs: what the parallelism search varies."""

    gpus: int
    strategy: str
    offload: str
    tensor_parallel: int = 1
    pipeline_parallel: int = 1

    @property
    def model_parallel(self) -> int:
        return self.tensor_parallel * self.pipeline_parallel

    @property
    def data_parallel(self) -> int:
        return max(1, self.gpus // self.model_parallel)


def expert_parallel_for(scenario: Scenario, layout: Layout) -> int:
    """The scenario's expert-parallel degree on ``layout``: kept where it divides the layout's
    data-parallel degree (as Megatron-Core requires), 1 otherwise (a layout the placement
    search tries with another GPU count)."""
    ep = scenario.parallelism.expert_parallel
    return ep if ep > 1 and layout.data_parallel % ep == 0 else 1


def layout_of(scenario: Scenario) -> Layout:
    p = scenario.parallelism
    return Layout(
        gpus=scenario.hardware.count,
        strategy=p.strategy,
        offload=p.offload,
        tensor_parallel=p.tensor_parallel,
        pipeline_parallel=p.pipeline_parallel,
    )


# --- Result ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryBreakdown:
    """Peak memory per GPU in GiB, by component, with the host RAM the job needs."""

    frozen_weights: float
    trainable_weights: float
    master_weights: float
    gradients: float
    optimizer_states: float
    activations: float
    logits: float
    work_buffers: float
    fragmentation: float
    framework_overhead: float
    paged_optimizer_gib: float  # states in unified memory, paged to host RAM (not in total)
    host_ram_per_gpu_gib: float
    peak_at_optimizer_step: bool = False  # the peak is the optimizer step, not the backward
    peak_at_model_load: bool = False  # the whole model loaded before ZeRO-3 partitioned it
    # Cached by the allocator beyond the job's need when batch lengths vary (released before
    # an out-of-memory error, so not in ``total``): see LENGTH_DRIFT_OF_DYNAMIC. The planning
    # figure, and the upper end of the range a reading may reach.
    length_drift: float = 0.0
    length_drift_high: float = 0.0

    @property
    def allocated(self) -> float:
        """Live tensors at the peak (what ``torch.cuda.max_memory_allocated`` reports)."""
        return (
            self.frozen_weights
            + self.trainable_weights
            + self.master_weights
            + self.gradients
            + self.optimizer_states
            + self.activations
            + self.logits
            + self.work_buffers
        )

    @property
    def reserved(self) -> float:
        """What the caching allocator holds (``max_memory_reserved``)."""
        return self.allocated + self.fragmentation

    @property
    def total(self) -> float:
        """Everything the card must hold: reserved memory plus the runtime context."""
        return self.reserved + self.framework_overhead

    @property
    def device_reading(self) -> float:
        """What nvidia-smi or npu-smi may show at the peak: the total plus the length drift."""
        return self.total + self.length_drift

    @property
    def device_reading_high(self) -> float:
        """The upper end of what a device reading may show: the total plus the heaviest drift."""
        return self.total + max(self.length_drift, self.length_drift_high)

    @property
    def reading_exceeds_total(self) -> bool:
        """Whether the device reading is worth stating beside the total."""
        return max(self.length_drift, self.length_drift_high) >= LENGTH_DRIFT_SHOWN_GIB

    def components(self) -> dict[str, float]:
        """The device components and the total, in GiB (the JSON ``memory_per_gpu_gib``)."""
        names = [
            f.name
            for f in fields(self)
            if f.name
            not in (
                "paged_optimizer_gib",
                "host_ram_per_gpu_gib",
                "peak_at_optimizer_step",
                "peak_at_model_load",
                "length_drift",
                "length_drift_high",
            )
        ]
        out = {name: getattr(self, name) for name in names}
        out["total"] = self.total
        return out

    def at_metric(self, metric: str, *, high: bool = False) -> float:
        """The prediction comparable with a reported figure of the given kind: the planning
        figure, or with ``high`` the upper end of the range a reading may reach."""
        drift = max(self.length_drift, self.length_drift_high) if high else self.length_drift
        if metric == "allocated":
            return self.allocated
        if metric == "reserved":
            return self.reserved + drift
        return self.total + drift


# --- The model ---------------------------------------------------------------------------------


def effective_arch(model: ModelArch) -> tuple[ModelArch, ArchLayout]:
    """The model's shape, or for rule-of-thumb rows that name only a size a Llama-like shape.

    Generic sizes: hidden from P ~ 12 x layers x hidden^2 with layers ~ hidden / 128 (the
    Llama 2 aspect ratio: 4096/32, 8192/80), rounded to 128; MLP 8/3 x hidden (SwiGLU);
    128-wide heads, full multi-head attention; a 32,000-row vocabulary (Llama 2).
    """
    if model.layout is not None:
        return model, model.layout
    hidden = max(128, round((model.params * 128 / 12) ** (1 / 3) / 128) * 128)
    layers = max(1, round(model.params / (12 * hidden * hidden)))
    heads = hidden // 128
    generic = ModelArch(
        name=model.name,
        params_b=model.params_b,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        intermediate=round(hidden * 8 / 3 / 128) * 128,
        vocab=32_000,
        tied_embeddings=False,
        experts=None,
        experts_per_token=None,
    )
    return generic, arch_layout(generic)


class MemoryModel:
    """Everything about a scenario's memory that does not depend on the GPU layout.

    Built once per scenario (and micro-batch/sequence length); :meth:`per_gpu` then costs a few
    dozen float operations, so the parallelism search can try thousands of layouts.
    """

    def __init__(
        self, scenario: Scenario, *, micro_batch: int | None = None, seq_len: int | None = None
    ):
        self.scenario = scenario
        self.micro_batch = micro_batch or scenario.micro_batch
        self.seq_len = seq_len or scenario.seq_len
        arch, layout = effective_arch(scenario.model)
        self.arch = arch
        self.layout = layout
        self.compute_bytes = COMPUTE_BYTES[scenario.precision]
        self._state_cache: dict = {}
        self._activation_cache: dict = {}
        self._largest_cache: dict = {}  # (what, layout, capacity, context) → largest that fits
        self._stated: tuple[Message, ...] | None = None  # memory_assumptions of the scenario
        self._model_states(scenario, arch, layout)
        self._activation_rates(scenario, arch, layout)

    # -- model states ------------------------------------------------------------------

    def _model_states(self, s: Scenario, m: ModelArch, lay: ArchLayout) -> None:
        total = s.model.params
        block_params = min(
            total,
            m.layers * (lay.attention_params_per_layer + lay.mlp_params_per_layer),
        )
        self.block_params = block_params
        self.layer_params = block_params / m.layers
        self.embedding_unit_params = m.vocab * m.hidden
        amp = s.precision.startswith("amp-")
        weight_bytes = 2 if amp else DTYPE_BYTES[s.precision]
        self.weight_elem_bytes = weight_bytes
        adapters = adapter_count(s)
        self.traits = traits_of(s)
        if s.uses_adapters:
            trained = adapters.total
            self.frozen_bytes = self._frozen_base_bytes(s, total, block_params)
        else:
            trained = total
            self.frozen_bytes = 0.0
        self.trained_params = trained
        # The share of the gradients made first in the backward pass, beside the logits: the
        # output layer's (the embedding's, when tied) under full fine-tuning.
        self.first_gradient_share = 0.0
        if not s.uses_adapters and trained:
            self.first_gradient_share = min(1.0, m.vocab * m.hidden / trained)
        self.gradients_in_backward = gradients_made_in_backward(s)
        self.traits = traits_of(s)
        self.length_drift_share = length_drift_share(s)
        self.length_drift_high_share = length_drift_share(s, high=True)
        if s.uses_adapters and not amp and not self.traits.adapters_in_compute_dtype:
            # PEFT keeps adapters in fp32 even when the base is 16-bit (LoraConfig
            # autocast_adapter_dtype=True, the default since PEFT 0.12, and nn.Linear's fp32
            # default before it), so their gradients and AdamW moments are fp32 too. Frameworks
            # that keep them in 16 bits (torchtune, LitGPT) use less: the safe side when the
            # framework is not stated.
            weight_bytes = max(weight_bytes, FP32)
        self.trainable_bytes = trained * weight_bytes
        self.trained_elem_bytes = weight_bytes
        self.master_bytes = trained * FP32 if amp else 0.0
        # Gradients held through the backward pass, per trained parameter: the parameter's
        # dtype, or under mixed precision what each framework accumulates into (see
        # AMP_BACKWARD_GRAD_BYTES); DeepSpeed ZeRO-1/2 add an fp32 copy of the partition only
        # for the optimizer step, when the activations are gone (AMP_STEP_GRAD_BYTES).
        self.amp = amp
        self.grad_elem_bytes = weight_bytes
        self.optimizer_in_backward = s.optimizer_in_backward
        # Strategies whose AdamW step allocates the foreach temporary (a property of the
        # scenario and strategy alone, so found once here rather than for every layout).
        self.foreach_strategies = frozenset(
            strategy
            for strategy in STRATEGIES
            if optimizer_step_is_foreach(s, strategy) and not s.optimizer_in_backward
        )
        self.largest_gradient_bytes = 0.0
        if s.optimizer_in_backward:
            # Each gradient is applied and freed during the backward pass: only the largest
            # single tensor's gradient exists at once (the embedding or one MLP matrix).
            largest = self._largest_trained_tensor(s, m, lay, adapters)
            self.largest_gradient_bytes = min(trained, largest) * (FP32 if amp else weight_bytes)
        state_bytes = FP32 if (amp or weight_bytes == FP32) else DTYPE_BYTES[s.precision]
        self.optimizer_bytes = trained * self._optimizer_bytes_per_param(s, state_bytes, m)
        self.paged = s.optimizer in PAGED_OPTIMIZERS
        # Bytes per parameter gathered under ZeRO-3/FSDP: the stored width (DTYPE of the weights,
        # or the quantised width of a QLoRA base's block linears; on average over the model for
        # ZeRO-3's live-parameter window).
        self.gather_block_bytes = float(self.weight_elem_bytes)
        self.gather_average_bytes = float(self.weight_elem_bytes)
        if s.method == "qlora":
            self.gather_block_bytes = quantised_weight_bytes(s)
            self.gather_average_bytes = self.frozen_bytes / total
        self.dequant_bytes = 0.0
        if s.method == "qlora":
            widest = m.hidden * max(m.intermediate, lay.q_out)
            groupwise = s.quant_format in GROUPWISE_FORMATS
            if quantises_output_layer(s, self.traits):
                widest = max(widest, m.hidden * m.vocab)
            copies = DEQUANT_COPIES_GROUPWISE if groupwise else DEQUANT_COPIES
            self.dequant_bytes = copies * widest * 2
        self._expert_states(s, m, state_bytes)
        positions = s.model.causal_mask_positions or 0
        self.mask_bytes = CAUSAL_MASK_BYTES_PER_ENTRY * positions * positions
        self.dora_bytes = 0.0
        if s.method == "dora":
            # DoRA materialises W + scale x B A of the adapted matrix to take its column norm.
            widest = m.hidden * max(m.intermediate, lay.q_out)
            self.dora_bytes = 2 * widest * weight_bytes

    def _expert_states(self, s: Scenario, m: ModelArch, state_bytes: int) -> None:
        """The routed experts' part of the model states, for expert parallelism.

        Under expert parallelism (``parallelism.expert_parallel`` = ep) each GPU of an
        expert-parallel group holds 1/ep of every layer's routed experts, with their gradients
        and optimizer states (Megatron-Core ``--expert-model-parallel-size``; Rajbhandari et al.
        2022, "DeepSpeed-MoE", section 5.1; NeMo AutoModel ``ep_size``). Where a strategy
        already shards a state over all data-parallel ranks (ZeRO/FSDP), the experts' part is
        sharded over the dp / ep ranks of the expert-data-parallel group instead: 1/ep x
        ep/dp = 1/dp per GPU, the same share; EP changes what a replicating strategy keeps.
        """
        routed = routed_expert_params(m)
        if s.uses_adapters:
            bits = s.quant_bits_or_default
            per_weight = quantised_weight_bytes(s) if bits else DTYPE_BYTES.get(s.precision, 2)
            self.routed_frozen_bytes = routed * per_weight
        else:
            self.routed_frozen_bytes = 0.0
        trained = routed_trainable_params(s)
        self.routed_trained_share = trained / self.trained_params if self.trained_params else 0.0
        self.routed_trainable_bytes = trained * self.trained_elem_bytes
        self.routed_master_bytes = trained * FP32 if self.amp else 0.0
        self.routed_optimizer_bytes = trained * self._optimizer_bytes_per_param(s, state_bytes, m)
        self.routed_params_per_layer = routed / m.layers

    def _frozen_base_bytes(self, s: Scenario, total: float, block_params: float) -> float:
        base_bytes = DTYPE_BYTES["fp32"] if s.precision == "fp32" else 2
        bits = s.quant_bits_or_default
        if bits is None:
            return total * base_bytes
        # Quantised: the linear layers of the blocks; embeddings, output head and norms stay
        # in 16 bits (bitsandbytes/PEFT and torchao quantise nn.Linear modules of the blocks),
        # or fp32 where the framework prepares a bitsandbytes base with PEFT's
        # prepare_model_for_kbit_training (FrameworkTraits.upcasts_kbit_rest; not GPTQ/AWQ or
        # torchao NF4: BLOCKS_ONLY_FORMATS).
        quantised = block_params * quantised_weight_bytes(s)
        if upcasts_kbit_rest(s, self.traits):
            base_bytes = FP32
        return quantised + (total - block_params) * base_bytes

    @staticmethod
    def _largest_trained_tensor(s, m, lay, adapters) -> float:
        if s.uses_adapters:
            return max(adapters.largest_adapted_out, 1.0) * s.lora_or_default.rank_or_default
        return max(m.vocab * m.hidden, m.hidden * m.intermediate, m.hidden * lay.q_out)

    @staticmethod
    def _optimizer_bytes_per_param(s: Scenario, state_bytes: int, m: ModelArch) -> float:
        if s.optimizer == "adamw":
            return ADAM_MOMENTS * state_bytes
        if s.optimizer == "paged-adamw":
            return ADAM_MOMENTS * FP32  # bitsandbytes PagedAdamW keeps 32-bit states
        if s.optimizer in ("adamw-8bit", "paged-adamw-8bit"):
            return OPTIMIZER_8BIT_BYTES
        if s.optimizer == "sgd":
            return state_bytes
        return FP32 * 2 / m.hidden  # adafactor: a row and a column vector per matrix

    # -- activations -------------------------------------------------------------------

    def _activation_rates(self, s: Scenario, m: ModelArch, lay: ArchLayout) -> None:
        """Bytes saved per token: per block (all of it, and with checkpointing), and the rest."""
        b = self.compute_bytes
        h, inter = m.hidden, m.intermediate
        q_out = lay.q_out
        frozen_base = s.uses_adapters
        quantised = s.method == "qlora"

        # Attention block (Korthikanti et al. 2022, 4.1, with their dropout masks left out:
        # fine-tuning recipes use attention dropout 0). Saved for every layer whatever trains:
        # q, k and v after rotary embedding, the attention output and the softmax statistics
        # (one fp32 value per head), which FlashAttention and PyTorch SDPA both keep.
        # Grouped-query attention: the SDPA paths of Hugging Face Transformers (repeat_kv) and
        # LitGPT (k.expand(...).reshape) copy k and v to the full head count before the kernel,
        # so the saved k and v are q-wide; only FlashAttention-2's own kernel takes the narrow
        # ones. v1 does not say which, so the q-wide copies are counted (the safe side).
        attention = (4 * q_out) * b + 4 * m.heads
        if stores_attention_scores(s):
            # Eager attention (stated ``flash_attention: false``) also keeps the s x s
            # softmax per head (Korthikanti's 5as/h term): Hugging Face's eager attention takes
            # the softmax in fp32 (softmax(..., dtype=float32)) and keeps that output, and the
            # product with v keeps its cast back to the compute type; in fp32 the second is the
            # attention-dropout output where dropout is on (T5: 0.1).
            attention += m.heads * self.seq_len * (FP32 + b)

        # Inputs of the linear layers. A trained linear layer keeps its input for its weight
        # gradient; a frozen 16-bit one keeps nothing (PyTorch saves only what the required
        # gradients use); its LoRA adapter keeps its own dropped-out copy, counted with the
        # adapters below. Quantised linears (bitsandbytes MatMul4Bit: ctx.tensors = (A, B);
        # GPTQ and torchao NF4 likewise) save their 16-bit input whenever the activation needs
        # a gradient, so QLoRA keeps them all, like full fine-tuning.
        keeps_inputs = not frozen_base or quantised
        # Norms: the RMSNorm of Llama-family models (Hugging Face, LitGPT, torchtune) upcasts
        # its input to fp32 and keeps that copy for its backward; when its weight trains it
        # also keeps the normalised 16-bit tensor for the weight gradient.
        norm = h * max(b, FP32) + (h * b if not frozen_base else 0)
        if keeps_inputs:
            # The q/k/v input (the norm output, shared by the three projections), and the
            # o_proj input: the attention output transposed back to (tokens, heads x head_dim)
            # is a contiguous copy (reshape of a transposed tensor), not the kernel's output.
            attention += h * b + q_out * b
        attention += norm
        # MLP: what the nonlinearity needs: the gate output, its activation and the up
        # projection for a gated MLP (SwiGLU: act(g) * u), the first projection's output for
        # a plain GELU MLP; the down projection's input when it keeps it.
        expert = (3 if lay.gated_mlp else 1) * inter * b
        expert_input = h * b if keeps_inputs else 0
        if keeps_inputs:
            expert += inter * b
        if m.is_moe:
            # Each token's MLP work happens in its top-k experts. The dispatcher (the Hugging
            # Face per-expert loop: hidden_states[top_x], expert(x) * routing_weight) gathers a
            # copy of the token for each expert it goes to, which the expert's first projection
            # keeps when it keeps its input, and the weighting multiply keeps each expert's
            # output; the router keeps its fp32 logits and softmax.
            mlp = lay.active_experts * (expert + h * b + expert_input) + 2 * m.experts * FP32
        else:
            mlp = expert + expert_input
        mlp += norm
        adapters = 0.0
        if frozen_base:
            # x A (rank r) per adapted matrix, kept for B's weight gradient.
            rank = s.lora_or_default.rank_or_default
            per_block = adapter_count(s).adapted_matrices
            adapter_inputs = self._adapter_input_width(s, m, lay)
            if m.is_moe:
                per_block = per_block / lay.routed_expert_count * lay.active_experts
            adapters = per_block * rank * b
            # LoRA dropout (0.05 in the LitGPT, Qwen, ms-swift and LLaMA-Factory recipes; PEFT's
            # default is 0): each adapted matrix keeps its own dropped-out copy of its input and
            # the 1-byte mask. Counted unless the scenario states it off (lora.dropout 0): the
            # safe side. Off, PEFT (LoraLayer.update_layer) and torchtune (LoRALinear:
            # ``nn.Dropout(p=dropout) if dropout > 0.0 else nn.Identity()``, pytorch/torchtune
            # torchtune/modules/peft/lora.py at 30b8519) pass the input itself, which the
            # adapter's A keeps for its weight gradient: once per distinct input, and nothing
            # beyond what a quantised base already keeps (QLoRA's linears keep their inputs).
            if not s.lora_or_default.dropout_off:
                adapters += adapter_inputs * (b + 1)
            elif not keeps_inputs:
                adapters += self._adapter_shared_input_width(s, m, lay) * b
            if s.method == "dora":
                # PEFT DoRA also keeps the base output of every adapted matrix for the
                # magnitude's gradient (about one output row per adapted matrix and token).
                adapters += per_block * max(q_out, inter) * b
        self.block_bytes_per_token = attention + mlp + adapters
        # Gradient checkpointing (one checkpoint per block, as HF, torchtune, LitGPT and
        # Megatron's full recompute do): the block input in 16 bits is kept; the block's
        # activations are recomputed one block at a time in the backward pass.
        self.checkpoint_bytes_per_token = h * b
        # Outside the blocks: the embedding output and the final norm's input and output.
        self.outside_bytes_per_token = 3 * h * b
        # Logits and loss (the "loss spike"), per logit (token x vocabulary entry). Whole
        # vocabulary at once (the Hugging Face Trainer path): WHOLE_LOSS_FP32_TENSORS fp32
        # tensors at the loss's peak (see there). With the loss computed in chunks (scenario
        # field loss_chunking, or the framework's default): chunked_loss_bytes. Not stated: the
        # whole logits at once (the heavier case).
        if s.fused_loss:
            # Fused linear cross-entropy (scenario field fused_loss; Liger Kernel,
            # src/liger_kernel/ops/fused_linear_cross_entropy.py): no logits tensor. The kernel
            # computes the input's gradient in the forward pass and keeps it for the backward
            # (tokens x hidden, compute dtype), works through chunks of about tokens x hidden /
            # vocab tokens (a chunk's logits are about tokens x hidden values in the compute
            # dtype, their gradient written in place) and keeps one fp32 loss per token.
            self.logit_bytes_per_token = FUSED_LOSS_HIDDEN_COPIES * h * b + FP32
        elif loss_is_chunked(s):
            self.logit_bytes_per_token = m.vocab * chunked_loss_bytes(s, b)
        else:
            self.logit_bytes_per_token = m.vocab * WHOLE_LOSS_FP32_TENSORS * FP32

    @staticmethod
    def _adapter_input_width(s: Scenario, m: ModelArch, lay: ArchLayout) -> float:
        """Sum of the input widths of the adapted matrices of one block (routed experts: top-k)."""
        width = {
            "q_proj": m.hidden,
            "k_proj": m.hidden,
            "v_proj": m.hidden,
            "qkv_proj": m.hidden,
            "o_proj": lay.q_out,
            "gate_proj": m.hidden if lay.gated_mlp else 0,
            "up_proj": m.hidden,
            "down_proj": m.intermediate,
        }
        total = 0.0
        for name in s.lora_or_default.target_names:
            if name == "lm_head":
                total += m.hidden / m.layers  # once per model, spread over the blocks
                continue
            copies = lay.active_experts if name in ("gate_proj", "up_proj", "down_proj") else 1
            total += copies * width[name]
        return total

    @staticmethod
    def _adapter_shared_input_width(s: Scenario, m: ModelArch, lay: ArchLayout) -> float:
        """Width of the distinct inputs the adapted matrices of one block read, without dropout:
        q, k and v share the attention norm's output, gate and up the MLP norm's (per active
        expert); o and down read their own; lm_head once per model, spread over the blocks."""
        names = set(s.lora_or_default.target_names)
        width = 0.0
        if names & {"q_proj", "k_proj", "v_proj", "qkv_proj"}:
            width += m.hidden
        if "o_proj" in names:
            width += lay.q_out
        if "up_proj" in names or ("gate_proj" in names and lay.gated_mlp):
            width += lay.active_experts * m.hidden
        if "down_proj" in names:
            width += lay.active_experts * m.intermediate
        if "lm_head" in names:
            width += m.hidden / m.layers
        return width

    # -- one layout ---------------------------------------------------------------------

    def activation_bytes(
        self, layout: Layout, micro_batch: int | None = None, seq_len: int | None = None
    ) -> tuple[float, float]:
        """(activations, logits) in bytes per GPU for one micro-batch in this layout."""
        mb = micro_batch or self.micro_batch
        seq = seq_len or self.seq_len
        # Context parallelism: each GPU holds seq / cp of every sequence (Megatron-Core).
        cp = self.scenario.parallelism.context_parallel
        tokens = mb * seq / (cp if layout.data_parallel % cp == 0 else 1)
        m = self.arch
        tp, pp = layout.tensor_parallel, layout.pipeline_parallel
        block = self.block_bytes_per_token
        if stores_attention_scores(self.scenario) and seq != self.seq_len:
            block += m.heads * (seq - self.seq_len) * (FP32 + self.compute_bytes)
        layers_here = -(-m.layers // pp)  # the fullest stage
        # Pipeline schedules (1F1B) keep up to pp micro-batches in flight on the first stage
        # (Korthikanti et al. 2022, 4.2.3); never more than there are micro-batches.
        # A naive layer split (device_map) runs one micro-batch through the stages at a time.
        in_flight = min(pp, self.scenario.grad_accum) if pp > 1 else 1
        if self.traits.naive_pipeline:
            in_flight = 1
        if self.scenario.gradient_checkpointing:
            # The checkpoints stay; the block being recomputed is the working set on top.
            saved = layers_here * self.checkpoint_bytes_per_token * in_flight
            working = 2 * block  # its recomputed activations and the gradients through it
        else:
            saved = layers_here * block * in_flight
            working = block  # the gradients flowing through the block being differentiated
        saved_bytes = tokens * (saved + self.outside_bytes_per_token) / tp
        working_bytes = tokens * working / tp
        logits = tokens * self.logit_bytes_per_token / tp
        # The logits spike happens at the end of the forward pass and is freed once the output
        # layer's backward is done, before any block's backward starts: the peak is the saved
        # activations plus the larger of the two, not both.
        activations = saved_bytes + max(0.0, working_bytes - logits)
        return activations, logits

    def _gathered_bytes(
        self, strategy: str, mp: int, dp: int, offloaded: bool, not_held: float = 0.0
    ) -> float:
        """Parameters gathered at once under ZeRO-3 (DeepSpeed) or FSDP, in bytes.

        Across several data-parallel ranks, never more than sharding saves on weights when the
        partition stays on the GPU: with everything gathered, ZeRO-3/FSDP hold what ZeRO-2
        holds, not more (both free a unit's full parameters once it is done; the live-parameter
        ceiling is an upper bound). On one rank the gathered copies sit beside the partition.
        """
        # Under expert parallelism a GPU gathers only the routed experts its group holds
        # (``not_held``: the share of them it does not, 1 - 1/ep).
        layer = self.layer_params - self.routed_params_per_layer * not_held
        # A quantised base is gathered at its stored width (bitsandbytes bnb_4bit_quant_storage,
        # which lets FSDP and ZeRO-3 shard the packed 4-bit weights as 16-bit elements: Answer.AI,
        # "You can now train a 70b language model at home", 2024-03-06; Hugging Face PEFT docs,
        # "DeepSpeed" / "FSDP", QLoRA sections): a block's linears at their quantised bytes, the
        # embedding unit in 16 bits.
        layer_bytes = layer * self.gather_block_bytes
        unit = max(layer_bytes, self.embedding_unit_params * self.weight_elem_bytes) / mp
        if strategy == "fsdp":
            gathered = FSDP_GATHERED_UNITS * unit
        else:
            params = self.scenario.model.params - self.routed_params_per_layer * (
                self.arch.layers * not_held
            )
            live = min(params / mp, ZERO3_MAX_LIVE_PARAMETERS) * self.gather_average_bytes
            gathered = max(live, unit)
        if not offloaded and dp > 1:
            weights = (self.frozen_bytes + self.trainable_bytes) / mp
            gathered = min(gathered, weights * (1 - 1 / dp))
        return gathered

    def _state_bytes(self, layout: Layout) -> tuple[float, ...]:
        """Model states and buffers per GPU in bytes, and host RAM per GPU, for a layout.

        Returns (frozen, trainable, master, gradients, optimizer, buffers, paged, host,
        step_gradients, transient, at_start): a plain tuple, kept per layout key and unpacked by
        position in _phase_bytes and per_gpu. A named tuple would name the fields once, but
        building one is a Python call (~4 k instructions): about 6 M more instructions, ~5 %,
        in a catalog sweep that builds ~1,200 of them (measured 2026-12-03).
        """
        mp = layout.tensor_parallel * layout.pipeline_parallel  # Layout.model_parallel
        key = (layout.gpus, layout.strategy, layout.offload, mp)
        cached = self._state_cache.get(key)
        if cached is not None:
            return cached
        strategy, offload = layout.strategy, layout.offload
        dp = max(1, layout.gpus // mp)  # Layout.data_parallel
        shard_optimizer = dp if strategy in ("zero1", "zero2", "zero3", "fsdp") else 1
        shard_grads = dp if strategy in ("zero2", "zero3", "fsdp") else 1
        shard_weights = dp if strategy in ("zero3", "fsdp") else 1
        params_offloaded = offload == "optimizer+params"
        optimizer_offloaded = offload in ("optimizer", "optimizer+params")

        frozen = self.frozen_bytes / mp / shard_weights
        trainable = self.trainable_bytes / mp / shard_weights
        master = self.master_bytes / mp / shard_optimizer
        gradients, step_gradients = self._gradient_bytes(strategy, dp)
        # Expert parallelism: what a replicating strategy keeps of the routed experts is 1/ep
        # (see _expert_states); sharded states are unchanged.
        # (Without it not_held is 0 and every such term would subtract or scale by zero.)
        ep = self.scenario.parallelism.expert_parallel  # as expert_parallel_for(scenario, layout)
        ep = ep if ep > 1 and dp % ep == 0 else 1
        not_held = 1 - 1 / ep
        optimizer = self.optimizer_bytes / mp / shard_optimizer
        if ep > 1:
            if shard_weights == 1:
                frozen -= self.routed_frozen_bytes * not_held / mp
                trainable -= self.routed_trainable_bytes * not_held / mp
            if shard_optimizer == 1:
                master -= self.routed_master_bytes * not_held / mp
                optimizer -= self.routed_optimizer_bytes * not_held / mp
            if shard_grads == 1:
                gradients *= 1 - self.routed_trained_share * not_held
        gradients /= mp * shard_grads
        step_gradients /= mp
        host = 0.0
        paged = 0.0
        if self.paged and not optimizer_offloaded:
            paged, optimizer = optimizer, 0.0
        if optimizer_offloaded:
            # The optimizer step runs on the CPU: master copy and moments live in host RAM, and
            # under mixed precision an fp32 gradient per trained parameter too (DeepSpeed
            # ZeRO-Offload); pure 16-bit runs step on the gradients moved below.
            host += optimizer + master
            if self.amp:
                host += self.trained_params * FP32 / mp / shard_optimizer
            optimizer = master = 0.0
        # AdamW's foreach step: one moment-sized temporary (FOREACH_TEMPORARY_MOMENTS) beside
        # the states it updates; none when the step runs on the CPU or in the backward pass.
        transient = 0.0
        if strategy in self.foreach_strategies:
            transient = optimizer * FOREACH_TEMPORARY_MOMENTS / ADAM_MOMENTS
        buffers = self.dequant_bytes + self.dora_bytes + self.mask_bytes
        if params_offloaded:
            # Parameters and gradients live in host RAM and stream in one unit at a time.
            host += frozen + trainable + gradients + step_gradients
            frozen = trainable = gradients = step_gradients = 0.0
            buffers += self._gathered_bytes(strategy, mp, dp, offloaded=True, not_held=not_held)
        elif strategy in ("zero3", "fsdp"):
            buffers += self._gathered_bytes(strategy, mp, dp, offloaded=False, not_held=not_held)
        if strategy in ("zero1", "zero2"):
            buffers += ZERO12_IPG_BUFFERS * ZERO_BUCKET_ELEMENTS * self.weight_elem_bytes
        elif strategy == "zero3":
            buckets = ZERO3_BUCKETS * min(self.trained_params / mp, ZERO_BUCKET_ELEMENTS)
            buffers += buckets * self.trained_elem_bytes
        elif strategy == "ddp":
            # DDP's default gradient buckets (gradient_as_bucket_view=False) copy every
            # gradient once more.
            held = 1 - self.routed_trained_share * not_held
            buffers += self.trained_params * held / mp * self.trained_elem_bytes
        # Host RAM per GPU besides offload: the paged optimizer states when the GPU runs
        # short, this rank's share of the checkpoint read before it moves to the device, and
        # the rank's process with its data-loader workers.
        host += paged + (self.frozen_bytes + self.trainable_bytes) / layout.gpus
        host += HOST_PROCESS_GIB * GIB
        # At the start of the backward pass: all gradients when they outlive a step (gradient
        # accumulation, Megatron's buffer), else only the output layer's (gradients_made_in_backward).
        at_start = gradients
        if self.gradients_in_backward:
            at_start = gradients * self.first_gradient_share
        result = (
            frozen,
            trainable,
            master,
            gradients,
            optimizer,
            buffers,
            paged,
            host,
            step_gradients,
            transient,
            at_start,
        )
        self._state_cache[key] = result
        return result

    def _gradient_bytes(self, strategy: str, dp: int) -> tuple[float, float]:
        """(gradients through the backward pass, extra gradients at the optimizer step), bytes.

        The first is before sharding (the caller divides by the strategy's gradient shard); the
        second is already per data-parallel rank.
        """
        if self.optimizer_in_backward:
            return self.largest_gradient_bytes, 0.0
        if not self.amp:
            return self.trained_params * self.grad_elem_bytes, 0.0
        backward = self.trained_params * AMP_BACKWARD_GRAD_BYTES[strategy]
        step = self.trained_params * AMP_STEP_GRAD_BYTES.get(strategy, 0) / dp
        return backward, step

    def _dynamic_bytes(self, layout: Layout, micro_batch: int, seq_len: int) -> tuple[float, float]:
        key = (layout.tensor_parallel, layout.pipeline_parallel, micro_batch, seq_len)
        cached = self._activation_cache.get(key)
        if cached is None:
            cached = self.activation_bytes(layout, micro_batch, seq_len)
            self._activation_cache[key] = cached
        return cached

    def _phase_bytes(self, layout: Layout, micro_batch: int, seq_len: int):
        """(backward-phase allocated, step-phase allocated, states, activations, logits)."""
        states = self._state_bytes(layout)
        (
            frozen,
            trainable,
            master,
            gradients,
            optimizer,
            buffers,
            _paged,
            _host,
            step,
            transient,
            at_start,
        ) = states
        activations, logits = self._dynamic_bytes(layout, micro_batch, seq_len)
        resident = frozen + trainable + master + optimizer + buffers
        backward = resident + at_start + activations + logits
        return backward, resident + gradients + step + transient, states, activations, logits

    def reserved_gib(
        self, layout: Layout, *, micro_batch: int | None = None, seq_len: int | None = None
    ) -> float:
        """The per-GPU peak without the runtime context, in GiB (fast path for searches)."""
        phases = self._phase_bytes(layout, micro_batch or self.micro_batch, seq_len or self.seq_len)
        return _reserved_gib(max(phases[0], phases[1]))  # (backward, step, ...)

    def reserved_gibs(self, layouts: Iterable[Layout]) -> list[float]:
        """:meth:`reserved_gib` of each layout at the model's micro-batch and sequence length
        (a search's batch: the arguments are resolved once, not per layout)."""
        micro_batch, seq_len = self.micro_batch, self.seq_len
        phase_bytes = self._phase_bytes
        out = []
        for layout in layouts:
            backward, step = phase_bytes(layout, micro_batch, seq_len)[:2]
            out.append(_reserved_gib(step if step > backward else backward))  # max(), no call
        return out

    def total_gib(
        self,
        layout: Layout,
        context: float,
        *,
        micro_batch: int | None = None,
        seq_len: int | None = None,
    ) -> float:
        """The per-GPU total in GiB (fast path of :meth:`per_gpu` for searches)."""
        return self.reserved_gib(layout, micro_batch=micro_batch, seq_len=seq_len) + context

    def whole_load_bytes(self, layout: Layout) -> float:
        """The whole model on one GPU, when it is loaded there before ZeRO-3 partitions it.

        0 when the framework builds the model partitioned, under any other strategy, and when
        the parameters are offloaded (created on the CPU).
        """
        loads_whole = (
            self.traits.whole_load_under_zero3
            and layout.strategy == "zero3"
            and layout.offload != "optimizer+params"
            and layout.data_parallel > 1
        )
        if not loads_whole:
            return 0.0
        return (self.frozen_bytes + self.trainable_bytes) / layout.model_parallel

    def per_gpu(
        self,
        layout: Layout,
        *,
        context: float = CONTEXT_GIB["cuda"],
        micro_batch: int | None = None,
        seq_len: int | None = None,
        capacity: float | None = None,
        card: float | None = None,
    ) -> MemoryBreakdown:
        """Peak memory per GPU for this layout (``context`` in GiB: runtime and NCCL).

        The peak is the largest of three moments: the start of the backward pass (activations
        and the loss's buffers alive), the optimizer step (activations freed, the step's extra
        fp32 gradients alive), and, where the framework loads the whole model onto each GPU
        before ZeRO-3 partitions it and ``capacity`` (GiB) holds it, the model load: the
        caching allocator keeps that memory. A load that would not fit means the framework
        must build the model partitioned, so it never decides whether a job fits. The
        components are those of the largest moment. ``card`` (GiB, the card's usable memory)
        caps the length drift: a device reading cannot exceed the card.
        """
        backward, step, states, activations, logits = self._phase_bytes(
            layout, micro_batch or self.micro_batch, seq_len or self.seq_len
        )
        frozen, trainable, master, gradients, optimizer, buffers, paged, host, step_extra = states[
            :9
        ]
        transient, at_start = states[9:]
        allocated = max(backward, step)
        training_total = _reserved_gib(allocated) + context
        dynamic = (activations + logits) / GIB
        drift = self.length_drift_share * dynamic
        high = self.length_drift_high_share * dynamic
        whole = self.whole_load_bytes(layout)
        load_total = _reserved_gib(whole) + context
        if whole > allocated and capacity is not None and load_total <= capacity:
            # The later training steps may still read higher than the load did.
            drift = max(0.0, training_total + drift - load_total)
            high = max(0.0, training_total + high - load_total)
            share = self.frozen_bytes / (self.frozen_bytes + self.trainable_bytes)
            return MemoryBreakdown(
                frozen_weights=whole * share / GIB,
                trainable_weights=whole * (1 - share) / GIB,
                master_weights=0.0,
                gradients=0.0,
                optimizer_states=0.0,
                activations=0.0,
                logits=0.0,
                work_buffers=0.0,
                fragmentation=FRAGMENTATION_SHARE * whole / GIB,
                framework_overhead=context,
                paged_optimizer_gib=paged / GIB,
                host_ram_per_gpu_gib=host / GIB,
                peak_at_model_load=True,
                length_drift=_capped(drift, load_total, card),
                length_drift_high=_capped(high, load_total, card),
            )
        at_step = step > backward
        if at_step:
            gradients += step_extra
            buffers += transient
            activations = logits = 0.0
        else:
            gradients = at_start
        return MemoryBreakdown(
            frozen_weights=frozen / GIB,
            trainable_weights=trainable / GIB,
            master_weights=master / GIB,
            gradients=gradients / GIB,
            optimizer_states=optimizer / GIB,
            activations=activations / GIB,
            logits=logits / GIB,
            work_buffers=buffers / GIB,
            fragmentation=FRAGMENTATION_SHARE * allocated / GIB,
            framework_overhead=context,
            paged_optimizer_gib=paged / GIB,
            host_ram_per_gpu_gib=host / GIB,
            peak_at_optimizer_step=at_step,
            length_drift=_capped(drift, training_total, card),
            length_drift_high=_capped(high, training_total, card),
        )

    def stated(self, scenario: Scenario) -> list[Message]:
        """:func:`memory_assumptions` of ``scenario``: for this model's own scenario the same
        messages each time (worked out once; every sizing of a recommendation states them, and
        the stored result holds them once), in a list of the caller's own."""
        if scenario is not self.scenario:
            return memory_assumptions(scenario)
        if self._stated is None:
            self._stated = tuple(memory_assumptions(scenario))
        return list(self._stated)

    def max_micro_batch(self, layout: Layout, capacity_gib: float, context: float) -> int:
        """The largest micro-batch that fits (0 when not even one sequence does)."""
        return self._largest("micro_batch", layout, capacity_gib, context)

    def max_seq_len(self, layout: Layout, capacity_gib: float, context: float) -> int:
        """The longest sequence (at the scenario's micro-batch) that fits (0 when none)."""
        return self._largest("seq_len", layout, capacity_gib, context)

    def _largest(self, what: str, layout: Layout, capacity_gib: float, context: float) -> int:
        """The largest ``what`` (micro_batch or seq_len) that fits, searched once per layout,
        capacity and context: servers with the same accelerator and GPU count ask again."""
        key = (what, layout, capacity_gib, context)
        found = self._largest_cache.get(key)
        if found is None:
            limit = int(LIMITS[what][1])
            found = self._largest_cache[key] = _largest_fitting(
                lambda n: self.total_gib(layout, context, **{what: n}), capacity_gib, limit
            )
        return found


def _reserved_gib(allocated: float) -> float:
    """What the caching allocator holds for ``allocated`` live bytes, in GiB."""
    return allocated * (1 + FRAGMENTATION_SHARE) / GIB


def _capped(drift: float, total: float, card: float | None) -> float:
    """The drift a reading can show on top of ``total`` on a card of ``card`` GiB."""
    if card is None:
        return drift
    return max(0.0, min(drift, card - total))


def length_drift_share(scenario: Scenario, *, high: bool = False) -> float:
    """Allocator drift per byte of dynamic peak (0 for packed, fixed-length batches): the
    planning figure, or with ``high`` the upper end of the range."""
    if scenario.packed is True:
        return 0.0
    checkpointed = bool(scenario.gradient_checkpointing)
    table = LENGTH_DRIFT_HIGH_OF_DYNAMIC if high else LENGTH_DRIFT_OF_DYNAMIC
    controlled = LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC.get(drift_controls(scenario))
    if controlled is None:
        return table[checkpointed]
    return min(table[checkpointed], controlled[checkpointed])


def drift_controls(scenario: Scenario) -> tuple[bool, bool]:
    """(samples grouped by length, cache emptied at every step), as the scenario states them."""
    return bool(scenario.length_grouped), scenario.empty_cache_steps == 1


def _largest_fitting(total, capacity: float, limit: int) -> int:
    """Largest n in 1..limit with ``total(n) <= capacity`` (0 when not even 1), for a ``total``
    that never decreases as n grows (memory per GPU against micro-batch or sequence length).

    A bracketed interpolation search: memory grows nearly linearly with either, so the point
    where the line through the bracket's ends meets ``capacity`` is the answer or next to it,
    and its neighbour settles which side it is on; a step that leaves more than half of the
    bracket is followed by a bisection, so a bent curve costs no more than a binary search.
    About 5 evaluations instead of about 40 (seq_len's limit is 2**20); the same n as a
    binary search (tests/unit/test_memory_search.py)."""
    low, low_value = 1, total(1)
    if low_value > capacity:
        return 0
    high, high_value = limit, total(limit)
    if high_value <= capacity:
        return limit
    while high - low > 1:  # total(low) fits, total(high) does not
        width = high - low
        span = high_value - low_value
        guess = low + int((capacity - low_value) / span * width) if span > 0 else low + 1
        guess = min(max(guess, low + 1), high - 1)
        value = total(guess)
        if value <= capacity:
            low, low_value = guess, value
            neighbour = guess + 1
        else:
            high, high_value = guess, value
            neighbour = guess - 1
        if low < neighbour < high:
            value = total(neighbour)
            if value <= capacity:
                low, low_value = neighbour, value
            else:
                high, high_value = neighbour, value
        if high - low > 1 and (high - low) * 2 > width:
            middle = (low + high) // 2
            value = total(middle)
            if value <= capacity:
                low, low_value = middle, value
            else:
                high, high_value = middle, value
    return low


def estimate_memory(
    scenario: Scenario, layout: Layout | None = None, *, accelerator: AcceleratorSpec | None = None
) -> MemoryBreakdown:
    """Peak per-GPU memory of the scenario (in its own layout unless one is given)."""
    layout = layout or layout_of(scenario)
    model = MemoryModel(scenario)
    capacity = plannable_capacity_gib(accelerator) if accelerator is not None else None
    card = usable_capacity_gib(accelerator) if accelerator is not None else None
    context = context_gib(accelerator, layout.gpus)
    return model.per_gpu(layout, context=context, capacity=capacity, card=card)


def memory_assumptions(scenario: Scenario) -> list[Message]:
    """Plain sentences for what the memory model assumed about this scenario."""
    out: list[Message] = []
    if scenario.gradient_checkpointing is None:
        out.append(
            Message(N_("Gradient checkpointing was not stated; it is assumed off (more memory)."))
        )
    if scenario.flash_attention is None:
        out.append(
            Message(
                N_(
                    "The attention kernel was not stated; the framework's default, PyTorch's "
                    "scaled-dot-product attention, is assumed: it does not store the "
                    "sequence-by-sequence scores."
                )
            )
        )
    if scenario.packed is False:
        out.append(
            Message(
                N_(
                    "Samples are not packed: memory is sized for batches padded to the full "
                    "sequence length of {seq_len} tokens, the longest batch the run can meet."
                ),
                {"seq_len": scenario.seq_len},
            )
        )
    out.extend(_drift_control_assumptions(scenario))
    traits = traits_of(scenario)
    out.extend(_framework_assumptions(scenario, traits))
    if scenario.uses_adapters:
        out.append(_adapter_assumption(scenario, traits))
    if scenario.method == "qlora":
        upcast = upcasts_kbit_rest(scenario, traits)
        stored = (
            N_(
                "The frozen base is stored in {bits} bits with {constants} bit per weight of "
                "quantisation constants; embeddings, the output layer and norms are cast to fp32, "
                "as PEFT's k-bit preparation in the Hugging Face recipes does."
            )
            if upcast
            else N_(
                "The frozen base is stored in {bits} bits with {constants} bit per weight of "
                "quantisation constants; embeddings and the output layer stay in 16 bits."
            )
        )
        out.append(
            Message(
                stored,
                {
                    "bits": scenario.quant_bits_or_default,
                    "constants": f"{quant_constant_bits(scenario):.2g}",
                },
            )
        )
        if quantises_output_layer(scenario, traits):
            buffer = N_(
                "Each quantised matrix is dequantised to 16 bits when it is used; the work "
                "buffer is sized for the output layer, which some frameworks (LitGPT) "
                "quantise too."
            )
        else:
            buffer = N_(
                "Each quantised matrix is dequantised to 16 bits when it is used; the work "
                "buffer is sized for the largest block matrix (the output layer stays in 16 "
                "bits)."
            )
        out.append(Message(buffer))
    out.extend(_optimizer_step_assumptions(scenario))
    if scenario.parallelism.strategy in ("zero1", "zero2"):
        out.append(
            Message(
                N_(
                    "DeepSpeed ZeRO-1/2 keep two gradient buckets of {elements} million elements "
                    "whatever the job's size (overlap_comm on, as in the Qwen and ms-swift "
                    "configurations)."
                ),
                {"elements": f"{ZERO_BUCKET_ELEMENTS / 1e6:g}"},
            )
        )
    if scenario.model.causal_mask_positions:
        positions = scenario.model.causal_mask_positions
        out.append(
            Message(
                N_(
                    "The model's code keeps a causal mask of {positions} x {positions} positions "
                    "on every GPU: {gib} GiB."
                ),
                {
                    "positions": f"{positions:,}",
                    "gib": f"{CAUSAL_MASK_BYTES_PER_ENTRY * positions * positions / GIB:,.2f}",
                },
            )
        )
    if scenario.parallelism.expert_parallel > 1:
        out.append(
            Message(
                N_(
                    "Expert parallelism over {ep} GPUs: each GPU keeps 1/{ep} of every layer's "
                    "routed experts with their gradients and optimizer states."
                ),
                {"ep": scenario.parallelism.expert_parallel},
            )
        )
    if scenario.model.layout is None:
        out.append(
            Message(
                N_(
                    "The model's shape is not given: a Llama-like shape of {params} billion "
                    "parameters with a 32,000-token vocabulary is assumed."
                ),
                {"params": f"{scenario.model.params_b:g}"},
            )
        )
    if scenario.fused_loss:
        out.append(
            Message(
                N_(
                    "The output layer and the loss run as one fused kernel, as stated: no "
                    "logits are kept, only the hidden states' gradient and one chunk at a time."
                )
            )
        )
    elif scenario.loss_chunking:
        out.append(
            Message(
                N_(
                    "The loss is computed in chunks, as stated: the 16-bit logits are counted; "
                    "their gradient and the fp32 work exist one chunk at a time."
                )
            )
        )
        out.append(_compiled_loss_assumption(scenario))
    elif loss_is_chunked(scenario):
        out.append(
            Message(
                N_(
                    "The loss is computed in chunks, as {framework}'s recipes do: the 16-bit "
                    "logits are counted; their gradient and the fp32 work exist one chunk at a "
                    "time."
                ),
                {"framework": FRAMEWORK_NAMES[scenario.framework]},
            )
        )
        out.append(_compiled_loss_assumption(scenario))
    else:
        out.append(
            Message(
                N_(
                    "The loss is assumed computed on the whole vocabulary at once in fp32 (the "
                    "Hugging Face default); chunked or fused loss kernels need less memory."
                )
            )
        )
    return out


def _drift_control_assumptions(scenario: Scenario) -> list[Message]:
    """What lowers the device reading of an unpacked run (length_grouped, empty_cache_steps)."""
    if scenario.packed is True:
        return []
    out: list[Message] = []
    grouped, emptied = drift_controls(scenario)
    if grouped:
        out.append(
            Message(
                N_(
                    "Samples are grouped by length with the longest batch first, as stated: "
                    "later batches fit into the blocks cached for it, so a device reading "
                    "stays close to what the job needs."
                )
            )
        )
    if emptied:
        out.append(
            Message(
                N_(
                    "The cache is emptied at every step, as stated: blocks cached for longer "
                    "batches are given back before each backward pass, so a device reading "
                    "climbs less above what the job needs."
                )
            )
        )
    elif scenario.empty_cache_steps is not None:
        out.append(
            Message(
                N_(
                    "The cache is emptied every {steps} steps: only emptying at every step is "
                    "counted as lowering the device reading."
                ),
                {"steps": f"{scenario.empty_cache_steps:,}"},
            )
        )
    return out


def _adapter_assumption(scenario: Scenario, traits: FrameworkTraits) -> Message:
    """The adapters' dtype and whether LoRA dropout keeps a copy of each adapted input."""
    dropout_off = scenario.lora_or_default.dropout_off
    if traits.adapters_in_compute_dtype:
        text = (
            N_(
                "Adapters, their gradients and AdamW states are kept in the training dtype "
                "(as {framework} builds them); LoRA dropout is off, so each adapter keeps its "
                "input without a copy."
            )
            if dropout_off
            else N_(
                "Adapters, their gradients and AdamW states are kept in the training dtype "
                "(as {framework} builds them), with LoRA dropout keeping a copy of each "
                "adapted input."
            )
        )
        return Message(text, {"framework": FRAMEWORK_NAMES[scenario.framework]})
    if dropout_off:
        return Message(
            N_(
                "Adapters are counted in fp32 with fp32 gradients and AdamW states (PEFT's "
                "default); LoRA dropout is off, so each adapter keeps its input without a copy."
            )
        )
    return Message(
        N_(
            "Adapters are counted in fp32 with fp32 gradients and AdamW states (PEFT's "
            "default), with LoRA dropout keeping a copy of each adapted input."
        )
    )


def _compiled_loss_assumption(scenario: Scenario) -> Message:
    """What a chunked loss keeps besides the 16-bit logits: compiled or eager (torch_compile)."""
    if scenario.torch_compile:
        return Message(
            N_(
                "The step is compiled (torch.compile), as stated: each chunk's fp32 upcast and "
                "cross-entropy are one kernel that keeps only the 16-bit logits."
            )
        )
    return Message(
        N_(
            "The step is taken as eager (torch.compile not stated): each chunk's fp32 "
            "log-softmax is counted as kept for the backward pass."
        )
    )


# How the assumptions name each framework (product names, not translated).
FRAMEWORK_NAMES = {
    "hf": "Hugging Face Transformers/PEFT",
    "torchtune": "torchtune",
    "litgpt": "LitGPT",
    "megatron": "Megatron-LM",
}


def _optimizer_step_assumptions(scenario: Scenario) -> list[Message]:
    """What the optimizer step and the gradients' lifetime add (decision 0052)."""
    out: list[Message] = []
    p = scenario.parallelism
    on_device = p.offload == "none" and not scenario.optimizer_in_backward
    if scenario.optimizer == "adamw" and on_device:
        if optimizer_step_is_foreach(scenario, p.strategy):
            out.append(
                Message(
                    N_(
                        "AdamW's step is counted as PyTorch's foreach implementation (its "
                        "default unless fused is stated): a temporary the size of one moment "
                        "at the step."
                    )
                )
            )
        else:
            out.append(
                Message(
                    N_(
                        "AdamW's step is counted as a fused implementation (stated, or the "
                        "default of DeepSpeed and Megatron-LM): no temporary at the step."
                    )
                )
            )
    if not scenario.uses_adapters and gradients_made_in_backward(scenario):
        out.append(
            Message(
                N_(
                    "Without gradient accumulation the gradients are made during the backward "
                    "pass as the activations are freed: only the output layer's gradient is "
                    "counted at its start."
                )
            )
        )
    return out


def _framework_assumptions(scenario: Scenario, traits: FrameworkTraits) -> list[Message]:
    """What the framework (or its absence) changes, in plain sentences."""
    out: list[Message] = []
    if scenario.framework is None:
        out.append(
            Message(
                N_(
                    "The training framework was not stated: wherever frameworks differ (loss "
                    "computation, adapter precision, model loading) the heavier behaviour is "
                    "counted."
                )
            )
        )
    p = scenario.parallelism
    if traits.naive_pipeline and p.pipeline_parallel > 1:
        out.append(
            Message(
                N_(
                    "The {stages} pipeline stages are a layer split (device_map): one "
                    "micro-batch passes through them at a time, so only one GPU works at once."
                ),
                {"stages": p.pipeline_parallel},
            )
        )
    if traits.whole_load_under_zero3 and p.strategy == "zero3" and p.offload != "optimizer+params":
        out.append(
            Message(
                N_(
                    "Under ZeRO-3 the whole model is assumed loaded onto each GPU before "
                    "DeepSpeed partitions it, whenever it fits there (as ms-swift's loader does; "
                    "the memory stays reserved): the peak is at least the whole 16-bit model. "
                    "Loading under deepspeed.zero.Init avoids it."
                )
            )
        )
    return out
