"""Catalog rows → compliance facts (read-only).

The compliance domain (``advisor/domain/compliance``) takes plain dataclasses; this module
fills them from the catalog (``vendors`` models) and the admin's rule-parameter overrides.
Blank text and empty lists in the catalog mean "not recorded" and become ``None``, so the
rules report them as unknown instead of passing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from advisor.catalog.sizing import accelerator_spec_from_row, server_spec_from_row
from advisor.domain import sources as domain_sources
from advisor.domain.compliance.comparison import VendorComparison, compare_vendors
from advisor.domain.compliance.engine import ComplianceReport, evaluate
from advisor.domain.compliance.facts import (
    CERT_ISO9001,
    CERT_ISO27001,
    CERT_MLPS,
    PUE_DESIGN,
    PUE_MEASURED,
    AvailabilityFacts,
    BuyerRequirement,
    CertificateFacts,
    ComplianceInput,
    DataCenterFacts,
    LicenceFacts,
    OptionFacts,
    PolicyZoneFacts,
    VendorFacts,
)
from advisor.domain.compliance.parameters import Parameters, resolve_parameters
from advisor.models import RuleParameter
from vendors.models import (
    Accelerator,
    Certificate,
    DataCenter,
    HostingVendor,
    PolicyZone,
    ServerModel,
)

CERTIFICATE_KINDS = {"iso-27001": CERT_ISO27001, "iso-9001": CERT_ISO9001, "mlps": CERT_MLPS}


def _text(value) -> str | None:
    value = (value or "").strip()
    return value or None


def _number(value) -> float | None:
    return None if value is None else float(value)


def rule_parameters() -> Parameters:
    """The domain's defaults with the admins' ``RuleParameter`` overrides applied."""
    return resolve_parameters(RuleParameter.objects.overrides())


# --------------------------------------------------------------------------- vendors


def licence_facts(vendor: HostingVendor) -> tuple[LicenceFacts, ...] | None:
    number = _text(vendor.licence_number)
    categories = tuple(vendor.licence_category_list) or None
    if number is None and categories is None and vendor.licence_valid_until is None:
        return None
    return (
        LicenceFacts(number=number, categories=categories, valid_until=vendor.licence_valid_until),
    )


def covers_site(row: Certificate, data_center: DataCenter | None) -> bool | None:
    """Whether ``row``'s scope covers ``data_center`` (docs/decisions/0110): only where the
    record names that site or says the scope is all the operator's sites. ``None`` when no
    data center is in question."""
    if data_center is None:
        return None
    if row.data_center_id is not None:
        return row.data_center_id == data_center.pk
    return row.covers_all_sites is True


def certificate_facts(
    row: Certificate, data_center: DataCenter | None = None
) -> CertificateFacts | None:
    """One certificate; the last audit is the latest of the surveillance audit and the issue date.

    An MLPS record's audit date is its assessment date. Certification itself is an audit,
    so a certificate issued recently needs no surveillance audit yet. With ``data_center``,
    whether the certificate's scope covers that site.
    """
    kind = CERTIFICATE_KINDS.get(row.kind)
    if kind is None:
        return None
    if kind == CERT_MLPS:
        last_audit = row.last_assessment_date
    else:
        audits = [day for day in (row.last_surveillance_audit, row.issued_on) if day is not None]
        last_audit = max(audits, default=None)
    return CertificateFacts(
        kind=kind,
        number=_text(row.number),
        edition=_text(row.iso27001_edition) if kind == CERT_ISO27001 else None,
        level=row.mlps_level,
        valid_until=row.valid_until,
        last_audit_on=last_audit,
        issuer=_text(row.issuer),
        scope=_text(row.scope),
        covers_site=covers_site(row, data_center),
    )


def vendor_facts(vendor: HostingVendor, data_center: DataCenter | None = None) -> VendorFacts:
    """The vendor's facts; with ``data_center``, each certificate says whether its scope
    covers that site."""
    rows = vendor.certificates.all()
    certificates = tuple(
        facts for facts in (certificate_facts(row, data_center) for row in rows) if facts
    )
    network = [_text(vendor.carriers), _text(vendor.backbone), _text(vendor.node_coverage)]
    capital = vendor.registered_capital_cny
    return VendorFacts(
        key=vendor.key,
        name=vendor.name,
        name_zh=_text(vendor.name_zh),
        founded_year=vendor.founded_year,
        registered_capital_cny=None if capital is None else float(capital),
        licences=licence_facts(vendor),
        icp_filing_number=_text(vendor.icp_filing_number),
        certificates=certificates,
        certificates_complete=False,  # catalog rows are the vendor's claims, not a full register
        own_bgp=vendor.has_own_bgp,
        cnnic_ip_alliance=vendor.cnnic_member,
        network_notes="; ".join(text for text in network if text) or None,
    )


# --------------------------------------------------------------------------- sites


def policy_zone_facts(zone: PolicyZone | None) -> PolicyZoneFacts:
    if zone is None:
        return PolicyZoneFacts()
    names = [zone.name, f"({zone.name_zh})" if zone.name_zh else ""]
    return PolicyZoneFacts(
        key=zone.key,
        name=zone.name,
        name_zh=_text(zone.name_zh),
        pue_limit=zone.pue_limit,
        pue_limit_source=" ".join(part for part in names if part),
    )


def _pue(dc: DataCenter) -> tuple[float | None, str | None]:
    if dc.pue_measured is not None:
        return dc.pue_measured, PUE_MEASURED
    if dc.pue_design is not None:
        return dc.pue_design, PUE_DESIGN
    return None, None


def _self_operated(dc: DataCenter, hosting: HostingVendor | None) -> bool | None:
    if dc.vendor_id is None or hosting is None:
        return None
    if dc.vendor_id != hosting.pk:
        return False
    return hosting.self_operated_dcs


def data_center_facts(dc: DataCenter, vendor: HostingVendor | None = None) -> DataCenterFacts:
    """Site facts; operations and contract terms come from the hosting vendor (default: the DC's)."""
    hosting = vendor or dc.vendor
    pue, basis = _pue(dc)
    mttr = None if hosting is None else hosting.mttr_hours
    compensation = (
        None if hosting is None else (True if _text(hosting.compensation_terms) else None)
    )
    return DataCenterFacts(
        key=dc.key,
        name=dc.name,
        name_zh=_text(dc.name_zh),
        city=dc.city,
        city_zh=_text(dc.city_zh),
        province=_text(dc.province),
        self_operated=_self_operated(dc, hosting),
        inlet_temp_min_c=dc.inlet_temp_min_c,
        inlet_temp_max_c=dc.inlet_temp_max_c,
        inlet_rh_min_pct=dc.humidity_min_pct,
        inlet_rh_max_pct=dc.humidity_max_pct,
        inlet_dew_point_min_c=dc.dew_point_min_c,
        inlet_dew_point_max_c=dc.dew_point_max_c,
        climate_mean_rh_pct=dc.climate_mean_rh_pct,
        precision_humidity_control=dc.humidity_control,
        pue=pue,
        pue_basis=basis,
        max_rack_kw=dc.max_kw_per_rack,
        cooling_kinds=tuple(dc.cooling_available or ()) or None,
        dual_utility_feeds=None if dc.power_feeds is None else dc.power_feeds >= 2,
        ups_backup_min=dc.ups_minutes,
        generator_start_s=dc.generator_start_s,
        hvdc=dc.hvdc,
        hvdc_efficiency_pct=dc.hvdc_efficiency_pct,
        floor_load_kg_per_m2=dc.floor_load_kg_per_m2,
        multi_carrier_bgp=None if hosting is None else hosting.has_own_bgp,
        latency_east_china_ms=dc.latency_east_china_ms,
        latency_south_china_ms=dc.latency_south_china_ms,
        packet_loss_pct=dc.packet_loss_pct,
        staff_24x7_on_site=None if hosting is None else hosting.onsite_24x7,
        spare_parts_replacement_h=None if hosting is None else hosting.spare_part_replacement_hours,
        fault_response_h=None if hosting is None else hosting.fault_response_hours,
        contract_mttr_stated=None if mttr is None else True,
        contract_mttr_h=mttr,
        contract_compensation=compensation,
    )


# --------------------------------------------------------------------------- hardware


def availability_facts(accelerator: Accelerator) -> AvailabilityFacts:
    return AvailabilityFacts(
        status=_text(accelerator.china_availability),
        as_of=accelerator.china_availability_as_of,
        note=_text(accelerator.china_availability_note),
        source=domain_sources.plain_text(accelerator.source),
    )


# --------------------------------------------------------------------------- entry points


def compliance_input(
    *,
    today: date,
    option: OptionFacts,
    server_key: str | None,
    data_center_key: str | None,
    vendor_key: str | None = None,
    buyer: BuyerRequirement | None = None,
) -> ComplianceInput:
    """Everything one evaluation needs, read from the catalog by natural keys.

    ``vendor_key`` names the hosting vendor; without it, the data center's own vendor.
    """
    server = ServerModel.objects.select_related("accelerator").filter(key=server_key).first()
    dc = (
        DataCenter.objects.select_related("vendor", "policy_zone")
        .filter(key=data_center_key)
        .first()
    )
    vendor = HostingVendor.objects.filter(key=vendor_key).first() if vendor_key else None
    vendor = vendor or (dc.vendor if dc else None)
    accelerator = server.accelerator if server else None
    return ComplianceInput(
        today=today,
        option=option,
        server=server_spec_from_row(server) if server else None,
        accelerator=accelerator_spec_from_row(accelerator) if accelerator else None,
        availability=availability_facts(accelerator) if accelerator else None,
        data_center=data_center_facts(dc, vendor) if dc else DataCenterFacts(),
        vendor=vendor_facts(vendor, dc) if vendor else VendorFacts(),
        zone=policy_zone_facts(dc.policy_zone if dc else None),
        buyer=buyer or BuyerRequirement(),
    )


def evaluate_option(**kwargs) -> ComplianceReport:
    """:func:`compliance_input` evaluated against the current rule parameters."""
    return evaluate(compliance_input(**kwargs), rule_parameters())


def vendor_comparison(vendor_keys: Iterable[str], today: date) -> VendorComparison:
    """The V4 side-by-side table for the vendors named, in the order given."""
    keys = list(vendor_keys)
    rows = {vendor.key: vendor for vendor in HostingVendor.objects.filter(key__in=keys)}
    vendors = [vendor_facts(rows[key]) for key in keys if key in rows]
    return compare_vendors(vendors, today, rule_parameters())
