"""Per-GPU memory of a fine-tuning job, broken down into named components.

The model follows what the frameworks behind the reference cases (PyTorch with the Hugging Face
Trainer/PEFT, DeepSpeed, FSDP, torchtune, LitGPT, Megatron) actually keep on the device. One
module per part:

* :mod:`.states`: model states (weights, master copy, gradients, optimizer states), sharded by
  the strategy and split by tensor x pipeline parallelism;
* :mod:`.activations`: activations saved for the backward pass, tensor by tensor;
* :mod:`.loss`: the logits/loss spike of the output layer, fused and chunked losses;
* :mod:`.buffers`: work buffers (ZeRO-3/FSDP gathers, gradient buckets, dequantisation);
* :mod:`.capacity`: the runtime context, fragmentation, the allocator's drift, usable capacity
  and the error band;
* :mod:`.frameworks`: what each training framework changes; :mod:`.sizes`: bytes per dtype and
  per quantised weight; :mod:`.layout`: one candidate layout;
* :mod:`.model`: :class:`MemoryModel` puts the parts together per scenario and gives the
  per-GPU total (:class:`~.breakdown.MemoryBreakdown`) of any layout;
* :mod:`.assumptions`: what the model assumed, as translatable messages.

Every constant carries its reason. The figures are calibrated against the measured reference
cases only through the few framework constants marked "calibrated"; no case is special-cased.
Bytes everywhere inside; GiB (2**30 bytes) in the result. The names other modules use are
importable from this package.
"""

from advisor.domain.sizing.memory.assumptions import memory_assumptions
from advisor.domain.sizing.memory.breakdown import MemoryBreakdown
from advisor.domain.sizing.memory.buffers import ZERO12_IPG_BUFFERS, ZERO_BUCKET_ELEMENTS
from advisor.domain.sizing.memory.capacity import (
    FIT_RESERVE_SHARE,
    FRAGMENTATION_SHARE,
    HOST_PROCESS_GIB,
    LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC,
    LENGTH_DRIFT_HIGH_OF_DYNAMIC,
    LENGTH_DRIFT_OF_DYNAMIC,
    MEMORY_ERROR_P10,
    MEMORY_ERROR_P90,
    context_gib,
    length_drift_share,
    memory_error_band,
    plannable_capacity_gib,
    usable_capacity_gib,
)
from advisor.domain.sizing.memory.frameworks import traits_of
from advisor.domain.sizing.memory.layout import Layout, expert_parallel_for, layout_of
from advisor.domain.sizing.memory.model import MemoryModel, _largest_fitting, estimate_memory
from advisor.domain.sizing.memory.sizes import GIB

__all__ = [
    "FIT_RESERVE_SHARE",
    "FRAGMENTATION_SHARE",
    "GIB",
    "HOST_PROCESS_GIB",
    "LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC",
    "LENGTH_DRIFT_HIGH_OF_DYNAMIC",
    "LENGTH_DRIFT_OF_DYNAMIC",
    "MEMORY_ERROR_P10",
    "MEMORY_ERROR_P90",
    "ZERO12_IPG_BUFFERS",
    "ZERO_BUCKET_ELEMENTS",
    "Layout",
    "MemoryBreakdown",
    "MemoryModel",
    "_largest_fitting",
    "context_gib",
    "estimate_memory",
    "expert_parallel_for",
    "layout_of",
    "length_drift_share",
    "memory_assumptions",
    "memory_error_band",
    "plannable_capacity_gib",
    "traits_of",
    "usable_capacity_gib",
]
