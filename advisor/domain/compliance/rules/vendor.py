"""Hosting-vendor rules (source items V1-V3): telecom licence, filing, certificates, MLPS."""

from __future__ import annotations

import re
from datetime import date

from advisor.domain.compliance import citations as cite
from advisor.domain.compliance.base import (
    NUMBER_NOT_RECORDED,
    PROVINCE_WORDS,
    Area,
    Evidence,
    Rule,
    Severity,
    Status,
    listing,
    outcome,
)
from advisor.domain.compliance.dates import add_months
from advisor.domain.compliance.facts import (
    CERT_ISO9001,
    CERT_ISO27001,
    CERT_MLPS,
    CertificateFacts,
    ComplianceInput,
    LicenceFacts,
)
from advisor.domain.compliance.parameters import Parameters
from advisor.domain.compliance.provinces import PROVINCES, province_names, same_province
from advisor.domain.i18n import N_, Message

IDC_CATEGORY = "B11"

# Licence numbers: optional one-character province prefix, the classes, a serial,
# e.g. "豫B2-20261089" (Henan, category 2) or "B1.B2-20200001" (MIIT, cross-region).
LICENCE_NUMBER = re.compile(
    r"^(?P<province>[\u4e00-\u9fff])?(?P<classes>B[12](?:[.．、·]B[12])*)-(?P<serial>\d+)$"
)
ICP_FILING_NUMBER = re.compile(r"^[\u4e00-\u9fff]ICP备\d+号(-\d+)?$")


def licence_classes(number: str | None) -> tuple[str | None, tuple[str, ...]] | None:
    """(province abbreviation or None, classes) read from a licence number, None if unreadable."""
    match = LICENCE_NUMBER.match((number or "").strip())
    if not match:
        return None
    classes = tuple(re.split(r"[.．、·]", match["classes"]))
    return match["province"], classes


def _categories(licence: LicenceFacts) -> set[str]:
    return {category.strip().upper() for category in licence.categories or ()}


STILL_VALID = N_("it must still be valid on {threshold}")


def _categories_evidence(held) -> Evidence:
    return Evidence(
        N_("The licence's list of business categories"),
        held,
        IDC_CATEGORY,
        "",
        "in",
        requirement=N_("it must include {threshold}"),
    )


def _iso(day: date | None):
    return None if day is None else day.isoformat()


# --- V1: value-added telecom licence with IDC (B11) ------------------------------------------


def telecom_licence(facts: ComplianceInput, params: Parameters):
    licences, today = facts.vendor.licences, facts.today
    window = params["vendor.expiry_warning_days"]
    if licences is None:
        return outcome(
            Status.UNKNOWN,
            N_("The vendor's value-added telecom licence is not recorded."),
            (_categories_evidence(None),),
        )
    if not licences:
        return outcome(
            Status.FAIL,
            N_("The vendor holds no value-added telecom business licence."),
            (_categories_evidence(None),),
        )
    idc = [licence for licence in licences if IDC_CATEGORY in _categories(licence)]
    if not idc:
        held = tuple(sorted(set().union(*(_categories(item) for item in licences))))
        evidence = (_categories_evidence(held),)
        if any(licence.categories is None for licence in licences):
            return outcome(
                Status.UNKNOWN,
                N_(
                    "The categories of the vendor's licence are not recorded, so IDC (B11) cannot be confirmed."
                ),
                evidence,
            )
        return outcome(
            Status.FAIL,
            N_(
                "The vendor's licence covers {categories} but not Internet data center business (B11)."
            ),
            evidence,
            categories=listing(held) or "—",
        )
    licence = max(idc, key=lambda item: item.valid_until or date.min)
    return _check_idc_licence(licence, today, window)


def _check_idc_licence(licence: LicenceFacts, today: date, window: int):
    number = licence.number or Message(NUMBER_NOT_RECORDED)
    days_left = None if licence.valid_until is None else (licence.valid_until - today).days
    evidence = (
        _categories_evidence(tuple(sorted(_categories(licence)))),
        Evidence(
            N_("The licence's expiry date"),
            _iso(licence.valid_until),
            today.isoformat(),
            "",
            ">=",
            requirement=STILL_VALID,
        ),
        Evidence(
            N_("The time left until the licence expires"),
            days_left,
            window,
            N_("days"),
            ">",
            requirement=N_("a warning is given within {threshold}"),
        ),
    )
    if days_left is not None and days_left < 0:
        return outcome(
            Status.FAIL,
            N_("Licence {number} expired on {date}."),
            evidence,
            number=number,
            date=licence.valid_until.isoformat(),
        )
    if licence.number is None or days_left is None:
        return outcome(
            Status.UNKNOWN,
            N_("The licence covers IDC (B11), but its number or expiry date is not recorded."),
            evidence,
        )
    parsed = licence_classes(licence.number)
    if parsed is not None and "B1" not in parsed[1]:
        return outcome(
            Status.WARN,
            N_(
                "Licence {number} is recorded with IDC (B11), but its number denotes a category-2 "
                "licence only; IDC is a category-1 service. Check the licence on MIIT's public lookup."
            ),
            evidence,
            number=number,
        )
    if days_left <= window:
        return outcome(
            Status.WARN,
            N_("Licence {number} covers IDC (B11) but expires on {date}, within {window} days."),
            evidence,
            number=number,
            date=licence.valid_until.isoformat(),
            window=window,
        )
    return outcome(
        Status.PASS,
        N_("Licence {number} covers IDC (B11) and is valid until {date}."),
        evidence,
        number=number,
        date=licence.valid_until.isoformat(),
    )


# --- V1: the licence covers the data center's province ----------------------------------------


def licence_region(facts: ComplianceInput, params: Parameters):
    licences, province = facts.vendor.licences, facts.data_center.province
    candidates = [item for item in licences or () if IDC_CATEGORY in _categories(item)]
    candidates = candidates or list(licences or ())
    numbers = ", ".join(item.number for item in candidates if item.number) or None
    evidence = (
        Evidence(N_("The licence number"), numbers, None, "", ""),
        Evidence(N_("The data center's province"), province, None, "", "", PROVINCE_WORDS),
    )
    if not candidates or not province:
        return outcome(
            Status.UNKNOWN,
            N_("The vendor's licence or the data center's province is not recorded."),
            evidence,
        )
    verdicts = [_covers(licence, province) for licence in candidates]
    names = province_names(province)
    where = {"province": names[0] if names else province, "province_zh": names[1] if names else ""}
    if True in verdicts:
        return outcome(
            Status.PASS,
            N_("The licence's coverage includes {province}, where the data center is."),
            evidence,
            **where,
        )
    if all(verdict is False for verdict in verdicts):
        return outcome(
            Status.FAIL,
            N_(
                "Licence {numbers} does not cover {province}: a provincially issued licence covers "
                "business in its own province only."
            ),
            evidence,
            numbers=numbers or "—",
            **where,
        )
    return outcome(
        Status.UNKNOWN,
        N_("The licence's coverage list is not recorded; confirm that it includes {province}."),
        evidence,
        **where,
    )


def _covers(licence: LicenceFacts, province: str) -> bool | None:
    coverage = licence.coverage
    if coverage is not None:
        return any(_province_matches(item, province) for item in coverage)
    parsed = licence_classes(licence.number)
    if parsed is None or parsed[0] is None:
        return None  # unreadable, or a cross-region licence whose coverage list is unknown
    return same_province(parsed[0], province)


def _province_matches(item: str, province: str) -> bool:
    item = item.strip()
    for abbreviation, (chinese, english) in PROVINCES.items():
        if item in (abbreviation, chinese) or item.lower() == english:
            return same_province(abbreviation, province)
    return item.lower() == province.strip().lower()


# --- V2: ICP filing ------------------------------------------------------------------------


def icp_filing(facts: ComplianceInput, params: Parameters):
    number = facts.vendor.icp_filing_number
    evidence = (Evidence(N_("The vendor's ICP filing number"), number, None, "", ""),)
    if number is None:
        return outcome(
            Status.UNKNOWN, N_("The vendor's ICP filing number is not recorded."), evidence
        )
    if not number.strip():
        return outcome(Status.FAIL, N_("The vendor has no ICP filing."), evidence)
    if ICP_FILING_NUMBER.match(number.strip()):
        return outcome(Status.PASS, N_("ICP filing {number}."), evidence, number=number.strip())
    return outcome(
        Status.WARN,
        N_(
            "{number} does not read like an ICP filing number (e.g. 黔ICP备12345678号); check it on MIIT's filing lookup."
        ),
        evidence,
        number=number.strip(),
    )


# --- V2: ISO certificates and MLPS ----------------------------------------------------------


SCOPE_NOT_RECORDED = N_("scope not recorded")


def _held(facts: ComplianceInput, kind: str) -> list[CertificateFacts] | None:
    vendor = facts.vendor
    if vendor.certificates is None:
        return None
    held = [cert for cert in vendor.certificates if cert.kind == kind]
    if not held and not vendor.certificates_complete:
        return None
    return held


def _latest(certificates: list[CertificateFacts]) -> CertificateFacts:
    """The latest certificate, among those whose scope is not known to leave the site out."""
    in_scope = [cert for cert in certificates if cert.covers_site is not False]
    return max(
        in_scope or certificates,
        key=lambda cert: (cert.valid_until or date.min, cert.last_audit_on or date.min),
    )


def _scope_words(cert: CertificateFacts) -> Message:
    return Message("{scope}", {"scope": cert.scope}) if cert.scope else Message(SCOPE_NOT_RECORDED)


def iso27001(facts: ComplianceInput, params: Parameters):
    return _iso_certificate(facts, params, CERT_ISO27001, "ISO/IEC 27001", check_edition=True)


def iso9001(facts: ComplianceInput, params: Parameters):
    return _iso_certificate(facts, params, CERT_ISO9001, "ISO 9001", check_edition=False)


def _iso_certificate(facts, params, kind, standard, check_edition):
    today, window = facts.today, params["vendor.expiry_warning_days"]
    audit_months = params["vendor.iso_audit_max_months"]
    withdrawn_on = params["vendor.iso27001_2013_withdrawn_on"]
    held = _held(facts, kind)
    if held is None:
        return outcome(
            Status.UNKNOWN,
            N_("The vendor's {standard} certificate is not recorded."),
            (),
            standard=standard,
        )
    if not held:
        return outcome(
            Status.FAIL, N_("The vendor holds no {standard} certificate."), (), standard=standard
        )
    cert = _latest(held)
    audit_due = None if cert.last_audit_on is None else add_months(cert.last_audit_on, audit_months)
    evidence = [
        Evidence(
            N_("The certificate's expiry date"),
            _iso(cert.valid_until),
            today.isoformat(),
            "",
            ">=",
            requirement=STILL_VALID,
        ),
        Evidence(
            N_("The date of the last surveillance or recertification audit"),
            _iso(cert.last_audit_on),
            _iso(add_months(today, -audit_months)),
            "",
            ">=",
        ),
    ]
    if check_edition:
        evidence.append(
            Evidence(
                N_("The edition of the standard on the certificate"), cert.edition, "2022", "", "=="
            )
        )
    common = {"standard": standard, "number": cert.number or Message(NUMBER_NOT_RECORDED)}
    if cert.valid_until is not None and cert.valid_until < today:
        return outcome(
            Status.FAIL,
            N_("{standard} certificate {number} expired on {date}."),
            evidence,
            date=cert.valid_until.isoformat(),
            **common,
        )
    old_edition = (
        check_edition and cert.edition is not None and cert.edition.strip().startswith("2013")
    )
    if old_edition and today > withdrawn_on:
        return outcome(
            Status.FAIL,
            N_(
                "{standard} certificate {number} is on the 2013 edition; such certificates lapsed on {date}."
            ),
            evidence,
            date=withdrawn_on.isoformat(),
            **common,
        )
    if audit_due is not None and audit_due < today:
        return outcome(
            Status.FAIL,
            N_(
                "{standard} certificate {number}: no surveillance audit since {date}, more than {months} months ago."
            ),
            evidence,
            date=cert.last_audit_on.isoformat(),
            months=audit_months,
            **common,
        )
    if (
        cert.valid_until is None
        or cert.last_audit_on is None
        or (check_edition and cert.edition is None)
    ):
        return outcome(
            Status.UNKNOWN,
            N_(
                "{standard} certificate {number}: its expiry date, last audit or edition is not recorded."
            ),
            evidence,
            **common,
        )
    if cert.covers_site is False:
        return outcome(
            Status.UNKNOWN,
            N_(
                "{standard} certificate {number} is the operator's, but its scope ({scope}) does not name this data center: ask for the certificate that covers it."
            ),
            evidence,
            scope=_scope_words(cert),
            **common,
        )
    deadlines = [cert.valid_until, audit_due] + ([withdrawn_on] if old_edition else [])
    deadline = min(deadlines)
    if (deadline - today).days <= window:
        return outcome(
            Status.WARN,
            N_(
                "{standard} certificate {number} needs attention by {date} (expiry, next audit or edition transition), within {window} days."
            ),
            evidence,
            date=deadline.isoformat(),
            window=window,
            **common,
        )
    return outcome(
        Status.PASS,
        N_("{standard} certificate {number} is valid until {date}; last audited on {audit}."),
        evidence,
        date=cert.valid_until.isoformat(),
        audit=cert.last_audit_on.isoformat(),
        **common,
    )


def mlps(facts: ComplianceInput, params: Parameters):
    today, window = facts.today, params["vendor.expiry_warning_days"]
    months, min_level = params["vendor.mlps_assessment_max_months"], params["vendor.mlps_min_level"]
    held = _held(facts, CERT_MLPS)
    if held is None:
        return outcome(Status.UNKNOWN, N_("The vendor's MLPS assessment is not recorded."), ())
    if not held:
        return outcome(Status.FAIL, N_("The vendor has no MLPS assessment on record."), ())
    at_level = [cert for cert in held if cert.level is not None and cert.level >= min_level]
    known_levels = [cert.level for cert in held if cert.level is not None]
    if not at_level:
        level = max(known_levels, default=None)
        evidence = (Evidence(N_("The MLPS level"), level, min_level, "", ">="),)
        if len(known_levels) < len(held):
            return outcome(
                Status.UNKNOWN,
                N_("The level of the vendor's MLPS assessment is not recorded."),
                evidence,
            )
        return outcome(
            Status.FAIL,
            N_("The vendor's MLPS assessment is level {level}; level {required} is required."),
            evidence,
            level=level,
            required=min_level,
        )
    in_scope = [item for item in at_level if item.covers_site is not False]
    cert = max(in_scope or at_level, key=lambda item: item.last_audit_on or date.min)
    due = None if cert.last_audit_on is None else add_months(cert.last_audit_on, months)
    evidence = (
        Evidence(N_("The MLPS level"), cert.level, min_level, "", ">="),
        Evidence(
            N_("The date of the last MLPS assessment"),
            _iso(cert.last_audit_on),
            _iso(add_months(today, -months)),
            "",
            ">=",
        ),
    )
    if due is None:
        return outcome(
            Status.UNKNOWN,
            N_(
                "MLPS level {level} is claimed but the date of the last assessment is not recorded."
            ),
            evidence,
            level=cert.level,
        )
    if due < today:
        return outcome(
            Status.FAIL,
            N_(
                "The last MLPS level {level} assessment was on {date}, more than {months} months ago."
            ),
            evidence,
            level=cert.level,
            date=cert.last_audit_on.isoformat(),
            months=months,
        )
    if cert.covers_site is False:
        return outcome(
            Status.UNKNOWN,
            N_(
                "The operator's MLPS level {level} assessment covers {scope}, not this data center by its record: ask for the assessment that covers it."
            ),
            evidence,
            level=cert.level,
            scope=_scope_words(cert),
        )
    if (due - today).days <= window:
        return outcome(
            Status.WARN,
            N_(
                "MLPS level {level} assessed on {date}; the next assessment is due by {due}, within {window} days."
            ),
            evidence,
            level=cert.level,
            date=cert.last_audit_on.isoformat(),
            due=due.isoformat(),
            window=window,
        )
    return outcome(
        Status.PASS,
        N_("MLPS level {level} assessed on {date}; next due by {due}."),
        evidence,
        level=cert.level,
        date=cert.last_audit_on.isoformat(),
        due=due.isoformat(),
    )


# --- V1: self-operated data center; V3: network ---------------------------------------------


def self_operated(facts: ComplianceInput, params: Parameters):
    dc, vendor = facts.data_center, facts.vendor
    if dc.operator_key is not None and vendor.key is not None:
        value = dc.operator_key == vendor.key
    else:
        value = dc.self_operated
    evidence = (Evidence(N_("The vendor runs the data center itself"), value, True, "", "=="),)
    if value is None:
        return outcome(
            Status.UNKNOWN, N_("Who operates the data center is not recorded."), evidence
        )
    if value:
        return outcome(Status.PASS, N_("The vendor operates this data center itself."), evidence)
    return outcome(
        Status.FAIL,
        N_("The vendor resells space in a data center operated by someone else."),
        evidence,
    )


def network(facts: ComplianceInput, params: Parameters):
    vendor = facts.vendor
    evidence = (
        Evidence(N_("The vendor's own BGP network"), vendor.own_bgp, True, "", "=="),
        Evidence(N_("CNNIC IP alliance membership"), vendor.cnnic_ip_alliance, None, "", ""),
    )
    if vendor.own_bgp is None:
        return outcome(
            Status.UNKNOWN,
            N_("Whether the vendor runs its own BGP network is not recorded."),
            evidence,
        )
    if vendor.own_bgp:
        return outcome(Status.PASS, N_("The vendor runs its own BGP network."), evidence)
    return outcome(
        Status.WARN,
        N_("The vendor has no BGP network of its own; it buys bandwidth from others."),
        evidence,
    )


EXPIRY = ("vendor.expiry_warning_days",)

RULES = (
    Rule(
        "VENDOR-TELECOM-LICENCE",
        Area.VENDOR,
        N_("Value-added telecom licence with IDC (B11)"),
        N_(
            "Hosting servers for customers is Internet data center business: the vendor needs a valid value-added telecom licence listing B11."
        ),
        cite.TELECOM_LICENCE,
        Severity.BLOCKER,
        telecom_licence,
        EXPIRY,
        reads=("today", "vendor"),
    ),
    Rule(
        "VENDOR-LICENCE-REGION",
        Area.VENDOR,
        N_("Licence covers the data center's province"),
        N_(
            "A provincially issued licence covers business in that province only; a cross-region licence lists the provinces or cities it covers."
        ),
        cite.LICENCE_REGION,
        Severity.WARNING,
        licence_region,
        reads=("data_center", "vendor"),
    ),
    Rule(
        "VENDOR-ICP-FILING",
        Area.VENDOR,
        N_("ICP filing"),
        N_("The vendor's websites must carry an ICP filing number."),
        cite.ICP_FILING,
        Severity.WARNING,
        icp_filing,
        reads=("vendor",),
    ),
    Rule(
        "VENDOR-ISO27001",
        Area.VENDOR,
        N_("ISO/IEC 27001 certificate"),
        N_(
            "Information security certified to ISO/IEC 27001:2022, valid, with a surveillance audit in the last 12 months; 2013-edition certificates lapsed on 2025-10-31."
        ),
        cite.ISO27001,
        Severity.BLOCKER,
        iso27001,
        (*EXPIRY, "vendor.iso_audit_max_months", "vendor.iso27001_2013_withdrawn_on"),
        reads=("today", "vendor"),
    ),
    Rule(
        "VENDOR-ISO9001",
        Area.VENDOR,
        N_("ISO 9001 certificate"),
        N_(
            "Quality management certified to ISO 9001, valid, with a surveillance audit in the last 12 months."
        ),
        cite.ISO9001,
        Severity.WARNING,
        iso9001,
        (*EXPIRY, "vendor.iso_audit_max_months"),
        reads=("today", "vendor"),
    ),
    Rule(
        "VENDOR-MLPS3",
        Area.VENDOR,
        N_("MLPS level 3 assessment"),
        N_(
            "The vendor's systems must be assessed at MLPS 2.0 level 3 (等保三级), re-assessed at least once a year."
        ),
        cite.MLPS,
        Severity.BLOCKER,
        mlps,
        (*EXPIRY, "vendor.mlps_assessment_max_months", "vendor.mlps_min_level"),
        reads=("today", "vendor"),
    ),
    Rule(
        "VENDOR-SELF-OPERATED",
        Area.VENDOR,
        N_("Self-operated data center"),
        N_(
            "The vendor should run the data center itself (持牌自营), so spares, staff and repairs are under its control."
        ),
        cite.SELF_OPERATED,
        Severity.WARNING,
        self_operated,
        reads=("data_center", "vendor"),
    ),
    Rule(
        "VENDOR-NETWORK",
        Area.VENDOR,
        N_("Vendor network resources"),
        N_(
            "A vendor with its own BGP network and backbone links controls latency and failover better."
        ),
        cite.NETWORK,
        Severity.ADVICE,
        network,
        reads=("vendor",),
    ),
)
