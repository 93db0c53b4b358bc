"""Storage for a fine-tuning job: checkpoint size, retention, local NVMe and read rate.

A resumable checkpoint holds what training needs to continue: the trained weights and their
optimizer states (plus the fp32 master copy under mixed precision). Full fine-tuning therefore
writes the whole model with its states; LoRA/QLoRA/DoRA write only the adapters and their
states (the frozen base is read from the original model files). The deliverable (weights only)
is reported too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from advisor.domain.hardware import ServerSpec
from advisor.domain.i18n import N_, Message, Nn_
from advisor.domain.scenario import Scenario, trainable_params

GIB = 2**30
TB = 1e12  # storage is sold in decimal terabytes

# The source's floors for a training server (REQUIREMENTS H4): at least 8 TB of usable local
# NVMe for checkpoints and logs, and at least 6 GB/s sequential read for data loading.
SOURCE_MIN_NVME_TB = 8.0
SOURCE_MIN_READ_GBS = 6.0

# Checkpoints kept on local NVMe: the one being written and the last complete one, so that a
# power cut during a save never leaves the job without a complete checkpoint.
LOCAL_CHECKPOINTS = 2

# Bytes on disk per training token: the raw text (UTF-8, about 4 bytes per BPE token for English;
# Chinese averages ~1.5 characters of 3 bytes) plus the tokenised cache with input ids and labels
# stored as int64 (Hugging Face datasets' type for Python integers): 4 + 2 x 8 = 20 bytes.
DATASET_BYTES_PER_TOKEN = 20

# Bytes the data loader reads per trained token from the tokenised cache: input ids and labels,
# int64 each (the raw text is not read again once tokenised).
LOADER_BYTES_PER_TOKEN = 16

# Share of local NVMe kept free: logs, the framework's caches, temporary files, and the write
# headroom SSDs need to keep their speed (vendors advise leaving 10-20 % unallocated).
NVME_HEADROOM_SHARE = 0.2

BYTES_16BIT = 2
FP32 = 4


@dataclass(frozen=True)
class RetentionPolicy:
    """Checkpoints written and kept on independent (backup) storage.

    The default follows REQUIREMENTS O1: one checkpoint per epoch, every one kept.
    """

    checkpoints_per_epoch: int = 1
    keep_last: int | None = None  # None keeps every checkpoint written


@dataclass(frozen=True)
class StorageEstimate:
    checkpoint_gib: float  # one resumable checkpoint (weights + optimizer states)
    weights_gib: float  # the deliverable: trained weights only (adapters for LoRA)
    checkpoints_written: int
    checkpoints_kept: int
    backup_gib: float  # independent storage for the retention policy
    dataset_gib: float | None
    local_nvme_needed_tb: float  # computed need on each server
    local_nvme_recommended_tb: float  # the larger of the need and the source's 8 TB floor
    server_nvme_tb: float | None
    nvme_sufficient: bool | None
    feed_read_gbs: float | None  # what keeping the GPUs fed actually needs
    source_min_read_gbs: float
    server_read_gbs: float | None
    read_sufficient: bool | None
    checkpoint_load_s: float | None  # reading one checkpoint back at the server's (or 6 GB/s)
    assumptions: list[Message] = field(default_factory=list)


def _trained_weight_bytes(scenario: Scenario) -> float:
    """Bytes per trained parameter of the saved weights (fp32 runs save fp32)."""
    return FP32 if scenario.precision == "fp32" else BYTES_16BIT


def _state_bytes_per_param(scenario: Scenario) -> float:
    """Optimizer state bytes per trained parameter in the checkpoint (master copy included)."""
    mixed = scenario.precision.startswith("amp")
    master = FP32 if mixed else 0
    moment = FP32 if (mixed or scenario.precision == "fp32") else BYTES_16BIT
    if scenario.optimizer in ("adamw-8bit", "paged-adamw-8bit"):
        moments = 2 * 1  # two 8-bit moments
    elif scenario.optimizer == "sgd":
        moments = moment  # one momentum buffer
    elif scenario.optimizer == "adafactor":
        moments = 0  # factored second moments: a row and a column vector per matrix
    else:
        moments = 2 * moment
    return master + moments


def checkpoint_bytes(scenario: Scenario) -> tuple[float, float]:
    """(resumable checkpoint bytes, weights-only bytes) for the scenario."""
    trained = trainable_params(scenario)
    weights = trained * _trained_weight_bytes(scenario)
    return weights + trained * _state_bytes_per_param(scenario), weights


def checkpoints_written(scenario: Scenario, policy: RetentionPolicy) -> int:
    epochs = scenario.training.epochs or 1
    return max(1, math.ceil(epochs * policy.checkpoints_per_epoch))


def estimate_storage(
    scenario: Scenario,
    tokens_per_s: float | None = None,
    server: ServerSpec | None = None,
    policy: RetentionPolicy | None = None,
    servers: int = 1,
) -> StorageEstimate:
    """Checkpoint sizes, backup total, local NVMe and read rate, against ``server`` when given.

    ``tokens_per_s`` is the whole job's throughput (:func:`compute.estimate_time`) and
    ``servers`` the servers it runs on: each server's disks feed its own share.
    """
    policy = policy or RetentionPolicy()
    checkpoint, weights = checkpoint_bytes(scenario)
    written = checkpoints_written(scenario, policy)
    kept = written if policy.keep_last is None else min(written, policy.keep_last)
    dataset_tokens = scenario.training.dataset_tokens
    dataset = dataset_tokens * DATASET_BYTES_PER_TOKEN if dataset_tokens else None
    local_bytes = LOCAL_CHECKPOINTS * checkpoint + (dataset or 0)
    needed_tb = local_bytes / (1 - NVME_HEADROOM_SHARE) / TB
    recommended_tb = max(needed_tb, SOURCE_MIN_NVME_TB)
    per_server_tokens_s = tokens_per_s / max(1, servers) if tokens_per_s else None
    feed = per_server_tokens_s * LOADER_BYTES_PER_TOKEN / 1e9 if per_server_tokens_s else None
    server_tb = server.nvme_usable_tb if server else None
    server_read = server.nvme_read_gbs if server else None
    load_rate = server_read or SOURCE_MIN_READ_GBS
    estimate = StorageEstimate(
        checkpoint_gib=checkpoint / GIB,
        weights_gib=weights / GIB,
        checkpoints_written=written,
        checkpoints_kept=kept,
        backup_gib=checkpoint * kept / GIB,
        dataset_gib=dataset / GIB if dataset is not None else None,
        local_nvme_needed_tb=needed_tb,
        local_nvme_recommended_tb=recommended_tb,
        server_nvme_tb=server_tb,
        nvme_sufficient=None if server_tb is None else server_tb >= recommended_tb,
        feed_read_gbs=feed,
        source_min_read_gbs=SOURCE_MIN_READ_GBS,
        server_read_gbs=server_read,
        read_sufficient=None if server_read is None else server_read >= SOURCE_MIN_READ_GBS,
        checkpoint_load_s=checkpoint / (load_rate * 1e9),
    )
    return _with_assumptions(estimate, scenario, policy)


def _with_assumptions(
    estimate: StorageEstimate, scenario: Scenario, policy: RetentionPolicy
) -> StorageEstimate:
    out = estimate.assumptions
    if scenario.uses_adapters:
        out.append(
            Message(
                N_(
                    "A checkpoint holds only the adapters and their optimizer states "
                    "({checkpoint} GiB); the frozen base model is read from its original files."
                ),
                {"checkpoint": f"{estimate.checkpoint_gib:,.2f}"},
            )
        )
    else:
        out.append(
            Message(
                N_(
                    "A resumable checkpoint holds every weight with its optimizer states: "
                    "{checkpoint} GiB ({weights} GiB of weights alone)."
                ),
                {
                    "checkpoint": f"{estimate.checkpoint_gib:,.1f}",
                    "weights": f"{estimate.weights_gib:,.1f}",
                },
            )
        )
    out.append(
        Message.counted(
            Nn_(
                "Backup (independent storage): {per_epoch} checkpoint per epoch, {kept} of "
                "the {written} written are kept: {total} GiB.",
                "Backup (independent storage): {per_epoch} checkpoints per epoch, {kept} of "
                "the {written} written are kept: {total} GiB.",
            ),
            "per_epoch",
            {
                "kept": estimate.checkpoints_kept,
                "written": estimate.checkpoints_written,
                "per_epoch": policy.checkpoints_per_epoch,
                "total": f"{estimate.backup_gib:,.1f}",
            },
        )
    )
    out.append(
        Message(
            N_(
                "Local NVMe: {needed} TB computed (two checkpoints, the dataset and {headroom} "
                "free space); the source's floor of {floor} TB per server applies."
            ),
            {
                "needed": f"{estimate.local_nvme_needed_tb:,.2f}",
                "headroom": f"{NVME_HEADROOM_SHARE:.0%}",
                "floor": f"{SOURCE_MIN_NVME_TB:g}",
            },
        )
    )
    if estimate.feed_read_gbs is not None:
        out.append(
            Message(
                N_(
                    "Feeding the GPUs needs only {feed} MB/s of reads (tokenised data, "
                    "{bytes} bytes per token); the source's floor of {floor} GB/s is kept for "
                    "checkpoints: one reloads in {load} s at {rate} GB/s."
                ),
                {
                    "feed": f"{estimate.feed_read_gbs * 1000:,.2f}",
                    "bytes": LOADER_BYTES_PER_TOKEN,
                    "floor": f"{SOURCE_MIN_READ_GBS:g}",
                    "load": f"{estimate.checkpoint_load_s:,.0f}",
                    "rate": f"{estimate.server_read_gbs or SOURCE_MIN_READ_GBS:g}",
                },
            )
        )
    return estimate
