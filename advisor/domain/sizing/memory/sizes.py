"""Storage sizes: bytes per element of each dtype, and of quantised weights with their constants."""

from __future__ import annotations

from advisor.domain.scenario import (
    Scenario,
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
