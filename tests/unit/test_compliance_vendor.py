"""Hosting-vendor rules (V1-V3) with expiry dates relative to a fixed TODAY (2026-11-29)."""

from datetime import date, timedelta

import pytest

from advisor.domain.compliance.dates import add_months
from advisor.domain.compliance.facts import LicenceFacts
from advisor.domain.compliance.rules.vendor import licence_classes, same_province
from tests.unit.test_compliance_support import (
    TODAY,
    certificate,
    days,
    evaluate_one,
    facts,
    licence,
    with_certificate,
)

P, W, F, U = "pass", "warn", "fail", "unknown"
TWELVE_MONTHS_AGO = add_months(TODAY, -12)  # 2025-11-29
ONE_DAY = timedelta(days=1)


def vendor(**fields):
    return {"vendor": fields}


def cert(kind, **fields):
    return {"vendor": with_certificate(kind, **fields)}


def province(name):
    return {"data_center": {"province": name}}


CASES = [
    # Telecom licence with IDC (B11); a warning within 90 days of expiry.
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(valid_until=days(91))), P),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(valid_until=days(90))), W),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(valid_until=TODAY)), W),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(valid_until=days(-1))), F),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(categories=("B12", "B14"))), F),
    ("VENDOR-TELECOM-LICENCE", vendor(licences=()), F),
    ("VENDOR-TELECOM-LICENCE", vendor(licences=None), U),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(categories=None)), U),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(valid_until=None)), U),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(number=None)), U),
    # A category-2 number ("豫B2-…") recorded with B11 is inconsistent: check it.
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(number="豫B2-20261089")), W),
    ("VENDOR-TELECOM-LICENCE", vendor(**licence(number="黔B1-20200001")), P),
    # Licence coverage vs the data center's province (Guizhou).
    ("VENDOR-LICENCE-REGION", vendor(**licence(number="黔B1-20200001", coverage=None)), P),
    ("VENDOR-LICENCE-REGION", vendor(**licence(number="豫B2-20261089", coverage=None)), F),
    ("VENDOR-LICENCE-REGION", vendor(**licence(number="B1-20200001", coverage=None)), U),
    ("VENDOR-LICENCE-REGION", vendor(**licence(number="B1-20200001", coverage=("云南",))), F),
    ("VENDOR-LICENCE-REGION", vendor(**licence(number="B1-20200001", coverage=("Guizhou",))), P),
    (
        "VENDOR-LICENCE-REGION",
        {**vendor(**licence(number="黔B1-1", coverage=None)), **province("Guizhou")},
        P,
    ),
    ("VENDOR-LICENCE-REGION", province(None), U),
    ("VENDOR-LICENCE-REGION", vendor(licences=None), U),
    # ICP filing.
    ("VENDOR-ICP-FILING", vendor(icp_filing_number="豫ICP备2026018319号"), P),
    ("VENDOR-ICP-FILING", vendor(icp_filing_number="滇ICP备2020007656号-1"), P),
    ("VENDOR-ICP-FILING", vendor(icp_filing_number="ICP 2020007656"), W),
    ("VENDOR-ICP-FILING", vendor(icp_filing_number=""), F),
    ("VENDOR-ICP-FILING", vendor(icp_filing_number=None), U),
    # ISO/IEC 27001: valid, 2022 edition, surveillance audit within 12 months.
    ("VENDOR-ISO27001", cert("iso27001", valid_until=days(91), last_audit_on=days(-10)), P),
    ("VENDOR-ISO27001", cert("iso27001", valid_until=days(90), last_audit_on=days(-10)), W),
    ("VENDOR-ISO27001", cert("iso27001", valid_until=TODAY), W),
    ("VENDOR-ISO27001", cert("iso27001", valid_until=days(-1)), F),
    ("VENDOR-ISO27001", cert("iso27001", last_audit_on=TWELVE_MONTHS_AGO), W),
    ("VENDOR-ISO27001", cert("iso27001", last_audit_on=TWELVE_MONTHS_AGO - ONE_DAY), F),
    ("VENDOR-ISO27001", cert("iso27001", edition="2013"), F),
    ("VENDOR-ISO27001", cert("iso27001", edition=None), U),
    ("VENDOR-ISO27001", cert("iso27001", valid_until=None), U),
    ("VENDOR-ISO27001", cert("iso27001", last_audit_on=None), U),
    ("VENDOR-ISO27001", vendor(certificates=()), F),
    ("VENDOR-ISO27001", vendor(certificates=(), certificates_complete=False), U),
    ("VENDOR-ISO27001", vendor(certificates=None), U),
    # ISO 9001.
    ("VENDOR-ISO9001", cert("iso9001", valid_until=days(91)), P),
    ("VENDOR-ISO9001", cert("iso9001", valid_until=days(90)), W),
    ("VENDOR-ISO9001", cert("iso9001", valid_until=days(-1)), F),
    ("VENDOR-ISO9001", cert("iso9001", last_audit_on=days(-400)), F),
    ("VENDOR-ISO9001", cert("iso9001", last_audit_on=None), U),
    ("VENDOR-ISO9001", vendor(certificates=None), U),
    # MLPS level 3, assessed within 12 months; due within 90 days warns.
    ("VENDOR-MLPS3", cert("mlps", last_audit_on=add_months(days(91), -12)), P),
    ("VENDOR-MLPS3", cert("mlps", last_audit_on=add_months(days(90), -12)), W),
    ("VENDOR-MLPS3", cert("mlps", last_audit_on=TWELVE_MONTHS_AGO), W),
    ("VENDOR-MLPS3", cert("mlps", last_audit_on=add_months(days(-1), -12)), F),
    ("VENDOR-MLPS3", cert("mlps", level=2), F),
    ("VENDOR-MLPS3", cert("mlps", level=None), U),
    ("VENDOR-MLPS3", cert("mlps", last_audit_on=None), U),
    ("VENDOR-MLPS3", vendor(certificates=()), F),
    (
        "VENDOR-MLPS3",
        vendor(certificates=(certificate("iso9001"),), certificates_complete=False),
        U,
    ),
    ("VENDOR-MLPS3", vendor(certificates=None), U),
    # Self-operated data center.
    ("VENDOR-SELF-OPERATED", {"data_center": {"operator_key": "vendor-a"}}, P),
    ("VENDOR-SELF-OPERATED", {"data_center": {"operator_key": "someone-else"}}, F),
    ("VENDOR-SELF-OPERATED", {"data_center": {"operator_key": None, "self_operated": True}}, P),
    ("VENDOR-SELF-OPERATED", {"data_center": {"operator_key": None, "self_operated": None}}, U),
    # Network resources (advice).
    ("VENDOR-NETWORK", vendor(own_bgp=True), P),
    ("VENDOR-NETWORK", vendor(own_bgp=False), W),
    ("VENDOR-NETWORK", vendor(own_bgp=None), U),
]


@pytest.mark.parametrize(("rule_id", "overrides", "expected"), CASES)
def test_vendor_rule(rule_id, overrides, expected):
    finding = evaluate_one(rule_id, facts(**overrides))
    assert finding.status == expected, finding.message.render()


@pytest.mark.parametrize(
    ("today", "expected"),
    [
        (date(2025, 7, 1), "pass"),  # 122 days before the deadline: outside the 90-day window
        (date(2025, 10, 31), "warn"),  # the last day 2013 certificates were valid
        (date(2025, 11, 1), "fail"),  # lapsed
    ],
)
def test_iso27001_2013_edition_around_the_transition_deadline(today, expected):
    certificate = with_certificate(
        "iso27001", edition="2013", valid_until=date(2027, 1, 1), last_audit_on=date(2025, 3, 1)
    )
    finding = evaluate_one("VENDOR-ISO27001", facts(today=today, vendor=certificate))
    assert finding.status == expected, finding.message.render()


def test_mlps_level_two_is_reported_with_the_required_level():
    finding = evaluate_one("VENDOR-MLPS3", facts(**cert("mlps", level=2)))
    assert finding.message.params == {"level": 2, "required": 3}


def test_licence_expiry_message_carries_date_and_window():
    finding = evaluate_one(
        "VENDOR-TELECOM-LICENCE", facts(**vendor(**licence(valid_until=days(30))))
    )
    assert finding.message.params["date"] == "2026-12-29"
    assert finding.message.params["window"] == 90


def test_licence_number_is_read_for_province_and_classes():
    assert licence_classes("豫B2-20261089") == ("豫", ("B2",))
    assert licence_classes("B1.B2-20200001") == (None, ("B1", "B2"))
    assert licence_classes("ISO-27001") is None
    assert same_province("黔", "贵州省") and same_province("黔", "guizhou")
    assert not same_province("豫", "贵州")


def test_best_idc_licence_is_chosen_among_several():
    licences = (
        LicenceFacts(number="B1-1", categories=("B11",), valid_until=days(-5)),
        LicenceFacts(number="B1-2", categories=("B11",), valid_until=days(400)),
    )
    finding = evaluate_one("VENDOR-TELECOM-LICENCE", facts(**vendor(licences=licences)))
    assert finding.status == "pass"
    assert finding.message.params["number"] == "B1-2"


def test_add_months_clamps_to_month_end():
    assert add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)
    assert add_months(date(2024, 2, 29), -12) == date(2023, 2, 28)
    assert add_months(date(2026, 11, 29), -12) == date(2025, 11, 29)
