"""The layout of one candidate: GPUs, strategy and parallel degrees, offload."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.domain.scenario import (
    Scenario,
)

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
