"""Who an option's facts are about, and what the catalog and the vendor's declared facts say.

The questionnaire asks only what these do not settle (advisor/recommendation/questions.py).
"""

from __future__ import annotations

from datetime import date

from advisor.catalog import declared as declared_selectors
from advisor.catalog.cache import memoized
from advisor.domain.i18n import N_, Message
from advisor.domain.questionnaire.declared import DeclaredFact, by_subject
from advisor.domain.questionnaire.questions import Subjects
from advisor.domain.questionnaire.specs import (
    ACCELERATOR,
    CLOUD_OFFER,
    DATA_CENTER,
    FACTS,
    OFFER,
    OPERATOR,
    SERVER,
)
from advisor.domain.recommend import Option
from advisor.domain.recommend.procurement import offer_key
from vendors.models import Accelerator, DataCenter, HostingVendor, Offer, ServerModel


def _row_values(kind: str, row, declared: dict[str, DeclaredFact]) -> dict:
    row = declared_selectors.overlaid(row, declared)
    values = {}
    for fact in FACTS:
        if fact.kind != kind:
            continue
        if "." in fact.name:
            continue
        value = getattr(row, fact.name, None) if row is not None else None
        values[fact.name] = None if value in ("", [], None) else value
    for name, item in declared.items():
        values[name] = item.python_value
    return values


def _certificate_values(vendor: HostingVendor) -> dict:
    values = {}
    for fact in FACTS:
        if fact.kind != OPERATOR or "." not in fact.name:
            continue
        kind, field = fact.name.split(".", 1)
        rows = [row for row in vendor.certificates.all() if row.kind == kind]
        if not rows:
            continue
        latest = max(rows, key=lambda row: row.valid_until or row.issued_on or date.min)
        value = getattr(latest, field, None)
        values[fact.name] = None if value in ("", None) else value
    return values


def named(row) -> Message:
    """A catalog row's name as a message both languages read (its Chinese name on Chinese
    pages and spreadsheets)."""
    return Message("{name}", {"name": row.name, "name_zh": getattr(row, "name_zh", "") or None})


def _subject_rows(dc_key: str, server_key: str) -> tuple:
    """The data center (with its operator's certificate values), the server model (with its
    accelerator) and their offer, as the catalog has them: read once per catalog stamp inside
    ``catalog_reads`` (docs/decisions/0073), else per call. Nothing read later loads a row."""
    dc = DataCenter.objects.select_related("vendor").filter(key=dc_key).first()
    server = ServerModel.objects.select_related("accelerator").get(key=server_key)
    certificates = _certificate_values(dc.vendor) if dc is not None and dc.vendor else {}
    offer = (
        Offer.objects.filter(server_model=server, data_center=dc).first()
        if dc is not None
        else None
    )
    return dc, server, certificates, offer


def _cloud_subjects(option: Option, grouped: dict) -> Subjects:
    """A cloud option's subjects, all answered by its provider: the provider (certificates),
    the cloud offer (region, residency, image, terms) and the accelerator."""
    cloud = option.cloud
    vendor = option.site.vendor
    keys, values = {}, {}
    provider = Message(
        "{name}", {"name": cloud.provider or vendor.name or "", "name_zh": cloud.provider_zh}
    )
    if vendor.key:
        keys[OPERATOR] = (vendor.key, provider)
        values[OPERATOR] = _provider_values(vendor)
    keys[CLOUD_OFFER] = (
        cloud.key,
        Message(
            N_("{server} instances from {provider}"),
            {
                "server": option.hardware.server.name,
                "server_zh": option.hardware.server.name_zh,
                "provider": cloud.provider,
                "provider_zh": cloud.provider_zh,
            },
        ),
    )
    said = grouped.get(cloud.key, {})
    recorded = {"region": cloud.region, "region_in_mainland_china": cloud.mainland_china}
    values[CLOUD_OFFER] = {
        **{f.name: None for f in FACTS if f.kind == CLOUD_OFFER},
        **recorded,
        **{name: item.python_value for name, item in said.items()},
    }
    accelerator = option.hardware.accelerator
    row = memoized(
        ("accelerator row", accelerator.key),
        lambda: Accelerator.objects.filter(key=accelerator.key).first(),
    )
    keys[ACCELERATOR] = (accelerator.key, named(row) if row else Message(accelerator.name))
    values[ACCELERATOR] = _row_values(ACCELERATOR, row, grouped.get(accelerator.key, {}))
    return Subjects(keys, values)


def _provider_values(vendor) -> dict:
    """A cloud provider's certificate facts as its (declared) vendor facts hold them."""
    values = {}
    for certificate in vendor.certificates or ():
        kind = {"iso27001": "iso-27001", "iso9001": "iso-9001", "mlps": "mlps"}.get(
            str(certificate.kind), str(certificate.kind)
        )
        for field, value in (
            ("number", certificate.number),
            ("valid_until", certificate.valid_until),
            ("last_surveillance_audit", certificate.last_audit_on),
            ("last_assessment_date", certificate.last_audit_on),
            ("iso27001_edition", certificate.edition),
            ("mlps_level", certificate.level),
        ):
            if value is not None:
                values[f"{kind}.{field}"] = value
    return values


def subjects_for(option: Option, declared: tuple[DeclaredFact, ...]) -> Subjects:
    """Who the option's facts are about, and what the catalog and declared facts record."""
    grouped = by_subject(declared)
    if option.cloud is not None:
        return _cloud_subjects(option, grouped)
    keys, values = {}, {}
    dc_key, server_key = option.site.data_center.key, option.hardware.server.key
    dc, server, certificates, offer = memoized(
        ("subject rows", dc_key, server_key), lambda: _subject_rows(dc_key, server_key)
    )
    if dc is not None:
        keys[DATA_CENTER] = (dc.key, named(dc))
        values[DATA_CENTER] = _row_values(DATA_CENTER, dc, grouped.get(dc.key, {}))
        if dc.vendor is not None:
            vendor = dc.vendor
            keys[OPERATOR] = (vendor.key, named(vendor))
            values[OPERATOR] = {
                **certificates,
                **_row_values(OPERATOR, vendor, grouped.get(vendor.key, {})),
            }
        key = offer_key(option)
        keys[OFFER] = (
            key,
            Message(
                N_("{server} at {site}"),
                {
                    "server": server.name,
                    "server_zh": server.name_zh or None,
                    "site": dc.name,
                    "site_zh": dc.name_zh or None,
                },
            ),
        )
        values[OFFER] = _row_values(OFFER, offer, grouped.get(key, {}))
    keys[SERVER] = (server.key, named(server))
    values[SERVER] = _row_values(SERVER, server, grouped.get(server.key, {}))
    accelerator: Accelerator = server.accelerator
    keys[ACCELERATOR] = (accelerator.key, named(accelerator))
    values[ACCELERATOR] = _row_values(ACCELERATOR, accelerator, grouped.get(accelerator.key, {}))
    return Subjects(keys, values)
