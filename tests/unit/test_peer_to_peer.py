"""Cards without peer-to-peer: collectives inside a server go through host memory."""

from dataclasses import replace
from pathlib import Path

import pytest

from advisor.domain.hardware import load_fixture_specs
from advisor.domain.scenario import load_scenario
from advisor.domain.sizing.compute import estimate_time, tokens_per_second
from advisor.domain.sizing.network import HOST_STAGED_SHARE, links_for
from tests.support.scenarios import llama2_7b_full

ROOT = Path(__file__).resolve().parents[2]
ACCELERATORS, SERVERS = load_fixture_specs(ROOT / "fixtures" / "catalog")
RTX_4090 = ACCELERATORS["rtx-4090-24gb"]
LLAMA2_7B_PARAMS = 6_738_415_616

NO_P2P_MESSAGE = "cannot reach each other's memory directly (no peer-to-peer)"
UNKNOWN_P2P_MESSAGE = "The catalog does not say whether {accelerator} cards"

# Full fine-tune of Llama 2 7B with ZeRO-3 on 8 GPUs of one server.
SCENARIO = llama2_7b_full("rtx-4090-24gb", "zero3")


def _ids(time) -> list[str]:
    return [message.template for message in time.assumptions]


def test_the_catalog_records_that_the_4090_has_no_peer_to_peer():
    assert RTX_4090.peer_to_peer is False
    assert "NCCL_SHM_DISABLE" in Path(ROOT / "fixtures/catalog/10_accelerators.json").read_text()
    # No other record states it: the rest is unknown, never assumed in the catalog.
    others = {key for key, spec in ACCELERATORS.items() if spec.peer_to_peer is not None}
    assert others == {"rtx-4090-24gb"}


def test_without_peer_to_peer_a_server_collective_gets_half_the_pcie_figure():
    staged = links_for(RTX_4090)
    direct = links_for(replace(RTX_4090, peer_to_peer=None))
    # PCIe 4.0 x16: 64 GB/s both ways -> 32 each way x 0.8 achieved = 25.6; through host
    # memory each byte crosses PCIe twice: 12.8
    assert direct.collective_gbs(8, spans_servers=False) == pytest.approx(25.6)
    assert staged.collective_gbs(8, spans_servers=False) == pytest.approx(12.8)
    assert HOST_STAGED_SHARE == 0.5
    # across servers the slower hop still sets the pace: min(12.8, 200 Gb/s NIC -> 20) = 12.8
    assert staged.collective_gbs(16, spans_servers=True) == pytest.approx(12.8)
    # a single GPU has no collective to slow down
    assert staged.collective_gbs(1, spans_servers=False) == direct.intra_node_gbs


def test_zero3_on_eight_4090s_hand_worked():
    scenario = load_scenario(SCENARIO)
    staged = estimate_time(scenario, RTX_4090, gpus=8)
    direct = estimate_time(scenario, replace(RTX_4090, peer_to_peer=True), gpus=8)
    # ZeRO-3 per micro-batch: all-gather of the 16-bit weights for the forward and again for
    # the backward, reduce-scatter of the 16-bit gradients; each sends 7/8 of the buffer.
    # 4 micro-batches: 4 x 3 x 7/8 x 6,738,415,616 x 2 B = 141.5 GB per GPU and step.
    sent = 4 * 3 * 7 / 8 * LLAMA2_7B_PARAMS * 2
    assert sent == pytest.approx(141.5e9, rel=1e-3)
    assert staged.communication.bytes_per_step == pytest.approx(sent)
    assert direct.communication.bytes_per_step == pytest.approx(sent)
    # 141.5 GB at 25.6 GB/s = 5.53 s with peer-to-peer; at 12.8 GB/s = 11.06 s without
    assert direct.communication.data_parallel_gbs == pytest.approx(25.6)
    assert staged.communication.data_parallel_gbs == pytest.approx(12.8)
    assert direct.communication.data_parallel_s == pytest.approx(5.53, abs=0.01)
    assert staged.communication.data_parallel_s == pytest.approx(11.06, abs=0.01)
    assert staged.communication.data_parallel_exposed_s > (
        direct.communication.data_parallel_exposed_s
    )
    assert staged.tokens_per_s < direct.tokens_per_s


def test_the_sweep_path_prices_the_same_slowdown():
    scenario = load_scenario(SCENARIO)
    staged = tokens_per_second(scenario, RTX_4090, gpus=8)
    assert staged == pytest.approx(estimate_time(scenario, RTX_4090, gpus=8).tokens_per_s)
    assert staged < tokens_per_second(scenario, replace(RTX_4090, peer_to_peer=True), gpus=8)


def test_the_assumptions_say_what_was_taken_for_peer_to_peer():
    scenario = load_scenario(SCENARIO)
    stated = _ids(estimate_time(scenario, RTX_4090, gpus=8))
    assert any(NO_P2P_MESSAGE in msgid for msgid in stated)
    unknown = _ids(estimate_time(scenario, replace(RTX_4090, peer_to_peer=None), gpus=8))
    assert any(msgid.startswith(UNKNOWN_P2P_MESSAGE) for msgid in unknown)
    assert not any(NO_P2P_MESSAGE in msgid for msgid in unknown)
    known = _ids(estimate_time(scenario, replace(RTX_4090, peer_to_peer=True), gpus=8))
    assert not any("peer-to-peer" in msgid for msgid in known)
    # NVLink parts: their collectives do not ride PCIe, so nothing is assumed about it.
    h100 = ACCELERATORS["h100-sxm-80gb"]
    assert h100.peer_to_peer is None
    nvlink = _ids(estimate_time(scenario, h100, gpus=8))
    assert not any("peer-to-peer" in msgid for msgid in nvlink)


def test_one_gpu_needs_no_peer_to_peer():
    scenario = load_scenario({**SCENARIO, "hardware": {**SCENARIO["hardware"], "count": 1}})
    alone = _ids(estimate_time(scenario, RTX_4090, gpus=1))
    assert not any("peer-to-peer" in msgid for msgid in alone)
