"""Enumerating and ranking options: sizing × compliance × economics, with reasons kept."""

from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from advisor.domain.compliance.facts import (
    CERT_ISO9001,
    CERT_ISO27001,
    CERT_MLPS,
    CertificateFacts,
    DataCenterFacts,
    LicenceFacts,
    PolicyZoneFacts,
    VendorFacts,
)
from advisor.domain.economics.inputs import Prices, Site
from advisor.domain.hardware import load_fixture_specs
from advisor.domain.recommend import (
    HardwareCandidate,
    Procurement,
    SiteCandidate,
    recommend,
    size_hardware,
)
from advisor.domain.recommend.decision import decide
from advisor.domain.recommend.options import Sizings
from advisor.domain.scenario import load_scenario

TODAY = date(2026, 11, 29)
ACCELERATORS, SERVERS = load_fixture_specs(Path(__file__).resolve().parents[2] / "fixtures/catalog")


def scenario(method="lora", params_b=8.030261, seq_len=4096, **training):
    return load_scenario(
        {
            "model": {
                "name": "Llama 3.1 8B",
                "params_b": params_b,
                "layers": 32,
                "hidden": 4096,
                "heads": 32,
                "kv_heads": 8,
                "intermediate": 14336,
                "vocab": 128256,
                "tied_embeddings": False,
                "experts": None,
                "experts_per_token": None,
            },
            "method": method,
            "lora": {"rank": 16, "alpha": 32, "targets": "all-linear"}
            if method != "full"
            else None,
            "precision": "bf16",
            "quant_bits": None,
            "optimizer": "adamw",
            "optimizer_in_backward": False,
            "seq_len": seq_len,
            "micro_batch": 1,
            "grad_accum": 8,
            "gradient_checkpointing": True,
            "flash_attention": True,
            "packed": True,
            "hardware": {"accelerator": None, "count": 1, "nodes": 1},
            "parallelism": {
                "strategy": "single",
                "offload": "none",
                "tensor_parallel": 1,
                "pipeline_parallel": 1,
            },
            "training": {
                "dataset_tokens": training.get("dataset_tokens", 200_000_000),
                "epochs": training.get("epochs", 3),
            },
        }
    )


def hardware(server_key, family, *, domestic=False, buy=2_000_000, rent=90_000, cloud=30):
    server = SERVERS[server_key]
    return HardwareCandidate(
        accelerator=ACCELERATORS[server.accelerator_key],
        server=server,
        family=family,
        domestic=domestic,
        prices=Prices(
            purchase_cny_per_server=Decimal(buy),
            rent_cny_per_server_month=Decimal(rent),
            cloud_cny_per_gpu_hour=Decimal(cloud),
        ),
    )


GOOD_VENDOR = VendorFacts(
    key="good",
    name="Good IDC",
    licences=(LicenceFacts(number="B1-1", categories=("B11",), valid_until=date(2030, 1, 1)),),
    icp_filing_number="黔ICP备1号",
    certificates=(
        CertificateFacts(
            kind=CERT_ISO27001,
            edition="2022",
            valid_until=date(2028, 1, 1),
            last_audit_on=date(2026, 6, 1),
        ),
        CertificateFacts(kind=CERT_ISO9001, valid_until=date(2028, 1, 1)),
        CertificateFacts(kind=CERT_MLPS, level=3, last_audit_on=date(2026, 5, 1)),
    ),
)


def site(key="guiyang", *, tariff="0.45", pue=1.2, max_rack_kw=40.0, vendor=GOOD_VENDOR):
    return SiteCandidate(
        data_center=DataCenterFacts(
            key=key,
            name=key,
            pue=pue,
            max_rack_kw=max_rack_kw,
            cooling_kinds=("air", "direct-liquid"),
            dual_utility_feeds=True,
            ups_backup_min=30,
            generator_start_s=15,
            self_operated=True,
        ),
        vendor=vendor,
        zone=PolicyZoneFacts(key="guizhou", pue_limit=1.2),
        costs=Site(
            key=key,
            name=key,
            tariff_cny_per_kwh=Decimal(tariff),
            pue=Decimal(str(pue)),
            rack_fee_cny_per_month=Decimal(8000),
            rack_power_limit_kw=Decimal(str(max_rack_kw)),
        ),
    )


def test_every_hardware_site_pair_is_an_option():
    result = recommend(
        scenario(),
        [hardware("dgx-h100", "nvidia-hopper"), hardware("hgx-a100-80gb-8gpu", "nvidia-ampere")],
        [site("guiyang"), site("shanghai", tariff="0.75", pue=1.3)],
        today=TODAY,
    )
    # Buying and renting are options of their own: a buyer compares them row by row.
    assert {o.key for o in result.options} == {
        "dgx-h100@guiyang",
        "dgx-h100@shanghai",
        "hgx-a100-80gb-8gpu@guiyang",
        "hgx-a100-80gb-8gpu@shanghai",
        "dgx-h100@guiyang:rent",
        "dgx-h100@shanghai:rent",
        "hgx-a100-80gb-8gpu@guiyang:rent",
        "hgx-a100-80gb-8gpu@shanghai:rent",
    }
    assert {o.mode for o in result.options} == {"buy", "rent"}


def test_lora_8b_needs_one_server_and_is_sized_on_whole_servers():
    result = size_hardware(scenario(), hardware("dgx-h100", "nvidia-hopper"), Procurement())
    assert result.fits
    assert result.servers == 1
    assert result.layout.gpus == 8  # you buy whole servers: every GPU of it is used


def test_deadline_adds_servers_until_met():
    slow = scenario(dataset_tokens=2_000_000_000, epochs=3)
    relaxed = size_hardware(slow, hardware("dgx-h100", "nvidia-hopper"), Procurement())
    deadline = relaxed.time.time_to_train_hours / 2.5
    rushed = size_hardware(
        slow, hardware("dgx-h100", "nvidia-hopper"), Procurement(deadline_hours=deadline)
    )
    assert rushed.servers > relaxed.servers
    assert rushed.time.time_to_train_hours <= deadline


def test_the_sizings_a_recommendation_keeps_are_the_sizings_made_alone():
    """One ``Sizings`` for every hardware (and the deadline's extra servers): each sizing is the
    one made without it, and the same request is answered by the same result."""
    slow = scenario(dataset_tokens=2_000_000_000, epochs=3)
    sizings = Sizings(slow)
    pairs = [("dgx-h100", "nvidia-hopper"), ("hgx-a100-80gb-8gpu", "nvidia-ampere")]
    for procurement in (Procurement(), Procurement(deadline_hours=50)):
        for server, accelerator in pairs:
            candidate = hardware(server, accelerator)
            kept = size_hardware(slow, candidate, procurement, sizings)
            assert kept == size_hardware(slow, candidate, procurement)
            assert size_hardware(slow, candidate, procurement, sizings) is kept


def test_option_that_does_not_fit_stays_with_the_reason():
    full_70b = scenario(method="full", params_b=70.553706)
    full_70b = replace(
        full_70b,
        model=replace(full_70b.model, layers=80, hidden=8192, heads=64, intermediate=28672),
    )
    result = recommend(
        full_70b,
        [hardware("supermicro-sys-521ge-tnrt-l40s", "nvidia-ada")],
        [site()],
        Procurement(modes=("buy",), max_servers=1),
        today=TODAY,
    )
    (option,) = result.options
    assert not option.qualifies
    text = " ".join(r.render() for r in option.reasons)
    assert "does not fit:" in text and "GiB needed per GPU" in text
    assert result.rankings["recommended"] == ()


@pytest.mark.parametrize(
    ("procurement", "expected_reason"),
    [
        (Procurement(modes=("buy",), domestic_only=True), "not a domestic accelerator"),
        (Procurement(modes=("buy",), exclude_accelerators=("h100-sxm-80gb",)), "excluded by you"),
        (
            Procurement(modes=("buy",), include_accelerators=("ascend-910b-64gb",)),
            "not among your preferred",
        ),
        (Procurement(modes=("buy",), budget_cny=Decimal(1000)), "over budget"),
        (Procurement(modes=("buy",), deadline_hours=0.01), "misses the deadline"),
    ],
)
def test_buyer_constraints_are_explained(procurement, expected_reason):
    result = recommend(
        scenario(), [hardware("dgx-h100", "nvidia-hopper")], [site()], procurement, today=TODAY
    )
    (option,) = result.options
    assert any(expected_reason in r.render() for r in option.reasons)


def test_failed_blocker_disqualifies_and_is_named():
    unlicensed = replace(GOOD_VENDOR, licences=())
    result = recommend(
        scenario(),
        [hardware("dgx-h100", "nvidia-hopper")],
        [site(vendor=unlicensed)],
        Procurement(modes=("buy",)),
        today=TODAY,
    )
    (option,) = result.options
    assert option.compliance.verdict == "not-eligible"
    assert any("fails a veto check" in r.render() for r in option.reasons)
    assert "veto:VENDOR-TELECOM-LICENCE" in option.reason_codes


def test_cheaper_site_ranks_first_and_costs_follow_the_tariff():
    result = recommend(
        scenario(),
        [hardware("dgx-h100", "nvidia-hopper")],
        [site("shanghai", tariff="0.80", pue=1.25), site("guiyang", tariff="0.40", pue=1.15)],
        Procurement(modes=("buy",)),
        today=TODAY,
    )
    first, second = result.options
    assert first.site.data_center.key == "guiyang"
    assert first.cost_cny < second.cost_cny
    assert first.mode == "buy"


def test_rankings_only_hold_qualifying_options_and_fastest_is_by_time():
    result = recommend(
        scenario(),
        [hardware("dgx-h100", "nvidia-hopper"), hardware("hgx-a100-80gb-8gpu", "nvidia-ampere")],
        [site()],
        today=TODAY,
    )
    fastest = result.rankings["fastest_within_budget"]
    assert all(o.qualifies for o in fastest)
    times = [o.time_to_train_hours for o in fastest]
    assert times == sorted(times)
    assert fastest[0].hardware.accelerator.key == "h100-sxm-80gb"


def test_unknown_peak_is_named_instead_of_a_missing_price():
    candidate = hardware("dgx-h100", "nvidia-hopper")
    candidate = replace(
        candidate,
        accelerator=replace(candidate.accelerator, bf16_dense_tflops=None, fp16_dense_tflops=None),
    )
    (option,) = recommend(
        scenario(), [candidate], [site()], Procurement(modes=("buy",)), today=TODAY
    ).options
    texts = [r.render() for r in option.reasons]
    assert any("cannot be estimated" in t for t in texts)
    assert not any("no price" in t for t in texts)


# --- Capacity that can run the job; filters honoured ----------------------------------------

from advisor.domain.recommend import CloudCandidate  # noqa: E402


def clouded(server_key, family, sizes, price="2.36"):
    candidate = hardware(server_key, family)
    offer = CloudCandidate(
        key=f"{server_key}-cloud",
        provider="A cloud",
        price_cny_per_gpu_hour=Decimal(price),
        instance_gpus=sizes,
    )
    return replace(candidate, clouds=(offer,))


def full_14b():
    job = scenario(method="full", params_b=14.77, dataset_tokens=100_000_000, epochs=2)
    return replace(
        job,
        model=replace(job.model, layers=48, hidden=5120, heads=40, intermediate=13824),
    )


def cloud_option(job, sizes, **procurement):
    result = recommend(
        job,
        [clouded("dgx-h100", "nvidia-hopper", sizes)],
        [site()],
        Procurement(modes=("cloud",), **procurement),
        today=TODAY,
    )
    (option,) = result.options
    return option


def test_a_sharded_job_is_never_placed_on_separate_single_gpu_instances():
    option = cloud_option(full_14b(), (1,))
    assert option.sizing.layout.gpus > 1 or not option.sizing.fits
    assert option.obtained.instances == 1
    assert not option.qualifies and option.cost_cny is None
    assert any("instance sizes sold" in r.render() for r in option.reasons)


def test_a_sharded_job_takes_one_instance_whose_gpus_share_the_interconnect():
    option = cloud_option(full_14b(), (1, 8))
    assert option.qualifies
    assert (option.obtained.instances, option.obtained.gpus_per_instance) == (1, 8)
    assert option.sizing.network is None or not option.sizing.network.multi_node


def test_a_7b_lora_job_still_gets_a_one_gpu_instance():
    option = cloud_option(scenario(), (1, 2, 4, 8))
    assert (option.obtained.instances, option.obtained.gpus_per_instance) == (1, 1)
    (line,) = option.cost.lines
    hours = option.economics.inputs.load.hours_per_run
    assert line.quantity == hours and line.amount_cny == round(hours * Decimal("2.36"), 2)


def test_cloud_cost_is_the_card_hours_of_the_instance_actually_used():
    one = cloud_option(scenario(), (1, 2, 4, 8))
    eight = cloud_option(scenario(), (8,))
    for option in (one, eight):
        load = option.economics.inputs.load
        gpus = option.sizing.layout.gpus
        assert option.cost.lines[0].quantity == gpus * load.hours_per_run
    # Each pays for the instance it uses, not for the largest one sold.
    assert one.sizing.layout.gpus < eight.sizing.layout.gpus == 8


def test_only_the_modes_asked_for_become_options():
    candidates = [clouded("dgx-h100", "nvidia-hopper", (8,))]
    for modes, expected in [
        (("cloud",), {"cloud"}),
        (("buy",), {"buy"}),
        (("rent",), {"rent"}),
        (("buy", "cloud"), {"buy", "cloud"}),
    ]:
        result = recommend(scenario(), candidates, [site()], Procurement(modes=modes), today=TODAY)
        assert {o.mode for o in result.options} == expected, modes


def test_an_unpriced_server_keeps_one_option_that_says_what_is_missing():
    unpriced = replace(hardware("dgx-h100", "nvidia-hopper"), prices=Prices())
    result = recommend(scenario(), [unpriced], [site()], today=TODAY)
    (option,) = result.options
    # Unpriced, it keeps its procurement mode but is neither qualifying nor ranked.
    assert option.cost_cny is None and option.mode == "buy"
    assert option.unpriced and option.meets_requirements and not option.qualifies
    assert result.rankings["recommended"] == () and result.unpriced == (option,)
    rent_only = recommend(
        scenario(), [unpriced], [site()], Procurement(modes=("rent",)), today=TODAY
    )
    assert [o.mode for o in rent_only.options] == ["rent"]
    assert rent_only.options[0].key.endswith(":rent")


def test_unpriced_options_follow_the_priced_ones_and_are_not_ranked():
    priced = hardware("dgx-h100", "nvidia-hopper")
    unpriced = replace(hardware("hgx-h100-8gpu", "nvidia-hopper"), prices=Prices())
    buy = Procurement(modes=("buy",))
    result = recommend(scenario(), [unpriced, priced], [site()], buy, today=TODAY)
    keys = [o.key for o in result.options]
    assert [o.key for o in result.rankings["recommended"]] == keys[:1]
    assert [o.key for o in result.unpriced] == keys[1:]
    decision = decide(result)
    assert (decision.qualifying, decision.unpriced) == (1, 1)
    assert decision.unpriced_examples == result.unpriced


def test_servers_with_the_same_load_share_one_load_object():
    """``server_load`` with a recommendation's ``PricingCache`` gives every sizing with the
    same figures one object (what is priced per load is priced once for them), one that reads
    apart another, and another recommendation its own."""
    from advisor.domain.recommend.options import PricingCache, server_load

    job = scenario()
    pricing = PricingCache()
    sized = [
        size_hardware(job, hardware("dgx-h100", "nvidia-hopper"), Procurement()) for _ in range(2)
    ]
    dgx = server_load(sized[0], pricing)
    assert server_load(sized[1], pricing) is dgx
    written_apart = replace(dgx, power_full_kw=Decimal(f"{dgx.power_full_kw}0"))
    assert written_apart == dgx
    assert pricing.one_load(written_apart) is not dgx
    assert pricing.one_load(replace(dgx, server_count=2)).server_count == 2
    assert server_load(sized[1], PricingCache()) is not dgx
    assert server_load(sized[1]) == dgx
