"""Links inside and between servers, and the inter-node bandwidth a job needs."""

from dataclasses import replace
from pathlib import Path

import pytest

from advisor.domain.hardware import load_fixture_specs
from advisor.domain.scenario import load_scenario
from advisor.domain.sizing.compute import estimate_time
from advisor.domain.sizing.network import COLLECTIVE_EFFICIENCY, links_for, one_way_gbs
from advisor.domain.sizing.network_need import estimate_network
from tests.support.scenarios import llama2_7b_full

ROOT = Path(__file__).resolve().parents[2]
ACCELERATORS, SERVERS = load_fixture_specs(ROOT / "fixtures" / "catalog")


@pytest.mark.parametrize(
    ("accelerator", "server", "topology", "intra_gbs"),
    [
        # NVLink 4 via NVSwitch: 900 GB/s both ways -> 450 each way x 0.8 achieved = 360
        ("h100-sxm-80gb", "dgx-h100", "nvswitch", 360.0),
        # A800: NVLink cut to 400 GB/s -> 200 x 0.8 = 160
        ("a800-sxm-80gb", "hgx-a800-8gpu", "nvswitch", 160.0),
        # 8 x L40S behind a PCIe 4.0 switch: 64 GB/s -> 32 x 0.8 = 25.6
        ("l40s-48gb", "supermicro-sys-521ge-tnrt-l40s", "pcie-switch", 25.6),
        # Atlas 800T A2: HCCS full mesh, 392 GB/s aggregate -> 196 x 0.8 = 156.8
        ("ascend-910b-64gb", "atlas-800t-a2", "hccs-mesh", 156.8),
        # No server named: the card's own link; an RTX 4090 has no figure -> PCIe 4.0 x16
        ("rtx-4090-24gb", None, "pcie-switch", 25.6),
        ("h20-96gb", None, "nvswitch", 360.0),
    ],
)
def test_intra_server_links(accelerator, server, topology, intra_gbs):
    links = links_for(ACCELERATORS[accelerator], SERVERS.get(server))
    assert links.topology == topology
    assert links.intra_node_gbs == pytest.approx(intra_gbs)


def test_nics_between_servers():
    # DGX H100: 8 x 400 Gb/s for 8 GPUs = 400 Gb/s per GPU = 50 GB/s x 0.8 = 40 GB/s
    assert links_for(ACCELERATORS["h100-sxm-80gb"], SERVERS["dgx-h100"]).inter_node_gbs == 40
    # no server: one 200 Gb/s NIC per GPU = 25 GB/s x 0.8 = 20 GB/s
    assert links_for(ACCELERATORS["h100-sxm-80gb"]).inter_node_gbs == 20


def test_a_mesh_gives_a_small_group_only_its_direct_links():
    links = links_for(ACCELERATORS["ascend-910b-64gb"], SERVERS["atlas-800t-a2"])
    # 4 of 8 NPUs: 3 of the 7 links -> 156.8 x 3 / 7 = 67.2 GB/s
    assert links.collective_gbs(4, spans_servers=False) == pytest.approx(156.8 * 3 / 7)
    assert links.collective_gbs(8, spans_servers=False) == pytest.approx(156.8)


def test_nvlink_bridges_join_pairs_only():
    links = links_for(ACCELERATORS["a100-pcie-80gb"])
    assert links.topology == "nvlink-pairs"
    assert links.collective_gbs(2, spans_servers=False) == pytest.approx(one_way_gbs(600))
    assert links.collective_gbs(4, spans_servers=False) == pytest.approx(links.pcie_gbs)


def test_crossing_servers_is_paced_by_the_slower_hop():
    links = links_for(ACCELERATORS["h100-sxm-80gb"], SERVERS["dgx-h100"])
    assert links.collective_gbs(16, spans_servers=True) == links.inter_node_gbs


SCENARIO = llama2_7b_full("h100-sxm-80gb", "zero1")


def test_one_server_needs_no_inter_node_network():
    scenario = load_scenario(SCENARIO)
    server = SERVERS["dgx-h100"]
    time = estimate_time(scenario, ACCELERATORS["h100-sxm-80gb"], gpus=8, server=server)
    network = estimate_network(time, server)
    assert not network.multi_node and network.needed_gbps_per_gpu is None
    assert network.assumptions


def test_two_servers_need_the_gradient_sync_rate_hand_computed():
    scenario = load_scenario(SCENARIO)
    server = SERVERS["dgx-h100"]
    time = estimate_time(scenario, ACCELERATORS["h100-sxm-80gb"], gpus=16, server=server)
    network = estimate_network(time, server)
    assert network.multi_node and network.servers == 2
    # ZeRO-1 over 16 GPUs: all-reduce of 16-bit gradients, 2 x 15/16 x P x 2 bytes per step
    sent = 2 * 15 / 16 * 6_738_415_616 * 2
    assert network.bytes_per_step_per_gpu == pytest.approx(sent)
    # to be hidden behind the last micro-batch's backward: bits / window / achieved share
    window = time.communication.overlap_window_s
    need = sent * 8 / 1e9 / window / COLLECTIVE_EFFICIENCY
    assert network.needed_gbps_per_gpu == pytest.approx(need)
    assert network.needed_gbps_per_server == pytest.approx(need * 8)
    assert network.offered_gbps_per_server == 8 * 400
    assert network.rdma is True
    assert network.sufficient == (need * 8 <= 3200)


def test_lora_needs_far_less_network_than_full_fine_tuning():
    server = SERVERS["dgx-h100"]
    full = estimate_time(load_scenario(SCENARIO), ACCELERATORS["h100-sxm-80gb"], 16, server)
    lora_data = {
        **SCENARIO,
        "method": "lora",
        "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"},
    }
    lora = estimate_time(load_scenario(lora_data), ACCELERATORS["h100-sxm-80gb"], 16, server)
    full_need = estimate_network(full, server).needed_gbps_per_gpu
    lora_need = estimate_network(lora, server).needed_gbps_per_gpu
    assert lora_need < full_need / 50


def test_plain_ethernet_is_not_enough_for_a_multi_server_job():
    server = replace(SERVERS["dgx-h100"], nic_kind="ethernet")
    time = estimate_time(load_scenario(SCENARIO), ACCELERATORS["h100-sxm-80gb"], 16, server)
    network = estimate_network(time, server)
    assert network.rdma is False and network.sufficient is False


def test_unknown_throughput_still_reports_the_servers():
    accelerator = replace(
        ACCELERATORS["h100-sxm-80gb"], bf16_dense_tflops=None, fp16_dense_tflops=None
    )
    server = replace(SERVERS["dgx-h100"], nic_kind="ethernet")
    time = estimate_time(load_scenario(SCENARIO), accelerator, 16, server)
    network = estimate_network(time, server)
    assert network.multi_node and network.needed_gbps_per_gpu is None
    assert network.sufficient is False  # plain Ethernet, whatever the need
