"""Bench-only: :class:`ThroughputSweep`, whole-job tokens/s of one scenario for many
(accelerator, GPU count, strategy), each part computed once for what it depends on
(docs/decisions/0065, 0071). It gives exactly :func:`~.estimate.tokens_per_second` (tests hold
it to that) and serves ``bench/sizing_speed.py``; no product code imports it (a test checks).
"""

from __future__ import annotations

from advisor.domain.hardware import AcceleratorSpec, ServerSpec
from advisor.domain.scenario import (
    Scenario,
)
from advisor.domain.sizing import calibration
from advisor.domain.sizing.calibration import Calibration
from advisor.domain.sizing.compute.flops import peak_tflops
from advisor.domain.sizing.compute.job import JobFigures, job_figures
from advisor.domain.sizing.compute.micro_batch import matmul_utilisation, micro_batch_with_traffic
from advisor.domain.sizing.compute.step import (
    StepCompute,
    StepTraffic,
    _optimizer_s,
    exposed_seconds,
    memory_bytes_per_s,
    step_compute,
    step_traffic,
)
from advisor.domain.sizing.host_step import (
    call_seconds,
)
from advisor.domain.sizing.network import (
    Links,
    links_for,
)


class ThroughputSweep:
    """Whole-job tokens/s of one scenario for many (accelerator, GPU count, strategy).

    The fast path of a catalog sweep: the same model as :func:`tokens_per_second` (and equal
    results for the same arguments), with each part of a step computed once for what it
    depends on: the scenario's figures once, the traffic of a (GPU count, strategy) once for
    every accelerator, an accelerator's micro-batch once per job variant, its step compute
    once per GPU count (:meth:`rates_by_gpus`), and each (accelerator, GPU count, strategy)
    once. The keys are complete because the scenario, server and calibration are fixed for the
    sweep's life and an accelerator's key names its figures in a catalog; each table holds one
    entry per key the caller asks about.
    """

    def __init__(
        self,
        scenario: Scenario,
        *,
        server: ServerSpec | None = None,
        cal: Calibration | None = None,
    ):
        self.scenario = scenario
        self.server = server
        self.cal = cal or calibration.STORED
        self.call_s = call_seconds(self.cal.layer_pass_overhead_s)
        self.job = job_figures(scenario)
        self._micro: dict[tuple[str, bool], tuple[float, Links] | None] = {}
        self._traffic: dict[int, TrafficByStrategy] = {}
        self._rates: dict[str, RatesByGpus] = {}

    def tokens_per_s(self, accelerator: AcceleratorSpec, gpus: int, strategy: str) -> float | None:
        """Whole-job tokens/s on ``gpus`` of ``accelerator`` (``None``: peak unknown)."""
        return self.rates(accelerator, gpus)[strategy]

    def rates(self, accelerator: AcceleratorSpec, gpus: int) -> RatesByStrategy:
        """Whole-job tokens/s on ``gpus`` of ``accelerator`` by strategy, each computed when
        first read (``None``: peak unknown)."""
        return self.rates_by_gpus(accelerator)[gpus]

    def rates_by_gpus(self, accelerator: AcceleratorSpec) -> RatesByGpus:
        """The :meth:`rates` tables of ``accelerator`` by GPU count, each made when first read:
        a caller sweeping GPU counts asks for the accelerator once, not once per count."""
        rates = self._rates.get(accelerator.key)
        if rates is None:
            rates = self._rates[accelerator.key] = RatesByGpus(self, accelerator)
        return rates

    def traffic(self, gpus: int) -> TrafficByStrategy:
        """The step traffic on ``gpus`` GPUs by strategy (every accelerator shares it)."""
        traffic = self._traffic.get(gpus)
        if traffic is None:
            traffic = self._traffic[gpus] = TrafficByStrategy(
                self.job.for_gpus(gpus), gpus, self.call_s
            )
        return traffic

    def micro_seconds(self, accelerator: AcceleratorSpec, job: JobFigures):
        """(one micro-batch's seconds, links) of ``job`` on ``accelerator`` (``None``: peak
        unknown); ``job`` is the sweep's or its variant without model parallelism."""
        key = (accelerator.key, job is self.job)
        out = self._micro.get(key, _UNSET)
        if out is not _UNSET:
            return out
        peak = peak_tflops(self.scenario, accelerator)
        out = None
        if peak is not None:
            utilisation = matmul_utilisation(job, accelerator, self.cal)[0]
            links = links_for(accelerator, self.server)
            micro_s = micro_batch_with_traffic(
                job, accelerator, links, peak, utilisation, self.cal
            )[0]
            out = (micro_s, links)
        self._micro[key] = out
        return out


_UNSET = object()  # a table's "not computed yet" where None is a stored answer


class RatesByGpus(dict):
    """One accelerator's :class:`RatesByStrategy` tables by GPU count, made when first read."""

    __slots__ = ("sweep", "accelerator", "memory_bytes_per_s", "micro")  # no attribute dict

    def __init__(self, sweep: ThroughputSweep, accelerator: AcceleratorSpec):
        self.sweep = sweep  # dict.__new__ made the empty table; no dict.__init__ needed
        self.accelerator = accelerator
        self.memory_bytes_per_s = memory_bytes_per_s(accelerator.memory_bandwidth_tbps)
        # The micro-batch of the sweep's job, which every GPU count that the job's model
        # parallelism divides uses (the others take the job without it, asked of the sweep).
        self.micro = sweep.micro_seconds(accelerator, sweep.job)

    def __missing__(self, gpus: int) -> RatesByStrategy:
        sweep = self.sweep
        traffic = sweep.traffic(gpus)
        job = traffic.job  # the sweep's job for this GPU count (JobFigures.for_gpus)
        micro = self.micro if job is sweep.job else sweep.micro_seconds(self.accelerator, job)
        compute = None
        if micro is not None:
            micro_s, links = micro
            compute = step_compute(job, gpus, links, micro_s, sweep.cal.layer_pass_overhead_s)
        rates = self[gpus] = RatesByStrategy(compute, traffic, self.memory_bytes_per_s)
        return rates


class TrafficByStrategy(dict):
    """The :class:`StepTraffic` of one job on ``gpus`` GPUs by strategy, made when first read."""

    __slots__ = ("job", "gpus", "call_s")  # no per-table attribute dict

    def __init__(self, job: JobFigures, gpus: int, call_s: float = 0.0):
        self.job = job  # dict.__new__ made the empty table; no dict.__init__ needed
        self.gpus = gpus
        self.call_s = call_s  # host seconds of one operator call (host_step)

    def __missing__(self, strategy: str) -> StepTraffic:
        traffic = self[strategy] = step_traffic(self.job, self.gpus, strategy, self.call_s)
        return traffic


class RatesByStrategy(dict):
    """Whole-job tokens/s on one (accelerator, GPU count) by strategy, computed when first
    read; ``None`` for every strategy when the accelerator's peak is unknown (``compute``)."""

    __slots__ = ("compute", "traffic", "memory_bytes_per_s")  # one table per pair

    def __init__(
        self,
        compute: StepCompute | None,
        traffic: TrafficByStrategy,
        memory_bytes_per_s: float | None,
    ):
        self.compute = compute  # dict.__new__ made the empty table; no dict.__init__ needed
        self.traffic = traffic
        self.memory_bytes_per_s = memory_bytes_per_s

    def __missing__(self, strategy: str) -> float | None:
        compute = self.compute
        value = None
        if compute is not None:
            traffic = self.traffic[strategy]
            exposed_s = exposed_seconds(compute, traffic)[2]
            optimizer_s = _optimizer_s(traffic, self.memory_bytes_per_s)
            # The step's seconds in step_time's order: compute, exposed, offload, optimizer,
            # ZeRO-3's fetch.
            value = traffic.tokens / (
                compute.compute_s + exposed_s + compute.offload_s + optimizer_s + traffic.fetch_s
            )
        self[strategy] = value
        return value
