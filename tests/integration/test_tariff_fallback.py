"""Every option priced: the fallback order of site figures, their flags, the weakest input of a
cost, and the acceptance case (Qwen2.5-32B LoRA over every catalog data center: Guizhou
cheaper than Shanghai for the same server bought and hosted for three years, explained)."""

from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse
from django.utils import translation

from advisor.assessments import services
from advisor.catalog import economics as economics_selectors
from advisor.catalog.economics import sites as economics_sites
from advisor.domain.economics.costs import BUY
from advisor.domain.recommend.sites import same_server_by_site
from advisor.recommendation.run import run_recommendation
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import PROCUREMENT, TRAINING
from tests.support.catalog import load_catalog
from tests.support.scenarios import QWEN_32B_LORA as DEMO_32B_LORA
from tests.support.scenarios import scenario
from tests.support.users import make_user
from tests.unit.test_fixture_sources import OUTSIDE_REFERENCES
from vendors import choices
from vendors.models import DataCenter, Offer, PolicyZone, RackFee, ServerModel, Tariff

pytestmark = pytest.mark.django_db
TODAY = date(2026, 12, 1)

QWEN_32B_LORA = {
    **DEMO_32B_LORA,
    "training": {"dataset_tokens": 200_000_000, "epochs": 2},
    "procurement": {"years": 3, "hours_per_year": 2000},
}
MISSING_FIGURE_WORDS = ("cannot be priced", "not priced", "no electricity price", "no rack fee")


@pytest.fixture
def catalog():
    load_catalog()


def site(key, zone=None, province="", **fields):
    return DataCenter.objects.create(
        key=key,
        name=key,
        city="Test",
        province=province or (zone.province if zone else "Nowhere"),
        policy_zone=zone,
        **fields,
    )


# --- Fallback order and flags ------------------------------------------------------------


def test_site_figures_fall_back_site_then_zone_then_wider_zone_then_national(catalog):
    guizhou = PolicyZone.objects.get(key="guizhou")
    cluster = PolicyZone.objects.get(key="guian-cluster")
    loose = PolicyZone.objects.create(key="test-zone", name="Test zone", kind="city", province="X")
    own = site(
        "test-own",
        cluster,
        power_pricing=choices.PowerPricing.FIXED,
        power_price_cny_per_kwh=0.61,
        rack_fee_cny_per_month=D(5000),
        max_kw_per_rack=30,
        pue_design=1.2,
    )
    hub = site("test-hub", cluster, power_pricing=choices.PowerPricing.PASS_THROUGH)
    national = site("test-national", loose)

    figures = economics_selectors.site_figures(own)
    assert figures.tariff_cny_per_kwh == D("0.61")
    for name in ("tariff_cny_per_kwh", "rack_fee_cny_per_month", "rack_power_limit_kw", "pue"):
        assert figures.provenance[name].level == "site", name
    assert figures.demand_charge_cny_per_kw_month is None  # the site's own price

    # The hub cluster has no table: its province's (Guizhou, derived, LOW) applies, with its
    # demand charge; no Guizhou rack fee is known, so the national one (VNET, vendor).
    figures = economics_selectors.site_figures(hub)
    table = Tariff.objects.get(key="guizhou-2025-12-10kv-derived")
    assert table.policy_zone == guizhou
    assert figures.tariff_cny_per_kwh == D("0.562000")
    tariff = figures.provenance["tariff_cny_per_kwh"]
    assert (tariff.level, tariff.flag, tariff.as_of) == ("zone", "LOW", date(2025, 12, 1))
    assert table.document_title in str(tariff.source)
    assert figures.demand_charge_cny_per_kw_month == D(35)
    fee = figures.provenance["rack_fee_cny_per_month"]
    assert (figures.rack_fee_cny_per_month, fee.level, fee.flag) == (D(8948), "national", "FILE")
    assert figures.provenance["pue"].level == "national"
    assert figures.pue == D("1.5")
    assert figures.provenance["rack_power_limit_kw"].level == "assumed"

    # A zone with nothing and no province zone: the national figures, derived.
    figures = economics_selectors.site_figures(national)
    tables = economics_sites._latest_tables()
    mean = sum(economics_selectors.table_price(t).energy_cny_per_kwh for t in tables) / len(tables)
    assert figures.tariff_cny_per_kwh == mean.quantize(D("0.000001"))
    tariff = figures.provenance["tariff_cny_per_kwh"]
    # As good as its weakest table: Beijing's 2026-07 table was read only on aggregators.
    assert (tariff.level, tariff.flag) == ("national", "LOW")
    assert {t.key for t in tables} >= {"beijing-2026-07-two-part", "guizhou-2025-12-10kv-derived"}
    assert "beijing-2024-07-two-part" not in {t.key for t in tables}  # superseded
    assert "shanghai-2025-05-large-industry-10kv" not in {t.key for t in tables}  # incomplete
    assert "ningxia-zhongwei-2020-press" not in {t.key for t in tables}  # a single figure
    # The national demand charge: the mean of each grid's own (its table's, else its zone's),
    # one per grid, not only the tables that happen to carry one.
    grids = {"Beijing": D(52), "Guangdong": D("36.1"), "Guizhou": D(35), "Hebei": D("37.8")}
    grids["Shanghai"] = D("44.8")
    assert figures.demand_charge_cny_per_kw_month == sum(grids.values()) / len(grids)
    demand = figures.provenance["demand_charge_cny_per_kw_month"]
    assert (demand.level, demand.flag) == ("national", "LOW")
    assert all(name in str(demand.source) for name in grids)


@pytest.mark.parametrize(
    ("zone", "fee", "level", "flag"),
    [
        ("shenzhen", D("8618.19"), "zone", "FILE"),  # the densest Shenzhen tier
        ("guangdong-north", D(8948), "national", "FILE"),  # no Guangdong fee: national
        ("guizhou", D(8948), "national", "FILE"),
    ],
)
def test_rack_fee_falls_back_to_the_zone_top_tier_then_national(catalog, zone, fee, level, flag):
    dc = site(f"test-{zone}", PolicyZone.objects.get(key=zone))
    value, provenance, row = economics_selectors.rack_fee_figure(dc)
    assert (value, provenance.level, provenance.flag) == (fee, level, flag)
    assert row.document_title in str(provenance.source)


@pytest.mark.parametrize(
    ("zone", "tariff", "flag"),
    [
        ("shaoguan-cluster", "guangdong-north-2026-07-lt1kv", "LOW"),  # hub → north region
        ("guangdong-prd", "guangdong-prd-2026-07-two-part", "OFF-T"),  # newest month wins
        ("shenzhen", "shenzhen-2025-02-10kv", "OFF-T"),
        # A single press figure read only on a repost: LOW (docs/decisions/0042).
        ("ningxia", "ningxia-zhongwei-2020-press", "LOW"),
    ],
)
def test_zone_tariff_chain(catalog, zone, tariff, flag):
    dc = site(f"test-{zone}", PolicyZone.objects.get(key=zone))
    figure = economics_selectors.tariff_figure(dc)
    assert figure.tariff.key == tariff
    assert (figure.provenance.level, figure.provenance.flag) == ("zone", flag)


@pytest.mark.parametrize(
    ("key", "zone", "province", "energy_level", "demand"),
    [
        # Hebei (Jibei): no table, so the national energy figure beside Jibei's own demand charge.
        ("test-langfang", "national-hub-nodes", "Hebei", "national", D("37.8")),
        # Shanghai: an incomplete table, so likewise, with Shanghai's demand charge.
        ("test-lingang", "shanghai", "", "national", D("44.8")),
        # Beijing: its July 2026 table, with the fourth period's demand charge on it.
        ("test-beijing", "beijing", "", "zone", D("52.0")),
    ],
)
def test_each_grid_has_its_own_demand_charge(catalog, key, zone, province, energy_level, demand):
    """The fourth regulatory period's demand charges (发改价格〔2026〕1077号, read only as a
    transcription: LOW) are each grid's own, not the national mean, and read as a catalog
    figure, not a market report."""
    dc = site(key, PolicyZone.objects.get(key=zone), province=province)
    figures = economics_selectors.site_figures(dc)
    assert figures.provenance["tariff_cny_per_kwh"].level == energy_level
    assert figures.demand_charge_cny_per_kw_month == demand
    charge = figures.provenance["demand_charge_cny_per_kw_month"]
    assert (charge.level, charge.flag, charge.basis) == ("zone", "LOW", "catalog")
    assert "1077" in str(charge.source)


def test_a_western_single_figure_takes_no_demand_charge(catalog):
    """Hohhot's energy figure is a single reported one of unknown class: its grid's two-part
    demand charge is named in the zone's notes but not added to it."""
    dc = site("test-hohhot", PolicyZone.objects.get(key="inner-mongolia"))
    figures = economics_selectors.site_figures(dc)
    assert figures.demand_charge_cny_per_kw_month is None
    assert "32.8" in PolicyZone.objects.get(key="inner-mongolia").notes


def test_shenzhen_table_without_demand_charge_takes_guangdongs(catalog):
    dc = site("test-sz", PolicyZone.objects.get(key="shenzhen"))
    figure = economics_selectors.tariff_figure(dc)
    assert figure.tariff.demand_charge_cny_per_kw_month is None
    assert figure.demand_charge_cny_per_kw_month == D("36.1")
    assert figure.demand_provenance.level == "zone"


def test_buyers_figure_wins_and_is_marked_as_theirs(catalog):
    document = {
        **QWEN_32B_LORA,
        "site": {"data_centers": ["example-guian"]},
        "procurement": {
            "years": 3,
            "hours_per_year": 2000,
            "site_overrides": {"example-guian": {"tariff_cny_per_kwh": "0.48"}},
        },
    }
    run = run_recommendation(document, today=TODAY)
    bought = [o for o in run.recommendation.options if o.economics and BUY in o.economics.costs]
    assert bought
    for option in bought:
        assert option.economics.inputs.site.tariff_cny_per_kwh == D("0.48")
        assert option.economics.inputs.provenance["tariff_cny_per_kwh"].basis == "override"
        assert option.site.tariff_breakdown is None  # the table is not what prices it


def test_a_server_without_offers_takes_an_equivalent_servers_price(catalog):
    assert not Offer.objects.filter(server_model__key="dgx-h100").exists()
    run = run_recommendation(
        scenario(QWEN_32B_LORA, site={"data_centers": ["example-guian"]}), today=TODAY
    )
    dgx = next(o for o in run.recommendation.options if o.hardware.server.key == "dgx-h100")
    hgx = next(o for o in run.recommendation.options if o.hardware.server.key == "hgx-h100-8gpu")
    assert dgx.cost_cny == hgx.cost_cny and dgx.cost_cny is not None
    provenance = dgx.economics.inputs.provenance["rent_cny_per_server_month"]
    assert provenance.level == "equivalent"
    assert "HGX H100" in str(provenance.source) and "DGX H100" in str(provenance.source)
    assert dgx.confidence.figure_label.startswith("an equivalent server's")
    own = hgx.economics.inputs.provenance["rent_cny_per_server_month"]
    assert own.level == ""


# --- A missing figure never disqualifies -------------------------------------------------


def test_a_site_without_any_figure_is_priced_from_fallbacks_and_qualifies(catalog):
    site("test-bare", None, province="Atlantis")
    run = run_recommendation(
        scenario(QWEN_32B_LORA, site={"data_centers": ["test-bare"]}), today=TODAY
    )
    options = run.recommendation.options
    assert options
    for option in options:
        assert not any(w in r.render() for r in option.reasons for w in MISSING_FIGURE_WORDS), (
            option.key
        )
    priced = [o for o in options if o.cost_cny is not None]
    assert priced
    for option in priced:
        assert option.confidence.headline == "indicative"


def test_an_empty_price_catalog_leaves_options_unpriced_but_in_the_ranking(catalog):
    Tariff.objects.all().delete()
    RackFee.objects.all().delete()
    PolicyZone.objects.update(tariff_cny_per_kwh=None, demand_charge_cny_per_kw_month=None)
    run = run_recommendation(
        scenario(QWEN_32B_LORA, site={"data_centers": ["example-guian"]}), today=TODAY
    )
    options = run.recommendation.options
    fitting = [o for o in options if o.sizing.fits]
    assert fitting
    for option in fitting:
        assert not any(w in r.render() for r in option.reasons for w in MISSING_FIGURE_WORDS)
    buy_only = [o for o in fitting if o.economics is None]
    assert buy_only, "without any electricity price, buying cannot be priced"
    assert run.recommendation.rankings["recommended"], "fitting options still qualify"


# --- Acceptance: Qwen2.5-32B LoRA over every catalog data center ---------------------------


def test_qwen_32b_lora_every_offered_option_priced_and_guizhou_cheaper_than_shanghai(catalog):
    run = run_recommendation(QWEN_32B_LORA, today=TODAY)
    options = [o for o in run.recommendation.options if not o.is_cloud]  # hosted at a site
    assert {o.site.data_center.key for o in options} == set(
        DataCenter.objects.values_list("key", flat=True)
    )
    # A server is priced when it, or a server with the same accelerator and count, has an offer.
    # Cloud offers are options of their own (GPU-hours, no site), so only buy and rent count.
    boards = set(
        Offer.objects.exclude(kind="cloud").values_list(
            "server_model__accelerator", "server_model__gpu_count"
        )
    )
    offered = {
        key
        for key, accelerator, gpus in ServerModel.objects.values_list(
            "key", "accelerator", "gpu_count"
        )
        if (accelerator, gpus) in boards
    }
    assert {"dgx-h100", "dgx-h200", "hgx-h200-8gpu"} <= offered
    for option in options:
        assert not any(w in r.render() for r in option.reasons for w in MISSING_FIGURE_WORDS)
        if option.hardware.server.key in offered and option.sizing.fits:
            assert option.cost_cny is not None and option.cost_cny.is_finite(), option.key

    provinces = {dc.key: dc.province for dc in DataCenter.objects.all()}
    bought = {}
    for option in options:
        if option.mode == BUY and option.cost is not None:  # unpriced ones keep their mode
            bought.setdefault(option.hardware.server.key, []).append(option)
    assert bought, "some server must have a purchase price"
    compared = 0
    for server, group in bought.items():
        guizhou = [o for o in group if provinces[o.site.data_center.key] == "Guizhou"]
        shanghai = [o for o in group if provinces[o.site.data_center.key] == "Shanghai"]
        if not guizhou or not shanghai:
            continue
        compared += 1
        cost = lambda o: o.economics.costs[BUY].net_of_resale_cny  # noqa: E731
        best_gz, best_sh = min(guizhou, key=cost), min(shanghai, key=cost)
        assert cost(best_gz) < cost(best_sh), server
        rows = same_server_by_site(options, best_gz)
        row = next(r for r in rows if r.site_key == best_sh.site.data_center.key)
        difference = row.difference
        parts, left_out = difference.parts_cny, difference.left_out_cny
        assert difference.cost_difference_cny == cost(best_sh) - cost(best_gz) > 0
        assert sum(parts.values()) == difference.total_cny
        assert difference.total_cny + sum(left_out.values()) == difference.cost_difference_cny
        # Both sites state their own PUE, so the PUE is compared: Guizhou's is lower. Both
        # grids' demand charges are on record (Guizhou 35, Shanghai 44.8 CNY/kW·month), so the
        # demand charge is compared too: Shanghai's is higher.
        assert parts["pue"] > 0
        assert parts["demand_charge"] > 0
        # Shanghai's table has its valley price only (the national figure stands in) and
        # Gui'an's rack fee is the national figure: each is left out of the difference and
        # said so (decision 0105).
        assert {"tariff", "rack_fee"} <= set(left_out)
        assert not {"tariff", "rack_fee"} & set(parts)
    assert compared, "the catalog must hold a Guizhou and a Shanghai site"


# --- Pages and brief show the flag, the breakdown and the explanation -----------------------


@pytest.fixture
def buyer(client):
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


def qwen_32b_assessment(owner):
    draft = services.create_assessment(owner, "Qwen2.5 32B LoRA")
    values = {
        "model": {"source": "preset", "preset": "qwen2-5-32b", "method": "lora"},
        "training": TRAINING,
        "site": {"mode": "compare", "compare": ["example-guian", "example-shanghai-qingpu"]},
        "procurement": {**PROCUREMENT, "modes": ["buy"]},
    }
    for slug, value in values.items():
        draft = services.save_step(draft, slug, value, draft.version)
    return draft


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            (
                "Why the sites cost differently",
                "Electricity price: left out",
                "PUE:",
                "indicative",
                # Shanghai's demand charge shows beside the national energy figure it goes with.
                "demand charge 44.80 CNY per kW per month",
                "Demand (basic) charge:",
                # The national rack fee is VNET's filed results, not a vendor's claim.
                "listed company",
            ),
        ),
        (
            "zh-hans",
            (
                "各站点成本为何不同",
                "电价：未计入差异",
                "PUE 差异：",
                "参考值",
                "需量电费 44.80 元/千瓦·月",
                "基本电费差异：",
                "上市公司披露",
            ),
        ),
    ],
)
def test_comparison_page_explains_the_site_difference(client, buyer, catalog, language, words):
    assessment = qwen_32b_assessment(buyer)
    run = assessment_results(assessment)
    keys = [
        o.key
        for o in run.recommendation.options
        if o.hardware.server.key == "hgx-h200-8gpu" and o.economics
    ]
    assert len(keys) == 2
    response = client.get(
        reverse("results:compare", args=(assessment.pk,)),
        {"option": keys},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    html = response.content.decode()
    assert response.status_code == 200
    for word in words:
        assert word in html, word
    # The sentence explaining the difference names both sites in the page's language.
    english_names = ("DEMO: Shanghai Qingpu", "DEMO: Gui'an planning")
    assert any(n in html for n in english_names) == (language == "en")
    option = client.get(
        reverse("results:option", args=(assessment.pk, keys[0])), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    assert "tariff-breakdown" in option or "site-comparison" in option


# --- Admin: import with the model's rules, and which zones lack a price and how old it is ----


TARIFF_HEADER = (
    "key,policy_zone,month,tariff_class,issuer,document_title,url,flag,"
    "peak_cny_per_kwh,peak_hours,flat_cny_per_kwh,flat_hours,valley_cny_per_kwh,valley_hours,"
    "hours_source,demand_charge_cny_per_kw_month,source\n"
)


@pytest.mark.parametrize(
    ("hours", "error"),
    [
        ("10-13,17-22", None),
        ("10-13,17-23", "do not work"),  # peak overlaps flat at 22-23
        ("10-13,17-2x", "do not work"),
    ],
)
def test_tariff_import_checks_the_bands(catalog, hours, error):
    import tablib

    from vendors.resources import TariffResource

    row = (
        f"test-gz,guizhou,2026-11-01,two-part-1-10kv,Guizhou Power Grid,Table,"
        f"https://example.org/t,OFF-T,0.9,{hours},0.56,8-10,13-17,22-24,0.24,0-8,"
        f"[official] 黔发改价格〔2023〕481号,35,[official] Table\n"
    )
    # the flat hours hold commas: quote that cell
    row = row.replace("8-10,13-17,22-24", '"8-10,13-17,22-24"').replace(
        f",{hours},", f',"{hours}",'
    )
    dataset = tablib.Dataset().load(TARIFF_HEADER + row, format="csv")
    with translation.override("en"):
        result = TariffResource().import_data(dataset, dry_run=True)
    if error is None:
        assert not result.has_validation_errors(), result.invalid_rows
        return
    assert result.has_validation_errors()
    messages = str(result.invalid_rows[0].error_dict)
    assert error in messages and "peak_hours" in messages


def test_zone_list_says_which_zones_lack_a_price_and_how_old_it_is(catalog):
    from django.contrib.admin.sites import site as admin_site

    from vendors.admin.sites import TARIFF_STALE_DAYS, PolicyZoneAdmin, price_age_days

    with translation.override("en"):
        admin = PolicyZoneAdmin(PolicyZone, admin_site)
        guizhou = PolicyZone.objects.get(key="guizhou")
        shanghai = PolicyZone.objects.get(key="shanghai")
        cluster = PolicyZone.objects.get(key="guian-cluster")
        assert admin.electricity_price(guizhou) == "0.5620"
        assert admin.price_month(guizhou) == "2025-12"
        assert admin.electricity_price(shanghai) == "none: national figure"  # incomplete table
        assert admin.electricity_price(cluster) == "none: uses Guizhou"
        table = Tariff.objects.get(key="guizhou-2025-12-10kv-derived")
        assert price_age_days(table, date(2026, 1, 30)) == 60
        assert price_age_days(table, date(2026, 1, 30)) <= TARIFF_STALE_DAYS
        assert "(stale)" in admin.price_age(guizhou)  # a 2025-12 table is old by now


@pytest.mark.parametrize("name", ["30_policy_zones.json", "35_tariffs.json", "36_rack_fees.json"])
def test_price_fixtures_cite_public_documents(name):
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "fixtures" / "catalog" / name
    text = path.read_text(encoding="utf-8")
    assert not OUTSIDE_REFERENCES.search(text) and "research/" not in text
    for record in json.loads(text):
        fields = record["fields"]
        assert fields["source"], fields["key"]
        if record["model"] in ("vendors.tariff", "vendors.rackfee"):
            assert fields["issuer"] and fields["document_title"] and fields["flag"], fields["key"]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_tariff_source_names_its_class_in_both_languages_whichever_is_active(language):
    """The tariff class reaches a source line as the English and the Chinese label, also when the
    catalog is first read by a Chinese page (a label already put in one language would give an
    English reader Chinese words)."""
    tariff = Tariff(
        tariff_class=choices.TariffClass.TWO_PART_1_10KV,
        month=date(2026, 7, 1),
        policy_zone=PolicyZone(name="Zone", name_zh="区"),
    )
    with translation.override(language):
        params = economics_sites._tariff_source(tariff).params
    assert params["tariff_class"] == "1–10(20) kV, two-part"
    assert params["tariff_class_zh"] != params["tariff_class"]
    assert "两部制" in params["tariff_class_zh"]
