"""The loss path and the length drift's controls of issue 29, item 3 (decision 0059), against
hand-worked numbers.

The small dense model of ``test_sizing_third_pass`` (2 layers, hidden 1024, vocabulary 1,000):
one token has 1,000 logits.
"""

import pytest

from advisor.domain.scenario import ScenarioError, dump_scenario
from advisor.domain.sizing.memory import (
    LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC,
    LENGTH_DRIFT_HIGH_OF_DYNAMIC,
    LENGTH_DRIFT_OF_DYNAMIC,
    MemoryModel,
    layout_of,
    length_drift_share,
    memory_assumptions,
)
from tests.unit.test_sizing_third_pass import small

VOCAB = 1000


@pytest.mark.parametrize(
    ("changes", "bytes_per_logit"),
    [
        # Whole vocabulary (the Trainer path): at the backward of the log-softmax, its saved fp32
        # output, nll_loss's fp32 gradient and its own fp32 gradient: 4 + 4 + 4.
        ({}, 12),
        # fp32 logits are not copied by .float(); the backward still holds three fp32 tensors.
        ({"precision": "fp32"}, 12),
        # Chunked, eager: the 16-bit chunks (2) and each chunk's saved fp32 log-softmax (4).
        ({"loss_chunking": True}, 2 + 4),
        ({"loss_chunking": True, "torch_compile": False}, 2 + 4),
        # Chunked, compiled: the kernel keeps the 16-bit chunk itself, nothing more.
        ({"loss_chunking": True, "torch_compile": True}, 2),
        # fp32 compute: the chunks are fp32 already (4), the eager log-softmax adds 4.
        ({"loss_chunking": True, "precision": "fp32"}, 4 + 4),
        # Compile changes only the chunked loss.
        ({"torch_compile": True}, 12),
    ],
)
def test_bytes_per_logit_by_hand(changes, bytes_per_logit):
    assert MemoryModel(small(**changes)).logit_bytes_per_token == VOCAB * bytes_per_logit


def test_the_compiled_chunked_loss_at_the_peak():
    # 4 x 4096 = 16,384 tokens x 1,000 logits: eager chunked 16,384,000 x 6 = 98,304,000 bytes,
    # compiled 16,384,000 x 2 = 32,768,000 bytes.
    eager = small(micro_batch=4, seq_len=4096, loss_chunking=True)
    compiled = small(micro_batch=4, seq_len=4096, loss_chunking=True, torch_compile=True)
    layout = layout_of(eager)
    assert MemoryModel(eager).activation_bytes(layout)[1] == 98_304_000
    assert MemoryModel(compiled).activation_bytes(layout)[1] == 32_768_000


def test_torch_compile_is_optional_and_round_trips():
    assert "torch_compile" not in dump_scenario(small())
    assert dump_scenario(small(torch_compile=True))["torch_compile"] is True
    assert dump_scenario(small(torch_compile=None))["torch_compile"] is None
    with pytest.raises(ScenarioError) as error:
        small(torch_compile="yes")
    assert error.value.field == "torch_compile"


def test_the_assumptions_say_whether_the_chunked_loss_was_compiled():
    def said(**changes):
        return " ".join(m.render() for m in memory_assumptions(small(**changes)))

    assert "each chunk's fp32 log-softmax is counted" in said(loss_chunking=True)
    assert "keeps only the 16-bit logits" in said(loss_chunking=True, torch_compile=True)
    assert "torch.compile" not in said()


# --- What removes the length drift: grouping by length, emptying the cache -------------------


def unpacked(**changes):
    return small(packed=False, gradient_checkpointing=True, **changes)


@pytest.mark.parametrize(
    ("changes", "controls"),
    [
        ({}, None),
        ({"length_grouped": True}, (True, False)),
        ({"empty_cache_steps": 1}, (False, True)),
        ({"length_grouped": True, "empty_cache_steps": 1}, (True, True)),
        ({"empty_cache_steps": 10}, None),  # every 10 steps: not replayed, read as not emptied
        ({"length_grouped": False}, None),
    ],
)
def test_the_drift_share_follows_the_replayed_controls(changes, controls):
    for checkpointed in (True, False):
        scenario = small(packed=False, gradient_checkpointing=checkpointed, **changes)
        unstated = LENGTH_DRIFT_OF_DYNAMIC[checkpointed]
        high = LENGTH_DRIFT_HIGH_OF_DYNAMIC[checkpointed]
        if controls is None:
            expected, expected_high = unstated, high
        else:
            replayed = LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC[controls][checkpointed]
            expected, expected_high = min(unstated, replayed), min(high, replayed)
        assert length_drift_share(scenario) == expected
        assert length_drift_share(scenario, high=True) == expected_high


def test_grouping_lowers_the_reading_by_hand():
    # Checkpointed, 1 x 1024 tokens: the drift is the share times the dynamic peak
    # (activations and logits), and the total does not move.
    plain = MemoryModel(unpacked())
    grouped = MemoryModel(unpacked(length_grouped=True))
    layout = layout_of(plain.scenario)
    dynamic = sum(plain.activation_bytes(layout)) / 2**30
    a, b = plain.per_gpu(layout), grouped.per_gpu(layout)
    assert a.length_drift == pytest.approx(LENGTH_DRIFT_OF_DYNAMIC[True] * dynamic)
    share = LENGTH_DRIFT_CONTROLLED_OF_DYNAMIC[(True, False)][True]
    assert b.length_drift == pytest.approx(share * dynamic)
    assert b.total == a.total and b.length_drift < a.length_drift


def test_packed_runs_have_no_drift_whatever_is_stated():
    assert length_drift_share(small(packed=True, length_grouped=True, empty_cache_steps=1)) == 0


def test_the_drift_fields_are_optional_and_round_trip():
    document = dump_scenario(small())
    assert "length_grouped" not in document and "empty_cache_steps" not in document
    document = dump_scenario(small(length_grouped=True, empty_cache_steps=5))
    assert document["length_grouped"] is True and document["empty_cache_steps"] == 5
    with pytest.raises(ScenarioError) as error:
        small(empty_cache_steps=0)
    assert error.value.field == "empty_cache_steps"


def test_the_assumptions_say_what_lowers_the_reading():
    def said(**changes):
        return " ".join(m.render() for m in memory_assumptions(unpacked(**changes)))

    assert "longest batch first" in said(length_grouped=True)
    assert "emptied at every step" in said(empty_cache_steps=1)
    assert "emptied every 10 steps" in said(empty_cache_steps=10)
    assert "emptied" not in said() and "grouped" not in said()
