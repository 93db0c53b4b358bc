"""Time one scenario across the whole catalog: every accelerator x 1-64 GPUs x every strategy.

Usage: ``.venv/bin/python bench/sizing_speed.py [--runs N]``

For each accelerator of ``fixtures/catalog`` and each GPU count from 1 to 64, every candidate
layout (single GPU, DDP, ZeRO-1/2/3, FSDP, each with tensor parallel 1/2/4/8 where it divides,
and CPU offload of the optimizer or of parameters too) gets its per-GPU peak memory and a
fits/does-not-fit verdict, every fitting layout its whole-job tokens/s (the time model's fast
path, :class:`~advisor.domain.sizing.compute.sweep.ThroughputSweep`), and the fewest fitting GPUs per
accelerator is kept. The memory model is built once per scenario, as the placement search does.
Prints the best and median wall time of ``--runs`` sweeps, for memory alone and for the whole
evaluation (issue 29 asks for under 20 ms on the development machine; the verdict is on the
whole evaluation's median).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.domain.hardware import load_fixture_specs  # noqa: E402
from advisor.domain.scenario import load_scenario  # noqa: E402
from advisor.domain.sizing.compute.sweep import ThroughputSweep  # noqa: E402
from advisor.domain.sizing.memory import context_gib, plannable_capacity_gib  # noqa: E402
from advisor.domain.sizing.parallelism import PlacementSearch  # noqa: E402

LIMIT_MS = 20.0
MAX_GPUS = 64

# Llama 3.1 70B full fine-tuning in mixed precision: the heaviest common job, so most layouts
# are evaluated before one fits.
SCENARIO = {
    "model": {
        "name": "Llama 3.1 70B",
        "params_b": 70.553706,
        "layers": 80,
        "hidden": 8192,
        "heads": 64,
        "kv_heads": 8,
        "intermediate": 28672,
        "vocab": 128256,
        "tied_embeddings": False,
        "experts": None,
        "experts_per_token": None,
    },
    "method": "full",
    "lora": None,
    "precision": "amp-bf16",
    "quant_bits": None,
    "optimizer": "adamw",
    "optimizer_in_backward": False,
    "seq_len": 4096,
    "micro_batch": 1,
    "grad_accum": 8,
    "gradient_checkpointing": True,
    "flash_attention": True,
    "packed": True,
    "hardware": {"accelerator": "h100-sxm-80gb", "count": 8, "nodes": 1},
    "parallelism": {
        "strategy": "fsdp",
        "offload": "none",
        "tensor_parallel": 1,
        "pipeline_parallel": 1,
    },
    "training": {"dataset_tokens": 100_000_000, "epochs": 1},
}


def sweep(
    scenario, accelerators, *, throughput: bool = True
) -> tuple[int, dict[str, tuple[int | None, int | None]]]:
    """Evaluate every (accelerator, GPU count, layout): memory, and tokens/s where it fits.

    Returns the number of evaluations and, per accelerator, the fewest GPUs that fit with the
    states on the GPUs and the fewest when CPU offload is allowed.
    """
    search = PlacementSearch(scenario, allow_offload=True)
    speed = ThroughputSweep(scenario) if throughput else None
    evaluated = 0
    fewest: dict[str, tuple[int | None, int | None]] = {}
    for key, accelerator in accelerators.items():
        capacity = plannable_capacity_gib(accelerator)
        rates_by_gpus = speed.rates_by_gpus(accelerator) if speed is not None else None
        resident = offloaded = None
        for gpus in range(1, MAX_GPUS + 1):
            room = capacity - context_gib(accelerator, gpus)
            # Every layout's peak, and its verdict: the layouts that fit are the first
            # cut(room) of the GPU count's peaks in ascending order (one bisection).
            table = search.fit_table(gpus, 8)
            evaluated += len(table.layouts)
            strategies = table.strategies(room)
            if strategies:
                if rates_by_gpus is not None:
                    rates = rates_by_gpus[gpus]
                    for strategy in strategies:
                        rates[strategy]  # computed on its first read
                if offloaded is None:
                    offloaded = gpus
                if resident is None and table.fits_resident(room):
                    resident = gpus
        fewest[key] = (resident, offloaded)
    return evaluated, fewest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    accelerators = load_fixture_specs(ROOT / "fixtures" / "catalog")[0]
    scenario = load_scenario(SCENARIO)
    memory_only, whole = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        sweep(scenario, accelerators, throughput=False)
        memory_only.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        evaluated, fewest = sweep(scenario, accelerators)
        whole.append((time.perf_counter() - start) * 1000)
    median = statistics.median(whole)
    print(
        f"{len(accelerators)} accelerators x 1-{MAX_GPUS} GPUs x every strategy: "
        f"{evaluated:,} layouts evaluated"
    )
    print(
        f"memory only:         best {min(memory_only):.2f} ms, median "
        f"{statistics.median(memory_only):.2f} ms over {args.runs} runs"
    )
    print(
        f"memory + tokens/s:   best {min(whole):.2f} ms, median {median:.2f} ms over "
        f"{args.runs} runs (limit {LIMIT_MS} ms)"
    )
    print(f"  {'accelerator':<22} {'fewest GPUs':>11} {'with offload':>13}")
    for key, (resident, offloaded) in sorted(fewest.items()):
        print(f"  {key:<22} {resident or 'none <= 64':>11} {offloaded or 'none <= 64':>13}")
    print("PASS" if median < LIMIT_MS else "FAIL")
    return 0 if median < LIMIT_MS else 1


if __name__ == "__main__":
    sys.exit(main())
