"""The closed sets of allowed values, the numeric limits of every field and the defaults of
scenario v1, and the error a scenario that breaks them raises."""

from __future__ import annotations

from advisor.domain.i18n import Message

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
    "model.shared_expert_intermediate": (1, 1_048_576),
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
