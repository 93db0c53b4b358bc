"""The whole sizing of a fine-tuning job on one accelerator: :func:`size`.

Combines the memory model (:mod:`.memory`), the placement search (:mod:`.parallelism`), and the
time, power, storage and network models (:mod:`.compute`, :mod:`.power`, :mod:`.storage`,
:mod:`.network`) into one :class:`SizingResult`, with the assumptions as translatable
:class:`~advisor.domain.i18n.Message` sentences and an uncertainty band on memory taken from the
errors measured on the public reference cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.i18n import N_, Code, Message, Nn_
from advisor.domain.scenario import Hardware, Parallelism, Scenario
from advisor.domain.sizing.compute import TimeEstimate, estimate_time
from advisor.domain.sizing.memory import (
    FIT_RESERVE_SHARE,
    Layout,
    MemoryBreakdown,
    context_gib,
    expert_parallel_for,
    layout_of,
    memory_assumptions,
    memory_error_band,
    plannable_capacity_gib,
)
from advisor.domain.sizing.network_need import NetworkEstimate, estimate_network
from advisor.domain.sizing.parallelism import (
    DEFAULT_GPUS_PER_SERVER,
    Placement,
    PlacementSearch,
)
from advisor.domain.sizing.power import PowerEstimate, estimate_power
from advisor.domain.sizing.storage import StorageEstimate, estimate_storage


@dataclass(frozen=True)
class SizingResult:
    scenario: Scenario  # as sized: hardware and parallelism of the layout below
    accelerator: AcceleratorSpec | None  # None: no card named, memory per GPU only
    server: ServerSpec | None
    layout: Layout
    gpus_per_server: int
    memory: MemoryBreakdown
    capacity_gib: float | None  # usable memory of one card minus the planning reserve
    memory_low_gib: float  # band on the total from the reference cases' error percentiles
    memory_high_gib: float
    max_micro_batch: int | None
    max_seq_len: int | None
    fewest: Placement | None  # the fewest GPUs of this accelerator that hold the job
    time: TimeEstimate | None
    power: PowerEstimate | None
    storage: StorageEstimate
    network: NetworkEstimate | None
    assumptions: list[Message] = field(default_factory=list)

    @property
    def fits(self) -> bool | None:
        """Whether the job fits the card; ``None`` when no card is named."""
        if self.capacity_gib is None:
            return None
        return self.memory.total <= self.capacity_gib

    @property
    def servers(self) -> int:
        return -(-self.layout.gpus // self.gpus_per_server)

    @property
    def host_ram_per_server_gib(self) -> float:
        return self.memory.host_ram_per_gpu_gib * min(self.layout.gpus, self.gpus_per_server)

    def to_json(self, translate=lambda text: text) -> dict:
        """The documented JSON output (docs/sizing.md), sentences rendered with ``translate``."""
        time = self.time
        fewest = self.fewest
        return {
            "accelerator": self.accelerator.key if self.accelerator else None,
            "server": self.server.key if self.server else None,
            "gpus": self.layout.gpus,
            "servers": self.servers,
            "gpus_per_server": self.gpus_per_server,
            "strategy": self.layout.strategy,
            "offload": self.layout.offload,
            "tensor_parallel": self.layout.tensor_parallel,
            "pipeline_parallel": self.layout.pipeline_parallel,
            "memory_per_gpu_gib": _rounded(self.memory.components(), 2),
            "memory_band_gib": [round(self.memory_low_gib, 2), round(self.memory_high_gib, 2)],
            "memory_allocated_gib": round(self.memory.allocated, 2),
            "memory_reading_gib": round(self.memory.device_reading, 2),
            "memory_reading_range_gib": [
                round(self.memory.total, 2),
                round(self.memory.device_reading_high, 2),
            ],
            "capacity_gib": _round_or_none(self.capacity_gib, 2),
            "fits": self.fits,
            "max_micro_batch": self.max_micro_batch,
            "max_seq_len": self.max_seq_len,
            "host_ram_per_server_gib": round(self.host_ram_per_server_gib, 1),
            "paged_optimizer_gib": round(self.memory.paged_optimizer_gib, 2),
            "fewest_gpus": _placement_json(fewest),
            "tokens_per_s": _round_or_none(time.tokens_per_s if time else None, 0),
            "tokens_per_s_band": _band(time.tokens_per_s_low, time.tokens_per_s_high, 0)
            if time
            else None,
            "step_time_s": _round_or_none(time.step_time_s if time else None, 3),
            "time_to_train_hours": _round_or_none(time.time_to_train_hours if time else None, 2),
            "time_to_train_hours_band": _band(
                time.time_to_train_hours_low, time.time_to_train_hours_high, 2
            )
            if time
            else None,
            "gpu_hours": _round_or_none(time.gpu_hours if time else None, 1),
            "power_kw_per_server": _round_or_none(
                self.power.max_kw_per_server if self.power else None, 2
            ),
            "power_typical_kw_per_server": _round_or_none(
                self.power.typical_kw_per_server if self.power else None, 2
            ),
            "btu_per_hour_per_server": _round_or_none(
                self.power.btu_per_hour_per_server if self.power else None, 0
            ),
            "checkpoint_gib": round(self.storage.checkpoint_gib, 2),
            "local_nvme_recommended_tb": round(self.storage.local_nvme_recommended_tb, 2),
            "network_gbps_per_server": _round_or_none(
                self.network.needed_gbps_per_server if self.network else None, 1
            ),
            "assumptions": [message.render(translate) for message in self.assumptions],
        }


def _round_or_none(value: float | None, digits: int):
    if value is None:
        return None
    return round(value, digits) if digits else round(value)


def _band(low: float | None, high: float | None, digits: int):
    if low is None or high is None:
        return None
    return [_round_or_none(low, digits), _round_or_none(high, digits)]


def _rounded(values: dict[str, float], digits: int) -> dict[str, float]:
    return {key: round(value, digits) for key, value in values.items()}


def _placement_json(placement: Placement | None) -> dict | None:
    if placement is None:
        return None
    layout = placement.layout
    return {
        "gpus": layout.gpus,
        "servers": placement.servers,
        "strategy": layout.strategy,
        "offload": layout.offload,
        "tensor_parallel": layout.tensor_parallel,
        "memory_total_gib": round(placement.memory.total, 2),
    }


def scenario_for(
    scenario: Scenario, layout: Layout, accelerator: AcceleratorSpec, gpus_per_server: int
) -> Scenario:
    """The scenario with the accelerator, GPU count and parallelism of ``layout``."""
    servers = -(-layout.gpus // gpus_per_server)
    return replace(
        scenario,
        hardware=Hardware(accelerator=accelerator.key, count=layout.gpus, nodes=servers),
        parallelism=Parallelism(
            strategy=layout.strategy,
            offload=layout.offload,
            tensor_parallel=layout.tensor_parallel,
            pipeline_parallel=layout.pipeline_parallel,
            expert_parallel=expert_parallel_for(scenario, layout),
        ),
    )


def _layout_for_gpus(
    scenario: Scenario, search: PlacementSearch, gpus: int, accelerator, per_server: int
) -> Layout:
    """The scenario's own layout scaled to ``gpus`` when valid, else the best candidate there."""
    own = layout_of(scenario)
    mp = own.model_parallel
    if gpus == own.gpus:
        return own
    if gpus % mp == 0 and not (own.strategy == "single" and gpus != mp):
        return replace(own, gpus=gpus)
    candidates = search.layouts(gpus, per_server)
    for layout in candidates:
        placement = search.place(layout, accelerator, per_server)
        if placement.memory.total <= plannable_capacity_gib(accelerator):
            return layout
    return candidates[-1] if candidates else replace(own, gpus=gpus, strategy="zero3")


def size(
    scenario: Scenario,
    accelerator: AcceleratorSpec | None,
    gpus: int | None = None,
    server: ServerSpec | None = None,
    *,
    allow_offload: bool = False,
    search: PlacementSearch | None = None,
) -> SizingResult:
    """Size ``scenario`` on ``accelerator``: on ``gpus`` GPUs when given, else the scenario's.

    ``server`` (a catalog server model) sets GPUs per server, power, NVMe and NICs; without it a
    generic 8-GPU server is assumed and said so. Without an accelerator (the format allows
    ``hardware.accelerator: null``, e.g. "fits in an N GB card" claims) the result gives the
    memory per GPU for the stated count and layout only: ``fits`` is ``None`` and there are no
    time, power or network figures. ``search``: a ``PlacementSearch`` of this very scenario and
    ``allow_offload`` that the caller keeps for several sizings (its layouts are kept per GPU
    count); else one is made.
    """
    if accelerator is None:
        return _size_without_accelerator(scenario, gpus)
    per_server = server.gpu_count if server is not None else DEFAULT_GPUS_PER_SERVER
    search = search or PlacementSearch(scenario, allow_offload=allow_offload)
    layout = _layout_for_gpus(
        scenario, search, gpus or scenario.hardware.count, accelerator, per_server
    )
    placement = search.place(layout, accelerator, per_server)
    memory = placement.memory
    error_p10, error_p90 = memory_error_band(scenario)
    capacity = plannable_capacity_gib(accelerator)
    context = memory.framework_overhead
    sized = scenario_for(scenario, layout, accelerator, per_server)
    time = estimate_time(
        sized, accelerator, gpus=layout.gpus, server=server, strategy=layout.strategy
    )
    power = estimate_power(
        accelerator, layout.gpus, server, training_hours=time.time_to_train_hours
    )
    storage = estimate_storage(
        sized, tokens_per_s=time.tokens_per_s, server=server, servers=placement.servers
    )
    network = estimate_network(time, server)
    fewest = search.fewest_gpus(accelerator, server=server)
    result = SizingResult(
        scenario=sized,
        accelerator=accelerator,
        server=server,
        layout=layout,
        gpus_per_server=per_server,
        memory=memory,
        capacity_gib=capacity,
        memory_low_gib=memory.total / (1 + error_p90),
        memory_high_gib=memory.heavier_total / (1 + error_p10),
        max_micro_batch=search.model.max_micro_batch(layout, capacity, context),
        max_seq_len=search.model.max_seq_len(layout, capacity, context),
        fewest=fewest,
        time=time,
        power=power,
        storage=storage,
        network=network,
    )
    assumptions = result.assumptions  # the result's own list, filled before it is handed out
    assumptions += _sizing_assumptions(result, search.model.stated(scenario))
    assumptions += time.assumptions
    if power is not None:
        assumptions += power.assumptions
    assumptions += storage.assumptions
    assumptions += network.assumptions
    return result


def _size_without_accelerator(scenario: Scenario, gpus: int | None) -> SizingResult:
    """Memory per GPU for the scenario's own layout (scaled to ``gpus``), no card (see size)."""
    layout = layout_of(scenario)
    if gpus is not None and gpus != layout.gpus:
        mp = layout.model_parallel
        valid = gpus % mp == 0 and not (layout.strategy == "single" and gpus != mp)
        layout = (
            replace(layout, gpus=gpus) if valid else replace(layout, gpus=gpus, strategy="zero3")
        )
    per_server = DEFAULT_GPUS_PER_SERVER
    memory = PlacementSearch(scenario).model.per_gpu(layout, context=context_gib(None, layout.gpus))
    error_p10, error_p90 = memory_error_band(scenario)
    servers = -(-layout.gpus // per_server)
    sized = replace(
        scenario,
        hardware=Hardware(accelerator=None, count=layout.gpus, nodes=servers),
        parallelism=Parallelism(
            strategy=layout.strategy,
            offload=layout.offload,
            tensor_parallel=layout.tensor_parallel,
            pipeline_parallel=layout.pipeline_parallel,
            expert_parallel=expert_parallel_for(scenario, layout),
        ),
    )
    result = SizingResult(
        scenario=sized,
        accelerator=None,
        server=None,
        layout=layout,
        gpus_per_server=per_server,
        memory=memory,
        capacity_gib=None,
        memory_low_gib=memory.total / (1 + error_p90),
        memory_high_gib=memory.heavier_total / (1 + error_p10),
        max_micro_batch=None,
        max_seq_len=None,
        fewest=None,
        time=None,
        power=None,
        storage=estimate_storage(sized, tokens_per_s=None, server=None, servers=servers),
        network=None,
    )
    assumptions = memory_assumptions(scenario)
    assumptions.append(_peak_message(result))
    assumptions += _heavier_reading_assumption(memory)
    if memory.reading_exceeds_total:
        assumptions.append(_length_drift_assumption(memory))
    assumptions += result.storage.assumptions
    assumptions.append(
        Message(
            N_(
                "No accelerator is named: the memory per GPU is given for the stated GPU count "
                "and layout; whether it fits, the fewest GPUs, throughput, time and power need a "
                "card."
            )
        )
    )
    return replace(result, assumptions=assumptions)


# Below this (GiB) the heavier reading rounds to the headline as figures are shown.
HEAVIER_SHOWN_GIB = 0.05


def _gib(value: float) -> str:
    return f"{value:,.1f}"


def _length_drift_assumption(memory) -> Message:
    """What a device reading may show when batch lengths vary (memory.LENGTH_DRIFT_OF_DYNAMIC)."""
    return Message(
        N_(
            "Batch lengths vary (samples not packed, or packing not stated): the caching "
            "allocator keeps blocks sized for earlier batches, so nvidia-smi or npu-smi may "
            "show up to {reading} GiB per GPU, {drift} GiB more than the job needs. The "
            "allocator releases it before running out of memory, so it does not decide "
            "whether the job fits; expandable_segments in PYTORCH_CUDA_ALLOC_CONF avoids most "
            "of it."
        ),
        {
            "reading": _gib(memory.device_reading_high),
            "drift": _gib(memory.device_reading_high - memory.total),
        },
    )


def _heavier_reading_assumption(memory) -> list[Message]:
    """For a scenario without a framework: the peak under the heavier reading of the other
    frameworks, which the band's upper edge includes (decision 0139); nothing when it is the
    same as the most used stack's to the shown precision."""
    if memory.heavier is None or memory.heavier_total - memory.total < HEAVIER_SHOWN_GIB:
        return []
    return [
        Message(
            N_(
                "Under the heavier behaviour of other frameworks (LitGPT builds the output "
                "layer as a matrix of its own even when the model ties it to the embedding, "
                "quantises it under QLoRA and puts adapters in the FSDP units of their frozen "
                "base; PEFT's k-bit preparation without TRL keeps the embeddings in fp32) the "
                "peak would be {heavier} GiB per GPU; the band's upper edge includes it."
            ),
            {"heavier": _gib(memory.heavier_total)},
        )
    ]


def _peak_message(result: SizingResult) -> Message:
    memory, layout = result.memory, result.layout
    return Message(
        N_(
            "Peak memory per GPU is {total} GiB ({strategy}, {gpus} GPUs, tensor parallel "
            "{tp}); the reference cases put the real peak between {low} and {high} GiB "
            "(10th to 90th percentile of the model's measured error)."
        ),
        {
            "total": _gib(memory.total),
            "strategy": Code("strategy", layout.strategy),
            "gpus": layout.gpus,
            "tp": layout.tensor_parallel,
            "low": _gib(result.memory_low_gib),
            "high": _gib(result.memory_high_gib),
        },
    )


def _sizing_assumptions(result: SizingResult, stated: list[Message]) -> list[Message]:
    """``stated``: what the memory model assumed about the job as given (memory_assumptions)."""
    memory = result.memory
    out = stated
    out.append(_peak_message(result))
    out += _heavier_reading_assumption(memory)
    if memory.reading_exceeds_total:
        out.append(_length_drift_assumption(memory))
    out.append(
        Message(
            N_(
                "A card counts as fitting when the peak stays within {capacity} GiB: the memory "
                "PyTorch can use on a {card} ({usable} GiB) less a reserve of {reserve}."
            ),
            {
                "capacity": _gib(result.capacity_gib),
                "card": result.accelerator.name,
                "card_zh": result.accelerator.name_zh,
                "usable": _gib(result.capacity_gib / (1 - FIT_RESERVE_SHARE)),
                "reserve": f"{FIT_RESERVE_SHARE:.0%}",
            },
        )
    )
    if not result.fits:
        out.append(
            Message(
                N_(
                    "The job does not fit: it needs {total} GiB per GPU and {card} offers "
                    "{capacity} GiB."
                ),
                {
                    "total": _gib(memory.total),
                    "card": result.accelerator.name,
                    "card_zh": result.accelerator.name_zh,
                    "capacity": _gib(result.capacity_gib),
                },
            )
        )
    elif result.memory_high_gib > result.capacity_gib:
        out.append(
            Message(
                N_(
                    "It fits at the estimate but not at the upper edge of its band ({high} GiB): "
                    "test the largest sequences before buying."
                ),
                {"high": _gib(result.memory_high_gib)},
            )
        )
    if result.fewest is None:
        out.append(
            Message(
                N_("No number of {card} GPUs holds this job without offloading to the CPU."),
                {"card": result.accelerator.name, "card_zh": result.accelerator.name_zh},
            )
        )
    else:
        fewest = result.fewest.layout
        out.append(
            Message.counted(
                Nn_(
                    "The fewest {card} GPUs that hold the job: {gpus} ({servers} server), with "
                    "{strategy} and tensor parallel {tp}.",
                    "The fewest {card} GPUs that hold the job: {gpus} ({servers} servers), with "
                    "{strategy} and tensor parallel {tp}.",
                ),
                "servers",
                {
                    "card": result.accelerator.name,
                    "card_zh": result.accelerator.name_zh,
                    "gpus": fewest.gpus,
                    "servers": result.fewest.servers,
                    "strategy": Code("strategy", fewest.strategy),
                    "tp": fewest.tensor_parallel,
                },
            )
        )
    if memory.paged_optimizer_gib > 0:
        out.append(
            Message(
                N_(
                    "The paged optimizer keeps {paged} GiB of states in unified memory; they move "
                    "to host RAM when the GPU runs short and are not counted in the GPU peak."
                ),
                {"paged": _gib(memory.paged_optimizer_gib)},
            )
        )
    out.append(
        Message(
            N_(
                "Host RAM needed per server: {host} GiB (offloaded or paged states, loading the "
                "checkpoint, and each GPU's training process with its data loaders)."
            ),
            {"host": _gib(result.host_ram_per_server_gib)},
        )
    )
    if result.server is None:
        out.append(
            Message(
                N_("No server model was given: a generic server with {n} GPUs is assumed."),
                {"n": result.gpus_per_server},
            )
        )
    return out
