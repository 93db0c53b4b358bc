"""The length the batches actually reach: what the logits, the activations and the allocator's
length drift are sized for (decision 0135).

``seq_len`` is the truncation bound. Packed (or fixed-length) batches are always that long.
Unpacked batches are padded to their own longest sample: Hugging Face's
DataCollatorWithPadding and DataCollatorForSeq2Seq default to ``padding=True`` ("pad to the
longest sequence in the batch", transformers data/data_collator.py), torchtune's
padded_collate_sft pads to the longest sample of the batch, LitGPT's get_sft_collate_fn pads to
the batch's longest. So the heaviest step of a run holds ``micro_batch`` samples padded to the
dataset's longest sample (after truncation), not to ``seq_len``, unless a sample reaches it.

Which length, by what the scenario states (``packed`` not false keeps the bound: padded to
``seq_len``, packed to it, or not stated, the heavier reading):

* ``longest_sample_tokens``: that, at most ``seq_len``;
* only ``avg_tokens_per_sample`` with the dataset's size (``training.dataset_tokens``): an
  estimate of the longest of its N = dataset_tokens / average samples. With only the mean of a
  positive quantity known, the least-committal (maximum-entropy) distribution is the
  exponential one; the expected maximum of N independent exponential draws of mean m is
  m x H_N, the N-th harmonic number (Rényi's representation of exponential order statistics),
  about m x (ln N + 0.577). Capped at ``seq_len``, never below the average. For Alpaca-like
  data (about 52,000 samples) that is about 11.4 x the average, above the longest samples such
  datasets hold, so the estimate errs on the heavy side;
* otherwise: ``seq_len``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from advisor.domain.scenario import Scenario

EULER_GAMMA = 0.5772156649

BOUND = "bound"  # seq_len: packed, not stated, or nothing said about the lengths
LONGEST = "longest"  # the longest sample stated
ESTIMATE = "estimate"  # estimated from the average and the dataset's size


@dataclass(frozen=True)
class BatchLength:
    """The tokens per sequence memory is sized at, and why (one of BOUND, LONGEST, ESTIMATE)."""

    tokens: int
    basis: str
    samples: int | None = None  # the dataset's samples, for ESTIMATE


def expected_longest(average: float, samples: int) -> float:
    """The expected longest of ``samples`` exponential lengths of mean ``average``: m x H_N."""
    if samples <= 1:
        return average
    if samples < 1000:
        harmonic = sum(1.0 / k for k in range(1, samples + 1))
    else:  # H_N = ln N + gamma + 1/(2N) - ..., exact to 1e-7 here
        harmonic = math.log(samples) + EULER_GAMMA + 1 / (2 * samples)
    return average * harmonic


def batch_length(scenario: Scenario) -> BatchLength:
    """The longest batch the run is expected to meet, in tokens per sequence."""
    bound = scenario.seq_len
    if scenario.packed is not False:
        return BatchLength(bound, BOUND)
    longest = scenario.longest_sample_tokens
    if longest:
        return BatchLength(min(longest, bound), LONGEST if longest < bound else BOUND)
    average = scenario.avg_tokens_per_sample
    dataset = scenario.training.dataset_tokens
    if not average or not dataset or average >= bound:
        return BatchLength(bound, BOUND)
    samples = max(1, math.floor(dataset / average))
    estimate = math.ceil(expected_longest(average, samples))
    if estimate >= bound:
        return BatchLength(bound, BOUND)
    return BatchLength(max(average, estimate), ESTIMATE, samples)
