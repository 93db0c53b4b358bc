"""What the training framework changes (Hugging Face Trainer/PEFT, DeepSpeed, FSDP, torchtune,
LitGPT, Megatron): the traits the memory model reads, and what each framework does by default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from advisor.domain.scenario import (
    Scenario,
)
from advisor.domain.sizing.memory.sizes import BLOCKS_ONLY_FORMATS


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
