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
``framework`` (one of :data:`FRAMEWORKS` or null; absent or null means not stated, sized as
the most used stack, Hugging Face with PEFT and TRL, the heavier of the frameworks' behaviours
only at the memory band's upper edge), ``avg_tokens_per_sample`` and
``parallelism.expert_parallel`` (absent means 1: every data-parallel rank holds every expert)
and ``moe_grouped_gemm`` (true, false or null; null means the experts run in a loop).

The module also derives what every part of the engine needs from the architecture: the
parameter layout of a block, active parameters of a mixture-of-experts model, and the trainable
parameter count of each method (LoRA/DoRA adapters by rank and targets).

The package reads by part: ``values`` (closed sets, limits, defaults, the error), ``model``
(the dataclasses and the figures derived from an architecture), ``fields`` (reading one field),
``rules`` (checks across fields) and ``loading`` (load and dump). Import from the package.
"""

from advisor.domain.scenario.loading import (
    _HARDWARE_KEYS,
    _LORA_KEYS,
    _MODEL_KEYS,
    _PARALLELISM_KEYS,
    _TOP_KEYS,
    _TRAINING_KEYS,
    MODEL_SHAPE_KEYS,
    WRITTEN_WHEN_GIVEN,
    dump_scenario,
    load_scenario,
)
from advisor.domain.scenario.model import (
    MLP_TARGETS,
    AdapterCount,
    ArchLayout,
    Hardware,
    LoraConfig,
    ModelArch,
    Parallelism,
    Scenario,
    Training,
    active_params,
    adapted_base_params,
    adapter_count,
    arch_layout,
    routed_expert_params,
    routed_trainable_params,
    trainable_params,
)
from advisor.domain.scenario.rules import (
    ADAPTER_ONLY_ADAPTER_METHODS,
    ARCHITECTURE_NAMES,
    FUSED_LOSS_IS_CHUNKED,
    LONGER_THAN_CONTEXT,
    OPTIMIZER_IMPL_ONLY_ADAMW,
    QLORA_NOT_FP32,
    QUANT_BITS_ONLY_QLORA,
    QUANT_FORMAT_4BIT,
    QUANT_FORMAT_ONLY_QLORA,
    adapter_problem,
    architecture_problem,
    architecture_problems,
    fused_loss_problem,
    longest_sample_problem,
    optimizer_impl_problem,
    precision_problem,
    quant_bits_problem,
    quant_format_problem,
    seq_len_problem,
)
from advisor.domain.scenario.values import (
    ADAPTER_METHODS,
    CONTEXT_PARALLEL_COMMS,
    DEFAULT_LORA_RANK,
    DEFAULT_LORA_TARGETS,
    DEFAULT_QUANT_BITS,
    FRAMEWORKS,
    LIMITS,
    LORA_TARGET_NAMES,
    LORA_TARGET_PRESETS,
    METHODS,
    OFFLOADS,
    OPTIMIZER_IMPLS,
    OPTIMIZERS,
    PRECISIONS,
    QUANT_BITS,
    QUANT_FORMATS,
    QUANT_FORMATS_4BIT,
    STRATEGIES,
    ScenarioError,
)

__all__ = [
    "ADAPTER_METHODS",
    "ADAPTER_ONLY_ADAPTER_METHODS",
    "ARCHITECTURE_NAMES",
    "AdapterCount",
    "ArchLayout",
    "CONTEXT_PARALLEL_COMMS",
    "DEFAULT_LORA_RANK",
    "DEFAULT_LORA_TARGETS",
    "DEFAULT_QUANT_BITS",
    "FRAMEWORKS",
    "FUSED_LOSS_IS_CHUNKED",
    "Hardware",
    "LIMITS",
    "LONGER_THAN_CONTEXT",
    "LORA_TARGET_NAMES",
    "LORA_TARGET_PRESETS",
    "LoraConfig",
    "METHODS",
    "MLP_TARGETS",
    "MODEL_SHAPE_KEYS",
    "ModelArch",
    "OFFLOADS",
    "OPTIMIZERS",
    "OPTIMIZER_IMPLS",
    "OPTIMIZER_IMPL_ONLY_ADAMW",
    "PRECISIONS",
    "Parallelism",
    "QLORA_NOT_FP32",
    "QUANT_BITS",
    "QUANT_BITS_ONLY_QLORA",
    "QUANT_FORMATS",
    "QUANT_FORMATS_4BIT",
    "QUANT_FORMAT_4BIT",
    "QUANT_FORMAT_ONLY_QLORA",
    "STRATEGIES",
    "Scenario",
    "ScenarioError",
    "Training",
    "WRITTEN_WHEN_GIVEN",
    "_HARDWARE_KEYS",
    "_LORA_KEYS",
    "_MODEL_KEYS",
    "_PARALLELISM_KEYS",
    "_TOP_KEYS",
    "_TRAINING_KEYS",
    "active_params",
    "adapted_base_params",
    "adapter_count",
    "adapter_problem",
    "arch_layout",
    "architecture_problem",
    "architecture_problems",
    "dump_scenario",
    "fused_loss_problem",
    "load_scenario",
    "longest_sample_problem",
    "optimizer_impl_problem",
    "precision_problem",
    "quant_bits_problem",
    "quant_format_problem",
    "routed_expert_params",
    "routed_trainable_params",
    "seq_len_problem",
    "trainable_params",
]
