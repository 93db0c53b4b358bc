"""What a GPU offers and holds besides the job: the runtime context, fragmentation, the
allocator's drift when batch lengths vary, usable and plannable capacity, the error band.
"""

from __future__ import annotations

from advisor.domain.hardware import AcceleratorSpec
from advisor.domain.scenario import (
    Scenario,
)

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
# predicted / (1 + P10) for 80 % of the cases. One band: a scenario that does not state its
# framework is sized as the most used stack, and the heavier reading of the other frameworks
# raises the band's upper edge (MemoryBreakdown.heavier_total; decision 0139) instead of a
# second, wider band.
MEMORY_ERROR_P10 = -0.111
MEMORY_ERROR_P90 = 0.138


def memory_error_band(scenario: Scenario) -> tuple[float, float]:
    """(P10, P90) of the memory error (the same whether the framework is stated or not)."""
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
