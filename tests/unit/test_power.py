"""Power and heat per server and per rack."""

import math
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.domain.hardware import load_fixture_specs
from advisor.domain.sizing.power import (
    BTU_PER_HOUR_PER_W,
    estimate_power,
    servers_per_rack_within,
)

ROOT = Path(__file__).resolve().parents[2]
ACCELERATORS, SERVERS = load_fixture_specs(ROOT / "fixtures" / "catalog")


def test_catalog_rating_is_used_when_present():
    # DGX H100: rated 10.2 kW; typical while training 0.76 x 10.2 = 7.752 kW
    p = estimate_power(ACCELERATORS["h100-sxm-80gb"], 8, SERVERS["dgx-h100"])
    assert p.from_catalog
    assert p.max_w_per_server == 10_200
    assert p.typical_w_per_server == pytest.approx(7_752)
    # 10,200 W x 3.412 = 34,802.4 BTU/h (the DGX user guide lists 38,557 BTU/h for its
    # 11.3 kW input rating at the PSUs; heat follows the load)
    assert p.btu_per_hour_per_server == pytest.approx(34_802.4)


@pytest.mark.parametrize(
    ("accelerator", "gpus", "max_w"),
    [
        # 8 x 350 W x 10.2 / 5.6 = 5,100 W (the 8 x L40S server is quoted at up to ~5 kW)
        ("l40s-48gb", 8, 8 * 350 * 10.2 / 5.6),
        # 8 x 400 W Ascend 910B: 5,828.6 W
        ("ascend-910b-64gb", 8, 8 * 400 * 10.2 / 5.6),
        # 2 x RTX 4090 in one box: 2 x 450 x 1.821 = 1,639.3 W
        ("rtx-4090-24gb", 2, 2 * 450 * 10.2 / 5.6),
    ],
)
def test_power_built_up_from_gpu_tdp(accelerator, gpus, max_w):
    p = estimate_power(ACCELERATORS[accelerator], gpus)
    assert not p.from_catalog
    assert p.max_w_per_server == pytest.approx(max_w)
    assert p.typical_w_per_server == pytest.approx(max_w * 0.76)
    assert p.btu_per_hour_per_server == pytest.approx(max_w * BTU_PER_HOUR_PER_W)


def test_servers_and_racks():
    # 32 GPUs = 4 DGX H100; 2 per rack = 2 racks of 20.4 kW, 69,604.8 BTU/h each
    p = estimate_power(ACCELERATORS["h100-sxm-80gb"], 32, SERVERS["dgx-h100"], servers_per_rack=2)
    assert p.servers == 4 and p.racks == 2
    assert p.max_kw_per_rack == pytest.approx(20.4)
    assert p.btu_per_hour_per_rack == pytest.approx(2 * 10_200 * 3.412)
    assert p.total_max_kw == pytest.approx(40.8)


def test_energy_follows_typical_draw_and_hours():
    p = estimate_power(ACCELERATORS["h100-sxm-80gb"], 16, SERVERS["dgx-h100"], training_hours=10)
    # 2 servers x 7.752 kW x 10 h = 155.04 kWh
    assert p.energy_kwh == pytest.approx(155.04)


def test_servers_per_rack_within_a_budget():
    # NVIDIA's 40.8 kW rack holds four 10.2 kW DGX H100; 20 kW holds one
    assert servers_per_rack_within(40.8, 10_200) == 4
    assert servers_per_rack_within(20.0, 10_200) == 1
    assert servers_per_rack_within(5.0, 10_200) == 0


def test_unknown_tdp_and_rating_gives_no_estimate():
    accelerator = replace(ACCELERATORS["h100-sxm-80gb"], tdp_w=None)
    assert estimate_power(accelerator, 8) is None


def test_partial_server_counts_its_own_gpus():
    p = estimate_power(ACCELERATORS["a100-sxm-80gb"], 3)
    assert p.servers == 1 and p.gpus_per_server == 3
    assert math.isclose(p.max_w_per_server, 3 * 400 * 10.2 / 5.6)
