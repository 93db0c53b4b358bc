"""What the training framework changes (Hugging Face Trainer/PEFT, DeepSpeed, FSDP, torchtune,
LitGPT, Megatron): the traits the memory model reads, and what each framework does by default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from advisor.domain.scenario import (
    Scenario,
)
from advisor.domain.sizing.memory.sizes import BLOCKS_ONLY_FORMATS

# Precisions whose weights and compute are bf16 (TRL's ``bf16`` training argument).
BF16_PRECISIONS = ("bf16", "amp-bf16")


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
    # The trainer casts those fp32 embeddings and output layer back to bf16 when it trains a
    # 4-bit base in bf16: TRL's SFTTrainer, the trainer of the Hugging Face QLoRA guides,
    # prepares a k-bit model and then, "Handle bf16 casting for 4-bit models", calls
    # peft_module_casting_to_bf16 when ``args.bf16`` and the model is loaded in 4 bits
    # (https://github.com/huggingface/trl, trl/models/utils.py prepare_peft_model, in
    # trl/trainer/sft_trainer.py in earlier releases; trl/trainer/utils.py,
    # peft_module_casting_to_bf16: every "lm_head", "embed_tokens", "wte", "wpe" module whose
    # weight is fp32 goes to bfloat16; norms stay fp32). Under fp16 or an 8-bit base the fp32
    # copies stay, and so do they where the script calls PEFT's preparation alone (PEFT's
    # examples): the heavier reading, the band's upper edge when the framework is not stated
    # (HEAVIER_TRAITS).
    casts_kbit_rest_back_in_bf16: bool = False
    # The output layer is always a matrix of its own, even for a model whose configuration
    # ties it to the input embedding: LitGPT's GPT builds ``lm_head = nn.Linear(...)`` beside
    # ``wte = nn.Embedding(...)`` and never ties them (litgpt/model.py, GPT.__init__,
    # https://github.com/Lightning-AI/litgpt/blob/main/litgpt/model.py), so a tied model
    # (Gemma 2, Llama 3.2, Falcon) holds vocab x hidden more than params_b says.
    separate_output_layer: bool = False
    # The quantised output layer is stored quantised (Lightning's BitsandbytesPrecision
    # replaces every nn.Linear, lm_head included: lightning/fabric/plugins/precision/
    # bitsandbytes.py, _convert_layers). Only where quantises_output_layer holds; the heavier
    # reading counts the output layer's dequantised copy but keeps its storage in 16 bits.
    stores_output_layer_quantised: bool = False
    # Under FSDP with adapters, each block is one FSDP1 unit whose FlatParameter holds the
    # block's frozen and trained parameters together and gets a gradient for all of them:
    # LitGPT's LoRA recipe wraps every Block (FSDPStrategy(auto_wrap_policy={Block}),
    # litgpt/finetune/lora.py) with Lightning Fabric's FSDP1 strategy. The Hugging Face Trainer
    # avoids it: for a PEFT LoRA model it sets PEFT's fsdp_auto_wrap_policy, which wraps every
    # trainable leaf module in a unit of its own (transformers Trainer._fsdp_qlora_plugin_updates;
    # peft/utils/other.py, fsdp_auto_wrap_policy), and torchtune's FSDP2 (fully_shard) shards
    # each parameter on its own. See buffers.FSDP_PARAMETER_UNITS (decision 0140).
    fsdp_flat_parameters: bool = False


# The stack a buyer who does not state one most likely runs (decision 0139): Hugging Face
# Transformers with PEFT, with the Trainer or TRL's SFTTrainer on top (and the tools built on
# them: LLaMA-Factory, ms-swift's default backend, Axolotl). A null ``framework`` is sized as
# this stack; the heavier reading of every behaviour (HEAVIER_TRAITS) is the band's upper edge.
MOST_USED_FRAMEWORK = "hf"

FRAMEWORK_TRAITS = {
    "hf": FrameworkTraits(
        False,
        False,
        False,
        True,
        True,
        upcasts_kbit_rest=True,
        casts_kbit_rest_back_in_bf16=True,
    ),
    "torchtune": FrameworkTraits(True, True, False, False, False),
    "litgpt": FrameworkTraits(
        False,
        True,
        True,
        False,
        False,
        separate_output_layer=True,
        stores_output_layer_quantised=True,
        fsdp_flat_parameters=True,
    ),
    "megatron": FrameworkTraits(False, True, False, False, False),
}
# The heavier reading of every behaviour, whatever framework shows it: what a job whose
# framework is not stated may need at most (the band's upper edge, never the headline).
HEAVIER_TRAITS = FrameworkTraits(
    False,
    False,
    True,
    False,
    True,
    upcasts_kbit_rest=True,
    separate_output_layer=True,
    fsdp_flat_parameters=True,
)


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


# An unstated framework is the most used stack, whose pipeline stages are a device_map layer
# split (one micro-batch in flight). A layout that stack cannot run, pipeline stages beside
# data or tensor parallelism, is a Megatron or torchtune pipeline, which keeps micro-batches
# in flight (1F1B): the scenario format records a device_map split as N stages with the
# "single" strategy and tensor_parallel 1 (decision 0028). Memory: one micro-batch in flight
# instead of up to one per stage; time: one GPU works at once.
_UNSTATED_PIPELINE_1F1B = replace(FRAMEWORK_TRAITS[MOST_USED_FRAMEWORK], naive_pipeline=False)


def traits_of(scenario: Scenario) -> FrameworkTraits:
    """The traits the scenario is sized with: its framework's, or the most used stack's."""
    if scenario.framework is not None:
        return FRAMEWORK_TRAITS[scenario.framework]
    p = scenario.parallelism
    if p.strategy == "single" and p.tensor_parallel == 1:
        return FRAMEWORK_TRAITS[MOST_USED_FRAMEWORK]
    return _UNSTATED_PIPELINE_1F1B


def heavier_traits_of(scenario: Scenario) -> FrameworkTraits | None:
    """The heavier reading for a scenario that does not state its framework: every behaviour
    at its heavier side, the pipeline read as :func:`traits_of` reads it. ``None`` when the
    framework is stated, or when the heavier reading cannot differ from the most used stack's:
    they differ only in what a bitsandbytes QLoRA base does (the output layer quantised, the
    k-bit preparation's fp32 copies kept), in a tied model's output layer built as a matrix of
    its own (LitGPT) and in adapters sharing FSDP1 units with their frozen base (LitGPT), so
    only such a base, model or method has one."""
    if scenario.framework is not None:
        return None
    kbit = scenario.method == "qlora" and scenario.quant_format not in BLOCKS_ONLY_FORMATS
    if not (kbit or scenario.model.tied_embeddings or scenario.uses_adapters):
        return None
    return replace(HEAVIER_TRAITS, naive_pipeline=traits_of(scenario).naive_pipeline)


def upcasts_kbit_rest(scenario: Scenario, traits: FrameworkTraits) -> bool:
    """Whether a QLoRA base's non-quantised weights are cast to fp32 for training (PEFT's k-bit
    preparation of a bitsandbytes base, never for BLOCKS_ONLY_FORMATS), and stay so (not cast
    back to bf16 by the trainer: FrameworkTraits.casts_kbit_rest_back_in_bf16)."""
    if not traits.upcasts_kbit_rest or scenario.quant_format in BLOCKS_ONLY_FORMATS:
        return False
    return not casts_back_in_bf16(scenario, traits)


def casts_back_in_bf16(scenario: Scenario, traits: FrameworkTraits) -> bool:
    """Whether the k-bit preparation's fp32 copies are cast back to bf16 by the trainer (what
    :func:`upcasts_kbit_rest` leaves out for a bf16 run of the most used stack)."""
    return (
        traits.upcasts_kbit_rest
        and traits.casts_kbit_rest_back_in_bf16
        and scenario.precision in BF16_PRECISIONS
        and scenario.quant_bits_or_default == 4
        and scenario.quant_format not in BLOCKS_ONLY_FORMATS
    )


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
