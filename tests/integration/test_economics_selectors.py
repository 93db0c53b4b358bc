"""Catalog → economics: a seeded 8 × H100 server priced at the seeded Gui'an and Shanghai sites.

The sizing's figures for the job are given as the sizing would report them (10.2 kW at full
load, 3.06 kW idle, 8 U; a 100-hour run on 8 GPUs = 800 GPU-hours). Site and offer figures
come from the loaded catalog; the catalog leaves some of them empty (no official Guizhou
tariff, no Gui'an rack price), and the selector must name those instead of pricing them as
zero. The buyer's figures then fill the gaps.
"""

from datetime import date
from decimal import Decimal as D

import pytest

from advisor.catalog.economics import (
    MissingFigures,
    economics_inputs,
    option_inputs,
    prices_for,
    site_figures,
)
from advisor.domain.economics import BUY, RENT, Overrides, ServerLoad, compare_sites
from advisor.domain.economics.inputs import (
    BASIS_CLAIM,
    BASIS_EXAMPLE,
    BASIS_OVERRIDE,
    BASIS_QUOTE,
    Assumptions,
)
from tests.support.catalog import load_catalog
from vendors import choices
from vendors.models import DataCenter, Offer, PolicyZone, RackFee, ServerModel, Tariff

# Both stages (marker `database`): prices and tariffs read back as stored decimals.
pytestmark = [pytest.mark.django_db, pytest.mark.database]

GUIAN, SHANGHAI, SERVER = "example-guian", "example-shanghai-qingpu", "hgx-h100-8gpu"
LOAD = ServerLoad(
    server_count=1,
    gpus_per_server=8,
    power_full_kw=D("10.2"),
    power_idle_kw=D("3.06"),
    rack_units=8,
    gpu_hours_per_run=D(800),
    hours_per_run=D(100),
)
# What a buyer enters where the catalog has nothing (their own quote or bill).
BUYER = {"tariff_cny_per_kwh": D("0.45"), "rack_fee_cny_per_month": D(5000)}


@pytest.fixture
def catalog():
    load_catalog()
    dcs = DataCenter.objects.select_related("policy_zone", "vendor")
    return {
        "guian": dcs.get(key=GUIAN),
        "shanghai": dcs.get(key=SHANGHAI),
        "server": ServerModel.objects.get(key=SERVER),
    }


def missing_keys(dc):
    figures = site_figures(dc)
    names = ("tariff_cny_per_kwh", "rack_fee_cny_per_month", "rack_power_limit_kw")
    return sorted(name for name in names if getattr(figures, name) is None)


def buyer_overrides(dc) -> Overrides:
    return Overrides(**{key: BUYER[key] for key in missing_keys(dc)})


def test_missing_site_figures_are_named_not_zero(catalog):
    # With every tariff and rack fee gone (not even a national figure), Gui'an lacks both.
    Tariff.objects.all().delete()
    RackFee.objects.all().delete()
    PolicyZone.objects.update(tariff_cny_per_kwh=None, demand_charge_cny_per_kw_month=None)
    dc = catalog["guian"]
    missing = missing_keys(dc)
    assert missing == ["rack_fee_cny_per_month", "tariff_cny_per_kwh"]
    with pytest.raises(MissingFigures) as error:
        economics_inputs(LOAD, catalog["server"], dc)
    assert sorted(error.value.keys) == missing
    inputs = economics_inputs(LOAD, catalog["server"], dc, overrides=buyer_overrides(dc))
    for key in missing:
        assert inputs.provenance_of(key).basis == BASIS_OVERRIDE


def test_seeded_offers_become_prices_marked_as_examples(catalog):
    prices, provenance = prices_for(catalog["server"], catalog["guian"])
    # Several offers of a kind: the newest example is the one used.
    seeded = catalog["server"].offers.filter(currency=choices.Currency.CNY)
    offers = {o.kind: o for o in sorted(seeded, key=lambda o: o.quoted_on or o.as_of)}
    assert prices.purchase_cny_per_server == offers[choices.OfferKind.BUY].purchase_price
    assert prices.rent_cny_per_server_month == offers[choices.OfferKind.RENT].monthly_rent
    cloud = offers.get(choices.OfferKind.CLOUD)
    if cloud is None:  # the H100 cloud reference is in USD: not converted silently
        assert prices.cloud_cny_per_gpu_hour is None
    else:
        assert prices.cloud_cny_per_gpu_hour == cloud.hourly_price_per_gpu
    for key in ("purchase_cny_per_server", "rent_cny_per_server_month"):
        assert provenance[key].basis == BASIS_EXAMPLE
        assert provenance[key].source


def test_guian_vs_shanghai_difference_is_tariff_pue_and_fees(catalog):
    guian, shanghai, server = catalog["guian"], catalog["shanghai"], catalog["server"]
    # A programme of 2,000 training hours a year on these servers, over 3 years.
    usage = Assumptions(usage="programme", training_hours_per_year=D(2000), horizon_years=3)
    options = [
        economics_inputs(LOAD, server, dc, assumptions=usage, overrides=buyer_overrides(dc))
        for dc in (guian, shanghai)
    ]
    comparison = compare_sites(options)
    diff = comparison.differences[0]
    gy, sh = (r.inputs.site for r in comparison.results.values())

    # The same offer prices both sites, so purchase, maintenance and resale cancel; what is
    # left of "other" is the rounding of each site's kWh and amounts (lines round to the kWh
    # and the fen, the split is exact).
    assert abs(diff.parts_cny["other"]) < 1
    assert sum(diff.parts_cny.values()) == diff.total_cny
    # A component one site has no figure of its own for is left out of the stated difference
    # (decision 0105); the by-hand split below covers every component, left out or not.
    assert diff.total_cny + sum(diff.left_out_cny.values()) == diff.cost_difference_cny
    parts = {**diff.parts_cny, **diff.left_out_cny}

    # By hand: 3 years of IT energy = 3 × (10.2 kW × 2000 h + 3.06 kW × 6760 h) = 123,256.8 kWh
    kwh = D(3) * (D("10.2") * 2000 + D("3.06") * 6760)
    assert kwh == D("123256.8")

    def pue_and_price(site):
        if site.power_in_rack_fee:
            return D(1), D(0)  # power is in the rack fee
        if site.price_includes_pue:
            return D(1), site.tariff_cny_per_kwh
        return site.pue, site.tariff_cny_per_kwh

    pue_a, price_a = pue_and_price(gy)
    pue_b, price_b = pue_and_price(sh)
    assert parts["tariff"] == kwh * (price_b - price_a) * (pue_a + pue_b) / 2
    assert parts["pue"] == kwh * (pue_b - pue_a) * (price_a + price_b) / 2
    electricity = [
        sum(i.amount_cny for i in comparison.results[k].costs[BUY].lines if i.item == "electricity")
        for k in (gy.key, sh.key)
    ]
    split = parts["tariff"] + parts["pue"]
    assert abs(split - (electricity[1] - electricity[0])) < 1  # lines round to the kWh

    # Racks: one 10.2 kW, 8 U server fits one rack at both sites (40 kW and 20 kW limits).
    assert [r.racks for r in comparison.results.values()] == [1, 1]
    fees = parts["rack_fee"] + parts["rack_count"]
    assert fees == (sh.rack_fee_cny_per_month - gy.rack_fee_cny_per_month) * 36

    # Rent comes from the same market offer at both sites.
    assert (
        comparison.results[gy.key].costs[RENT].cash_out_cny
        == comparison.results[sh.key].costs[RENT].cash_out_cny
    )
    headline = diff.messages[0]
    assert headline.params["base"] == guian.name and headline.params["other"] == shanghai.name


def test_preferential_tariff_is_a_claim_scenario(catalog):
    dc = catalog["guian"]
    zone = dc.policy_zone
    assert zone is not None and zone.preferential_tariff_cny_per_kwh is not None, (
        "the catalog's Gui'an zone has no preferential tariff claim to test"
    )
    overrides = Overrides(**{k: BUYER[k] for k in missing_keys(dc) if k != "tariff_cny_per_kwh"})
    inputs = option_inputs(
        SERVER,
        GUIAN,
        server_count=1,
        gpu_hours_per_run=800,
        hours_per_run=100,
        power_full_kw=D("10.2"),
        power_idle_kw=D("3.06"),
        rack_units=8,
        overrides=overrides,
        preferential_tariff=True,
    )
    assert inputs.site.tariff_cny_per_kwh == D(str(zone.preferential_tariff_cny_per_kwh))
    assert inputs.provenance_of("tariff_cny_per_kwh").basis == BASIS_CLAIM


def test_power_from_the_catalog_when_sizing_gives_none(catalog):
    dgx = ServerModel.objects.get(key="dgx-h100")
    dc = catalog["shanghai"]
    inputs = option_inputs(
        dgx.key,
        dc.key,
        server_count=2,
        gpu_hours_per_run=1600,
        hours_per_run=100,
        overrides=buyer_overrides(dc),
    )
    # DGX H100: 10,200 W maximum → 10.2 kW; idle 30 % of it (stated assumption) = 3.06 kW
    assert inputs.load.power_full_kw == D("10.2")
    assert inputs.load.power_idle_kw == D("3.06")
    assert inputs.load.rack_units == dgx.rack_units
    assert str(inputs.provenance_of("power_idle_kw").source).startswith("30 per cent")


def test_foreign_currency_offers_need_the_buyers_rate(catalog):
    server = catalog["server"]
    usd = server.offers.filter(currency=choices.Currency.USD, kind=choices.OfferKind.CLOUD).first()
    assert usd is not None, "the catalog has no USD cloud offer for this server to test"
    prices, _ = prices_for(server, catalog["guian"])
    cny_cloud = server.offers.filter(currency=choices.Currency.CNY, kind=choices.OfferKind.CLOUD)
    if not cny_cloud.exists():
        assert prices.cloud_cny_per_gpu_hour is None
    prices, provenance = prices_for(server, catalog["guian"], {"USD": D("7.1")})
    if not cny_cloud.exists():
        # e.g. 6.88 USD per GPU-hour × 7.1 = 48.848 CNY
        assert prices.cloud_cny_per_gpu_hour == usd.hourly_price_per_gpu * D("7.1")
        assert "7.1 CNY (your rate)" in str(provenance["cloud_cny_per_gpu_hour"].source)


def test_a_quote_at_the_site_wins_over_a_market_example(catalog):
    server, dc = catalog["server"], catalog["shanghai"]
    Offer.objects.create(
        key="test-quote-rent-at-site",
        server_model=server,
        data_center=dc,
        kind=choices.OfferKind.RENT,
        monthly_rent=D("65000.00"),
        is_example=False,
        source="Quote no. 42 from the data center",
        quoted_on=date(2026, 11, 1),
    )
    prices, provenance = prices_for(server, dc)
    assert prices.rent_cny_per_server_month == D(65000)
    assert provenance["rent_cny_per_server_month"].basis == BASIS_QUOTE
    assert provenance["rent_cny_per_server_month"].as_of == date(2026, 11, 1)
    # the same quote is not Gui'an's price
    other, _ = prices_for(server, catalog["guian"])
    assert other.rent_cny_per_server_month != D(65000)


def test_demand_charge_comes_from_the_zone_for_passed_through_power(catalog):
    zone = PolicyZone.objects.filter(demand_charge_cny_per_kw_month__isnull=False).first()
    assert zone is not None, "the catalog has no policy zone with a demand charge to test"
    site = DataCenter.objects.create(
        key="test-pass-through-site",
        name="Pass-through test site",
        city="Test",
        province=zone.province,
        policy_zone=zone,
        power_pricing=choices.PowerPricing.PASS_THROUGH,
        max_kw_per_rack=20,
        rack_fee_cny_per_month=D(6000),
    )
    figures = site_figures(site)
    assert figures.demand_charge_cny_per_kw_month == D(str(zone.demand_charge_cny_per_kw_month))
    fill = {name: D("0.6") for name in figures.missing()}
    domain_site = figures.as_site(fill)
    assert domain_site.demand_charge_cny_per_kw_month == figures.demand_charge_cny_per_kw_month
    assert figures.provenance["demand_charge_cny_per_kw_month"].as_of == zone.tariff_as_of
    site.power_pricing = choices.PowerPricing.INCLUDED
    assert site_figures(site).demand_charge_cny_per_kw_month is None


# --- Source kinds (docs/decisions/0043-source-kinds.md) -----------------------------------


def test_prices_carry_the_kind_of_their_strongest_source(catalog):
    _, provenance = prices_for(catalog["server"], catalog["guian"])
    # The seeded H100 purchase and rent prices are press reports read only on reposts.
    for key in ("purchase_cny_per_server", "rent_cny_per_server_month"):
        assert provenance[key].kind == "aggregator", key
        assert provenance[key].flag == "LOW", key
        assert "[aggregator]" not in str(provenance[key].source)  # the reader sees the documents


def test_a_quote_keeps_its_kind_and_a_press_report_its_flag(catalog):
    server, guian = catalog["server"], catalog["guian"]
    Offer.objects.create(
        key="press-rent",
        server_model=server,
        kind=choices.OfferKind.RENT,
        monthly_rent=D(60000),
        seller_name="Reported dealer",
        quoted_on=date(2026, 10, 1),
        price_flag=choices.SourceFlag.PRESS,
        source="[press] Report on rents. Paper, 2026-10-01. https://example.org/r\n"
        "[blog] A post repeating it",
    )
    _, provenance = prices_for(server, guian)
    rent = provenance["rent_cny_per_server_month"]
    assert (rent.kind, rent.flag) == ("press", "")  # an example price keeps its basis


def test_site_figures_carry_their_source_kind(catalog):
    figures = site_figures(catalog["guian"])
    tariff = figures.provenance["tariff_cny_per_kwh"]
    assert tariff.kind == "official"  # the grid company's table, derived: flagged LOW itself
    rack_fee = figures.provenance["rack_fee_cny_per_month"]
    assert (rack_fee.kind, rack_fee.flag) == (
        "vendor",
        "FILE",
    )  # VNET's own results, filed with the SEC
    pue = figures.provenance["pue"]
    assert pue.kind == "press"  # the DEMO site's strongest source: a press report
    ningxia = PolicyZone.objects.get(key="ningxia")
    dc = DataCenter.objects.create(
        key="test-ningxia", name="Test", city="Zhongwei", province="Ningxia", policy_zone=ningxia
    )
    tariff = site_figures(dc).provenance["tariff_cny_per_kwh"]
    assert (tariff.kind, tariff.flag) == ("aggregator", "LOW")  # a repost only
