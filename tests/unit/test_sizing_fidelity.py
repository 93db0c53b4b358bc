"""Fidelity of the sizing engine on the public reference cases (issue 3's acceptance).

Memory: every measured case with ``"memory"`` in ``uses``, its scenario given the training
framework its own source and notes name (``ReferenceCase.named_framework``: v1 cannot carry it,
the optional ``framework`` field can); peaks compared at the case's metric (allocated;
reserved, or the device reading when unknown, both with the allocator's length drift). Fails below: median |error|
<= 10 %, >= 85 % within +/-20 %, no under-prediction beyond 15 %, every reported out-of-memory
run predicted not to fit, every "fits within N GiB" claim at or below N. Published estimates are
printed by ``bench/sizing_fidelity.py`` for comparison, not scored.

Throughput: every measured ``"throughput"`` case through :func:`size` (the whole path the CLI
takes), median |error| <= 25 %.

The stored memory band (``MEMORY_ERROR_P10``/``P90``) must match the percentiles recomputed here.
"""

import statistics
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.domain.sizing import memory, reference
from advisor.domain.sizing.reference import load_cases, summarise
from tests.support.bench import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("sizing_fidelity")


@pytest.fixture(scope="module")
def cases():
    return load_cases()


@pytest.fixture(scope="module")
def scores(bench, cases):
    """With the framework each case's source names: the figures for a scenario that states it."""
    return bench.memory_scores(cases, named_framework=True)


@pytest.fixture(scope="module")
def errors(bench, scores):
    return dict((s.case_id, s.error) for s in scores if s.measured_case and s.error is not None)


@pytest.fixture(scope="module")
def folds(bench, cases):
    return bench.leave_one_source_out(cases, bench.accelerators())


def test_every_measured_memory_case_is_scored(cases, scores):
    expected = {c.id for c in cases if "memory" in c.uses and c.is_measured}
    assert {s.case_id for s in scores if s.measured_case} == expected
    assert len(expected) >= 40


def test_memory_median_absolute_error_at_most_10_percent(errors):
    median = statistics.median(abs(e) for e in errors.values())
    assert median <= 0.10, f"median |error| {median:.1%}"


def test_at_least_85_percent_of_memory_cases_within_20_percent(errors):
    outside = {case: f"{e:+.0%}" for case, e in errors.items() if abs(e) > 0.20}
    share = 1 - len(outside) / len(errors)
    assert share >= 0.85, f"{share:.0%} within +/-20%; outside: {outside}"


def test_no_memory_case_under_predicted_by_more_than_15_percent(scores):
    """A device reading lies between what the job needs and the range's upper end: no reading
    may exceed that upper end by more than 15 % (what a buyer is not told to expect)."""
    under = {
        s.case_id: f"{s.under_error:+.0%}"
        for s in scores
        if s.measured_case and s.under_error is not None and s.under_error < -0.15
    }
    assert not under, f"under-predicted (buyer would run out of memory): {under}"


def test_the_range_upper_end_is_never_below_the_planning_figure(scores):
    for s in scores:
        if s.kind == "peak":
            assert s.high_gib >= s.predicted_gib - 1e-9, s.case_id
            assert s.needed_gib <= s.high_gib + 1e-9 or s.metric == "allocated", s.case_id


def test_every_reported_out_of_memory_run_is_predicted_not_to_fit(scores):
    wrong = [s.case_id for s in scores if s.measured_case and s.kind == "oom" and not s.passed]
    assert not wrong


def test_every_fits_within_claim_is_respected(scores):
    wrong = {
        s.case_id: f"{s.predicted_gib:.1f} > {s.measured_gib}"
        for s in scores
        if s.measured_case and s.kind == "fits_within" and not s.passed
    }
    assert not wrong


def test_stored_memory_band_matches_the_measured_percentiles(errors):
    summary = summarise(list(errors.values()))
    assert pytest.approx(summary.p10, abs=0.0015) == memory.MEMORY_ERROR_P10
    assert pytest.approx(summary.p90, abs=0.0015) == memory.MEMORY_ERROR_P90
    assert memory.MEMORY_ERROR_P10 < 0 < memory.MEMORY_ERROR_P90


def test_one_band_whether_the_framework_is_stated_or_not():
    """An unstated framework is sized as the most used stack; the heavier reading of the other
    frameworks raises the band's upper edge (decision 0139), not a second, wider band."""
    stated = replace(load_cases()[0].scenario, framework="hf")
    assert memory.memory_error_band(stated) == memory.memory_error_band(
        replace(stated, framework=None)
    )


def test_throughput_through_size_median_within_25_percent(bench, cases):
    scores = [t for t in bench.throughput_scores(cases) if t.measured_case]
    assert len(scores) >= 30
    median = statistics.median(abs(t.error) for t in scores)
    assert median <= 0.25, f"median |error| {median:.1%}"


def test_the_framework_is_read_from_each_cases_source_not_its_id(cases):
    named = {case.id: case.named_framework for case in cases}
    by_source = {
        "pytorch/torchtune": "torchtune",
        "Lightning-AI/litgpt": "litgpt",
        "huggingface/peft": "hf",
        "QwenLM/Qwen": "hf",
        "MindSpeed-LLM": "megatron",
    }
    for case in cases:
        for source, framework in by_source.items():
            if source in case.source:
                assert named[case.id] == framework, case.id
    # Rule-of-thumb tables name no framework; nothing is guessed for them.
    assert all(named[c.id] is None for c in cases if not c.is_measured)
    # An id is never read: the same case with another source gets that source's framework.
    torchtune_case = next(c for c in cases if c.named_framework == "torchtune")
    moved = replace(torchtune_case, source="huggingface/peft README.md", notes="")
    assert moved.named_framework == "hf"
    cleared = replace(moved, scenario=replace(moved.scenario, framework=None))
    assert cleared.with_named_framework().scenario.framework == "hf"


def test_a_framework_stated_in_the_scenario_is_kept(cases):
    case = next(c for c in cases if c.named_framework == "torchtune")
    stated = replace(case, scenario=replace(case.scenario, framework="hf"))
    assert stated.with_named_framework().scenario.framework == "hf"


def test_cases_state_the_framework_their_source_names(cases):
    """The reference scenarios carry ``framework`` where the source names it (decision 0139),
    so the headline scores each run as it was trained; the patterns only checked the data."""
    for case in cases:
        assert case.scenario.framework == case.named_framework, case.id


def test_without_frameworks_the_range_upper_end_covers_every_stated_reading(bench, cases):
    """The same cases with every framework cleared (the most used stack, the heavier reading
    at the range's upper end): the upper end is never below the stated framework's figure,
    except where the stated framework itself is the heavier one (Megatron's persistent
    gradient buffer), which the unstated reading does not pretend to cover."""
    specs = bench.accelerators()
    cleared = [replace(c, scenario=replace(c.scenario, framework=None)) for c in cases]
    plain = {s.case_id: s for s in reference.score_memory(cleared, specs)}
    named = {s.case_id: s for s in reference.score_memory(cases, specs)}
    assert plain.keys() == named.keys()
    frameworks = {c.id: c.scenario.framework for c in cases}
    for case_id, score in named.items():
        if frameworks[case_id] == "megatron":
            continue
        if score.kind != "peak":  # claims are judged on the planning figure alone
            continue
        assert plain[case_id].high_gib >= score.predicted_gib - 1e-9, case_id


def test_the_reference_cases_ship_with_the_code_each_with_its_public_source():
    from advisor.domain.sizing.reference import CASES_PATH

    assert CASES_PATH.is_file()
    assert CASES_PATH.parent.parent == Path(memory.__file__).parent.parent  # sizing/
    records = reference.case_records()
    assert len(records) >= 80
    for record in records:
        assert record["source"].strip(), record["id"]
        assert (record.get("source_url") or "").startswith("https://"), record["id"]


def test_a_missing_reference_file_fails_instead_of_skipping(tmp_path):
    with pytest.raises(FileNotFoundError):
        reference.load_cases(tmp_path / "absent.json")


# --- Scenario alone, and leave one source out (issue 15) -------------------------------------
# Issue 15's goal on runs the engine was not tuned on: memory median <= 10 %, >= 85 % within
# +/-20 %, none under by more than 15 %, throughput median <= 25 %. All met out of fold since
# decision 0031; these bounds are the figures measured then (docs/sizing.md, "Fidelity"), so
# that a change that makes the honest figures worse fails here. Tightened after issue 29's third
# pass (decisions 0052, 0059: 6.4 % in sample, 8.3 % and 38 of 42 within +/-20 % out of fold),
# and again after decision 0064 (torchtune's README figures read as allocator counters, its
# QLoRA as torchao NF4, its LoRA dropout stated off): 5.5 % in sample and out of fold, 39 of 42
# within +/-20 %. Issue 49 (decisions 0138-0140: the cases state the framework their source
# names, each framework's casts and storage, FSDP's units as each FSDP keeps them): 5.0 % in
# sample, 4.9 % out of fold (the goal: <= 5 %), 39 of 42 within +/-20 %.
SCENARIO_ALONE_MEMORY_MEDIAN = 0.051
OUT_OF_FOLD_MEMORY_MEDIAN = 0.050
OUT_OF_FOLD_MEMORY_WITHIN_20 = 0.92
OUT_OF_FOLD_MEMORY_UNDER_15 = 0
# 18.7 % since decision 0060: stating the head size on the Qwen3-30B-A3B, Gemma 2 and gpt-oss
# cases (physics: their attention is twice or 1.4 times as wide as hidden / heads) tips the Qwen
# fold's launch-overhead pick from 1.4 to 2.0 ms on a 0.1-point difference of its objective; the
# issue's goal (<= 20 %) is the bound that must hold. 17.0 % since decision 0072 (host time by
# loop type: the Qwen fold picks 1.8 ms); the bound tightened to 18 %. 14.7 % since decision 0141
# (issue 49: ZeRO-3's fetch loop, GPTQ's unpacking, the utilisation over every run): the bound is
# issue 49's goal, 15 %.
OUT_OF_FOLD_THROUGHPUT_MEDIAN = 0.15


def test_scenario_alone_never_under_predicts_by_more_than_15_percent(bench, cases):
    scores = bench.memory_scores(cases)
    figures = bench.figures(scores, bench.throughput_scores(cases))
    assert figures.memory_range_under_15 == 0
    assert figures.memory_median <= SCENARIO_ALONE_MEMORY_MEDIAN
    assert figures.claims_agree == figures.claims


def test_every_source_is_held_out_once_and_scored_on_constants_fitted_without_it(
    bench, cases, folds
):
    scored = {c.source_group for c in cases if c.is_measured and c.uses}
    assert {fold.source for fold in folds} == scored
    observations = bench.throughput_observations(cases, bench.accelerators())
    for fold in folds:
        held = {c.id for c in cases if c.source_group == fold.source}
        assert {s.case_id for s in fold.memory} <= held
        assert {t.case_id for t in fold.throughput} <= held
        trained = [o for o in observations if o.case_id not in held]
        assert sum(fold.calibration.cases_by_family.values()) == len(trained), fold.source


def test_out_of_fold_figures_do_not_get_worse(bench, folds):
    figures = bench.out_of_fold_figures(folds)
    assert figures.memory_cases >= 40 and figures.throughput_cases >= 30
    assert figures.memory_median <= OUT_OF_FOLD_MEMORY_MEDIAN
    assert figures.memory_within_20 >= OUT_OF_FOLD_MEMORY_WITHIN_20
    assert figures.memory_range_under_15 <= OUT_OF_FOLD_MEMORY_UNDER_15
    assert figures.claims_agree == figures.claims
    assert figures.throughput_median <= OUT_OF_FOLD_THROUGHPUT_MEDIAN


def test_out_of_fold_figures_by_mechanism_group_cover_every_scored_case_once(bench, cases, folds):
    """Issue 49 item 6: per dimension (packing, framework, strategy, method) every measured
    peak and throughput run scored out of fold is in exactly one group."""
    rows = bench.group_rows(cases, folds)
    figures = bench.out_of_fold_figures(folds)
    assert [d for d, _ in bench.GROUP_DIMENSIONS] == ["packing", "framework", "strategy", "method"]
    for dimension, _ in bench.GROUP_DIMENSIONS:
        mine = [row for row in rows if row.dimension == dimension]
        assert sum(row.memory_cases for row in mine) == figures.memory_cases, dimension
        assert sum(row.throughput_cases for row in mine) == figures.throughput_cases, dimension


def test_a_groups_out_of_fold_median_is_its_own_cases(bench, cases, folds):
    by_id = {case.id: case for case in cases}
    unpacked = [
        abs(t.error)
        for fold in folds
        for t in fold.throughput
        if by_id[t.case_id].scenario.packed is False
    ]
    row = next(
        r
        for r in bench.group_rows(cases, folds)
        if (r.dimension, r.group) == ("packing", "unpacked")
    )
    assert row.throughput_cases == len(unpacked) > 0
    assert row.throughput_median == pytest.approx(statistics.median(unpacked))


def test_no_prediction_reads_a_cases_id_or_source(bench, cases):
    """The same scenario under another id and source gets the same figures."""
    specs = bench.accelerators()
    for case in cases[:: max(1, len(cases) // 12)]:
        moved = replace(case, id="renamed-" + case.id, source="elsewhere", notes="")
        a, b = reference.score_memory([case], specs), reference.score_memory([moved], specs)
        assert [s.predicted_gib for s in a] == [s.predicted_gib for s in b], case.id
