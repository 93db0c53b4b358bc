"""Catalog models: closed sets, check constraints (database) and clean() rules (forms)."""

from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from advisor.domain import hardware
from advisor.domain import sources as source_kinds
from vendors import choices
from vendors.models import (
    Accelerator,
    Certificate,
    DataCenter,
    HostingVendor,
    ModelPreset,
    Offer,
    PolicyZone,
    ServerModel,
)

# Both stages (marker `database`): check constraints enforced by the database.
pytestmark = [pytest.mark.django_db, pytest.mark.database]


# --------------------------------------------------------------------------- builders


def accelerator(**overrides):
    fields = dict(
        key="test-gpu-80gb",
        maker="NVIDIA",
        name="Test GPU",
        memory_gb=80,
        form_factor="sxm",
        interconnect_kind="nvlink",
        software_stack="cuda",
        tdp_w=700,
    )
    fields.update(overrides)
    return Accelerator(**fields)


def server(acc=None, **overrides):
    acc = acc or accelerator(key="srv-gpu")
    if acc.pk is None:
        acc.save()
    fields = dict(
        key="test-server",
        maker="Test",
        name="Test 8-GPU",
        accelerator=acc,
        gpu_count=8,
        topology="nvswitch",
        cooling="air",
    )
    fields.update(overrides)
    return ServerModel(**fields)


def vendor(**overrides):
    fields = dict(key="v1", name="Vendor One")
    fields.update(overrides)
    return HostingVendor(**fields)


def zone(**overrides):
    fields = dict(key="z1", name="Zone", kind="province", province="Guizhou")
    fields.update(overrides)
    return PolicyZone(**fields)


def site(**overrides):
    fields = dict(key="dc1", name="Site", city="Guiyang", province="Guizhou")
    fields.update(overrides)
    return DataCenter(**fields)


def preset(**overrides):
    fields = dict(key="m1", name="Model", family="qwen", params_b=7.0)
    fields.update(overrides)
    return ModelPreset(**fields)


# --------------------------------------------------------------------------- closed sets


@pytest.mark.parametrize(
    ("choice_class", "domain_values"),
    [
        (choices.InterconnectKind, hardware.INTERCONNECT_KINDS),
        (choices.SoftwareStack, hardware.SOFTWARE_STACKS),
        (choices.ServerTopology, hardware.SERVER_TOPOLOGIES),
        (choices.NicKind, hardware.NIC_KINDS),
        (choices.ServerCooling, hardware.COOLING_KINDS),
        (choices.SourceKind, source_kinds.SOURCE_KINDS),
    ],
)
def test_choices_mirror_the_domain(choice_class, domain_values):
    assert tuple(choice_class.values) == tuple(domain_values)


def test_field_names_are_the_domain_dataclass_names():
    from dataclasses import fields

    acc_fields = {f.name for f in Accelerator._meta.get_fields()}
    assert {f.name for f in fields(hardware.AcceleratorSpec)} <= acc_fields
    server_fields = {f.name for f in ServerModel._meta.get_fields()} | {"accelerator_key"}
    assert {f.name for f in fields(hardware.ServerSpec)} <= server_fields


# --------------------------------------------------------------------------- database constraints

CONSTRAINT_CASES = [
    ("accelerator memory must be positive", lambda: accelerator(memory_gb=0)),
    ("accelerator TDP must be positive", lambda: accelerator(tdp_w=-5)),
    ("accelerator interconnect kind closed", lambda: accelerator(interconnect_kind="smoke")),
    (
        "typical power within max",
        lambda: server(power_max_w=5000, power_typical_w=6000),
    ),
    ("inlet min below max", lambda: server(inlet_temp_min_c=30, inlet_temp_max_c=10)),
    ("humidity min below max", lambda: server(humidity_min_pct=80, humidity_max_pct=20)),
    ("server topology closed", lambda: server(topology="ring")),
    ("zone PUE at least 1", lambda: zone(pue_limit=0.9)),
    ("site design PUE at least 1", lambda: site(pue_design=0.5)),
    ("model active within total", lambda: preset(active_params_b=9.0)),
    ("model kv heads within heads", lambda: preset(heads=8, kv_heads=16)),
    ("model top-k within experts", lambda: preset(experts=4, experts_per_token=8)),
]


@pytest.mark.parametrize(("label", "build"), CONSTRAINT_CASES, ids=[c[0] for c in CONSTRAINT_CASES])
def test_database_refuses_inconsistent_rows(label, build):
    obj = build()
    with pytest.raises(IntegrityError), transaction.atomic():
        obj.save()


def test_certificate_valid_until_after_issue_in_database():
    v = vendor()
    v.save()
    cert = Certificate(
        vendor=v, kind="iso-9001", issued_on=date(2025, 1, 1), valid_until=date(2024, 1, 1)
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        cert.save()


def test_offer_price_must_match_kind_in_database():
    srv = server()
    srv.save()
    offer = Offer(key="o1", server_model=srv, kind="buy", monthly_rent=100, seller_name="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        offer.save()


def test_unique_keys_and_vendor_names():
    vendor().save()
    with pytest.raises(IntegrityError), transaction.atomic():
        vendor(key="other").save()  # same name
    with pytest.raises(IntegrityError), transaction.atomic():
        vendor(name="Other name").save()  # same key


# --------------------------------------------------------------------------- clean() rules


def errors_of(obj):
    with pytest.raises(ValidationError) as info:
        obj.full_clean()
    return info.value.message_dict


CLEAN_CASES = [
    (
        "typical power above max",
        lambda: server(power_max_w=5000, power_typical_w=6000),
        "power_typical_w",
    ),
    (
        "inlet range inverted",
        lambda: server(inlet_temp_min_c=30, inlet_temp_max_c=10),
        "inlet_temp_max_c",
    ),
    (
        "humidity range inverted",
        lambda: server(humidity_min_pct=60, humidity_max_pct=40),
        "humidity_max_pct",
    ),
    ("NIC count without kind", lambda: server(nic_count=8), "nic_kind"),
    (
        "NVSwitch needs NVLink parts",
        lambda: server(accelerator(key="pcie-gpu", interconnect_kind="pcie")),
        "topology",
    ),
    (
        "availability status needs a date",
        lambda: accelerator(china_availability="licence-required", china_availability_note="rule"),
        "china_availability_as_of",
    ),
    (
        "PCIe-only part above PCIe bandwidth",
        lambda: accelerator(interconnect_kind="pcie", interconnect_bandwidth_gbs=600),
        "interconnect_bandwidth_gbs",
    ),
    ("unknown licence category", lambda: vendor(licence_categories="B11,X9"), "licence_categories"),
    ("founded in the future", lambda: vendor(founded_year=2099), "founded_year"),
    (
        "tariff without source",
        lambda: zone(tariff_cny_per_kwh=0.5, tariff_as_of=date(2025, 1, 1)),
        "tariff_source",
    ),
    (
        "low-confidence tariff as default",
        lambda: zone(
            tariff_cny_per_kwh=0.5,
            tariff_as_of=date(2025, 1, 1),
            tariff_source="[official] x",
            tariff_flag="LOW",
        ),
        "tariff_flag",
    ),
    ("PUE limit without source", lambda: zone(pue_limit=1.2), "pue_limit_source"),
    ("site cooling outside the set", lambda: site(cooling_available=["fans"]), "cooling_available"),
    ("HVDC efficiency without HVDC", lambda: site(hvdc_efficiency_pct=94), "hvdc_efficiency_pct"),
    ("fixed power without price", lambda: site(power_pricing="fixed"), "power_price_cny_per_kwh"),
    (
        "site humidity inverted",
        lambda: site(humidity_min_pct=60, humidity_max_pct=40),
        "humidity_max_pct",
    ),
    ("MoE without top-k", lambda: preset(experts=8), "experts_per_token"),
    ("heads not divisible by kv heads", lambda: preset(heads=32, kv_heads=5), "kv_heads"),
    ("active above total", lambda: preset(active_params_b=8.0), "active_params_b"),
]


@pytest.mark.parametrize(("label", "build", "field"), CLEAN_CASES, ids=[c[0] for c in CLEAN_CASES])
def test_clean_names_the_field(label, build, field):
    assert field in errors_of(build())


def test_site_in_a_zone_of_another_province_is_refused():
    z = zone(province="Shanghai")
    z.save()
    assert "policy_zone" in errors_of(site(policy_zone=z))


def test_hub_zone_may_span_provinces():
    z = zone(kind="hub", province="National")
    z.save()
    site(policy_zone=z).full_clean()


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (dict(kind="iso-9001", iso27001_edition="2022"), "iso27001_edition"),
        (dict(kind="mlps"), "mlps_level"),
        (dict(kind="iso-27001", mlps_level=3), "mlps_level"),
        (
            dict(kind="iso-9001", issued_on=date(2025, 1, 1), valid_until=date(2024, 1, 1)),
            "valid_until",
        ),
        (
            dict(
                kind="iso-9001",
                issued_on=date(2025, 1, 1),
                last_surveillance_audit=date(2024, 6, 1),
            ),
            "last_surveillance_audit",
        ),
        (dict(kind="iso-9001", last_assessment_date=date(2025, 1, 1)), "last_assessment_date"),
    ],
)
def test_certificate_rules(overrides, field):
    v = vendor()
    v.save()
    assert field in errors_of(Certificate(vendor=v, key="c1", **overrides))


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (dict(kind="buy"), "purchase_price"),
        (dict(kind="rent", monthly_rent=1, purchase_price=2), "purchase_price"),
        (dict(kind="cloud", hourly_price_per_gpu=1, seller_name=""), "seller_name"),
        (
            dict(
                kind="buy",
                purchase_price=1,
                quoted_on=date(2025, 6, 1),
                valid_until=date(2025, 1, 1),
            ),
            "valid_until",
        ),
        (dict(kind="buy", purchase_price=1, is_example=False), "is_example"),
    ],
)
def test_offer_rules(overrides, field):
    srv = server()
    srv.save()
    fields = dict(key="o1", server_model=srv, seller_name="Dealer")
    fields.update(overrides)
    assert field in errors_of(Offer(**fields))


def test_valid_rows_pass():
    acc = accelerator()
    acc.full_clean()
    acc.save()
    srv = server(
        acc, power_max_w=10200, power_typical_w=9000, inlet_temp_min_c=5, inlet_temp_max_c=30
    )
    srv.full_clean()
    site(cooling_available=["air", "immersion"], hvdc=True, hvdc_efficiency_pct=95).full_clean()
    preset(experts=8, experts_per_token=2, heads=32, kv_heads=8, active_params_b=2).full_clean()


# --------------------------------------------------------------------------- source kinds


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: accelerator(source="NVIDIA data sheet. NVIDIA, 2024. https://x.org"), "source"),
        (lambda: accelerator(source="[vendor] Data sheet\nReview. Paper, 2024."), "source"),
        (lambda: accelerator(source="[rumour] Forum post"), "source"),
        (lambda: zone(pue_limit=1.2, pue_limit_source="Policy. NDRC, 2024."), "pue_limit_source"),
        (lambda: zone(tariff_source="Table. Grid, 2025."), "tariff_source"),
    ],
)
def test_a_source_line_without_its_kind_is_refused(build, field):
    errors = errors_of(build())
    assert field in errors
    assert "[official]" in errors[field][0] and "[blog]" in errors[field][0]


def test_a_source_line_with_its_kind_is_accepted():
    accelerator(
        source="[vendor] Data sheet. NVIDIA, 2024. https://x.org\n[blog] Notes"
    ).full_clean()


@pytest.mark.parametrize(
    ("source", "flag", "refused"),
    [
        ("[aggregator] Repost of a report. site, 2024.", "PRESS", True),
        ("[aggregator] Repost\n[blog] Post", "", True),
        ("[aggregator] Repost of a report. site, 2024.", "LOW", False),
        ("[press] Report. Paper, 2024.\n[aggregator] Repost", "PRESS", False),
    ],
)
def test_a_price_on_aggregators_or_blogs_only_is_low(source, flag, refused):
    srv = server()
    srv.save()
    offer = Offer(
        key="o1",
        server_model=srv,
        seller_name="Dealer",
        kind="buy",
        purchase_price=1,
        price_flag=flag,
        source=source,
    )
    if refused:
        assert "price_flag" in errors_of(offer)
    else:
        offer.full_clean()


def test_low_confidence_figures_name_recorded_figures():
    acc = accelerator(tdp_w=700, low_confidence_figures="tdp_w, memory_bandwidth_tbps, colour")
    message = " ".join(errors_of(acc)["low_confidence_figures"])
    assert "colour" in message and "memory_bandwidth_tbps" in message and "tdp_w" not in message
    accelerator(low_confidence_figures="tdp_w").full_clean()
    server(low_confidence_figures="cooling").full_clean()


def test_a_server_whose_cooling_no_source_states_is_accepted():
    server(cooling="").full_clean()


# --------------------------------------------------------------------------- behaviour


def test_natural_keys_round_trip():
    acc = accelerator()
    acc.save()
    srv = server(acc)
    srv.save()
    assert Accelerator.objects.get_by_natural_key(*acc.natural_key()) == acc
    assert ServerModel.objects.get_by_natural_key(*srv.natural_key()) == srv


def test_certificate_key_is_made_from_vendor_and_kind():
    v = vendor()
    v.save()
    first = Certificate.objects.create(vendor=v, kind="iso-9001")
    second = Certificate.objects.create(vendor=v, kind="iso-9001")
    assert (first.key, second.key) == ("v1-iso-9001", "v1-iso-9001-2")


def test_licence_categories_are_normalised_and_years_counted():
    v = vendor(licence_categories=" b11, B14 ", founded_year=2003)
    v.full_clean()
    assert v.licence_categories == "B11,B14"
    assert v.years_in_business >= 23


def test_saving_records_history_and_audit_times():
    acc = accelerator()
    acc.save()
    created = acc.created_at
    acc.tdp_w = 650
    acc.save()
    acc.refresh_from_db()
    assert acc.created_at == created and acc.updated_at >= created
    assert [h.tdp_w for h in acc.history.all()] == [650, 700]
