"""The sizing engine: memory, parallelism, time, power, storage and network for a fine-tuning job.

Pure Python (no Django). The entry point is :func:`advisor.domain.sizing.estimate.size`;
:mod:`.memory` holds the per-GPU memory model and :mod:`.parallelism` the search for the fewest
GPUs that fit. See ``docs/sizing.md`` and ``docs/decisions/0004-memory-model.md``.
"""
