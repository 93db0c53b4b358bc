"""Side-by-side hosting-vendor comparison (source item V4).

The source article compares two vendors on background, licence, certifications, network
and filing number. :func:`compare_vendors` builds that table for any set of vendors:
one row per dimension, one cell per vendor. A cell holds what the catalog records
(translatable lines) and the findings of the vendor rules behind it, so every cell says
whether it passes, warns, fails or is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from advisor.domain.compliance.base import STATUS_LABELS, Finding, Status
from advisor.domain.compliance.engine import RULES_BY_ID, evaluate_rule
from advisor.domain.compliance.facts import (
    CERT_ISO9001,
    CERT_ISO27001,
    CERT_MLPS,
    ComplianceInput,
    VendorFacts,
)
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS, Parameters
from advisor.domain.i18n import N_, Message

ROW_RULES = {
    "background": (),
    "licence": ("VENDOR-TELECOM-LICENCE",),
    "certifications": ("VENDOR-ISO27001", "VENDOR-ISO9001", "VENDOR-MLPS3"),
    "network": ("VENDOR-NETWORK",),
    "filing": ("VENDOR-ICP-FILING",),
}
ROW_LABELS = {
    "background": N_("Background"),
    "licence": N_("Licence"),
    "certifications": N_("Certifications"),
    "network": N_("Network resources"),
    "filing": N_("Filing number"),
}
NOT_RECORDED = Message(N_("Not recorded"))
STATUS_ORDER = (Status.FAIL, Status.UNKNOWN, Status.WARN, Status.PASS)


@dataclass(frozen=True)
class Cell:
    lines: tuple[Message, ...]
    findings: tuple[Finding, ...] = ()

    @property
    def status(self) -> Status | None:
        """The worst status among the cell's findings; ``None`` for a purely descriptive cell."""
        statuses = {finding.status for finding in self.findings}
        return next((status for status in STATUS_ORDER if status in statuses), None)


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class VendorComparison:
    today: date
    vendor_names: tuple[str, ...]
    rows: tuple[Row, ...]

    def row(self, key: str) -> Row:
        return next(row for row in self.rows if row.key == key)

    def as_table(self, translate=lambda s: s) -> list[list[str]]:
        """Plain text table: a header row, then one row per dimension ("[status]" per cell)."""
        table = [[translate(N_("Dimension")), *self.vendor_names]]
        for row in self.rows:
            texts = []
            for cell in row.cells:
                text = "; ".join(line.render(translate) for line in cell.lines)
                if cell.status is not None:
                    text += f" [{translate(STATUS_LABELS[cell.status])}]"
                texts.append(text)
            table.append([translate(row.label), *texts])
        return table


def background_lines(vendor: VendorFacts, today: date) -> tuple[Message, ...]:
    lines = []
    if vendor.founded_year is not None:
        lines.append(
            Message(
                N_("Founded in {year} ({years} years in business)"),
                {"year": vendor.founded_year, "years": today.year - vendor.founded_year},
            )
        )
    if vendor.registered_capital_cny is not None:
        lines.append(
            Message(
                N_("Registered capital {capital} million CNY"),
                {"capital": _millions(vendor.registered_capital_cny)},
            )
        )
    if vendor.background_notes:
        lines.append(Message("{text}", {"text": vendor.background_notes}))
    return tuple(lines) or (NOT_RECORDED,)


def _millions(amount: float):
    value = round(amount / 1_000_000, 2)
    return int(value) if value == int(value) else value


def licence_lines(vendor: VendorFacts) -> tuple[Message, ...]:
    if vendor.licences is None:
        return (NOT_RECORDED,)
    if not vendor.licences:
        return (Message(N_("No value-added telecom licence")),)
    lines = []
    for licence in vendor.licences:
        categories = ", ".join(licence.categories) if licence.categories else "—"
        lines.append(
            Message(
                N_("Licence {number} ({categories})"),
                {"number": licence.number or "—", "categories": categories},
            )
        )
    return tuple(lines)


def certification_lines(vendor: VendorFacts) -> tuple[Message, ...]:
    if vendor.certificates is None:
        return (NOT_RECORDED,)
    lines = []
    for cert in vendor.certificates:
        valid = cert.valid_until.isoformat() if cert.valid_until else "—"
        if cert.kind == CERT_ISO27001:
            edition = f":{cert.edition}" if cert.edition else ""
            lines.append(
                Message(
                    N_("ISO/IEC 27001{edition}, valid until {date}"),
                    {"edition": edition, "date": valid},
                )
            )
        elif cert.kind == CERT_ISO9001:
            lines.append(Message(N_("ISO 9001, valid until {date}"), {"date": valid}))
        elif cert.kind == CERT_MLPS:
            assessed = cert.last_audit_on.isoformat() if cert.last_audit_on else "—"
            lines.append(
                Message(
                    N_("MLPS level {level}, assessed on {date}"),
                    {"level": cert.level if cert.level is not None else "—", "date": assessed},
                )
            )
    return tuple(lines) or (Message(N_("No certificates")),)


def network_lines(vendor: VendorFacts) -> tuple[Message, ...]:
    lines = []
    if vendor.own_bgp is True:
        lines.append(Message(N_("Own BGP network")))
    elif vendor.own_bgp is False:
        lines.append(Message(N_("No BGP network of its own")))
    if vendor.cnnic_ip_alliance:
        lines.append(Message(N_("CNNIC IP alliance member")))
    if vendor.network_notes:
        lines.append(Message("{text}", {"text": vendor.network_notes}))
    return tuple(lines) or (NOT_RECORDED,)


def filing_lines(vendor: VendorFacts) -> tuple[Message, ...]:
    if vendor.icp_filing_number is None:
        return (NOT_RECORDED,)
    if not vendor.icp_filing_number.strip():
        return (Message(N_("No ICP filing")),)
    return (Message("{text}", {"text": vendor.icp_filing_number.strip()}),)


def _cell(key: str, vendor: VendorFacts, today: date, params: Parameters) -> Cell:
    lines = {
        "background": lambda: background_lines(vendor, today),
        "licence": lambda: licence_lines(vendor),
        "certifications": lambda: certification_lines(vendor),
        "network": lambda: network_lines(vendor),
        "filing": lambda: filing_lines(vendor),
    }[key]()
    facts = ComplianceInput(today=today, vendor=vendor)
    findings = tuple(
        evaluate_rule(RULES_BY_ID[rule_id], facts, params) for rule_id in ROW_RULES[key]
    )
    return Cell(lines, findings)


def compare_vendors(
    vendors, today: date, params: Parameters = DEFAULT_PARAMETERS
) -> VendorComparison:
    """The V4 table for ``vendors`` (any number, in the order given)."""
    vendors = tuple(vendors)
    rows = tuple(
        Row(key, ROW_LABELS[key], tuple(_cell(key, vendor, today, params) for vendor in vendors))
        for key in ROW_RULES
    )
    return VendorComparison(
        today, tuple(vendor.name or vendor.key or "—" for vendor in vendors), rows
    )
