"""Declared facts (the scenario's ``declared`` section) laid over catalog rows.

The catalog rows are copied, never saved: a declared fact changes this assessment only.
Certificate facts (``<kind>.<field>``) replace the vendor's certificate of that kind with an
unsaved copy carrying the declared fields.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import date

from advisor.catalog import compliance as compliance_selectors
from advisor.domain.compliance.facts import BuyerRequirement, VendorFacts
from advisor.domain.questionnaire.declared import DeclaredFact
from vendors.models import Certificate, DataCenter, HostingVendor

SOFTWARE_FACTS = ("pytorch_version", "stack_version")
# A cloud instance image's software (declared on the cloud offer), read as a server's is.
IMAGE_FACTS = {"image_pytorch_version": "pytorch_version", "image_stack_version": "stack_version"}


def overlaid(row, facts: dict[str, DeclaredFact] | None):
    """A copy of ``row`` with the declared plain fields set (``row`` itself when none)."""
    plain = {
        name: item
        for name, item in (facts or {}).items()
        if "." not in name and name not in SOFTWARE_FACTS
    }
    if row is None or not plain:
        return row
    row = copy.copy(row)
    for name, item in plain.items():
        setattr(row, name, item.python_value)
    return row


def vendor_facts(
    vendor: HostingVendor,
    facts: dict[str, DeclaredFact] | None,
    data_center: DataCenter | None = None,
) -> VendorFacts:
    """The vendor's facts with its declared fields and certificates applied; with
    ``data_center``, whether each catalog certificate's scope covers that site (a certificate
    the vendor declares stands for the offer it answers for)."""
    base = compliance_selectors.vendor_facts(overlaid(vendor, facts), data_center)
    by_kind: dict[str, dict[str, object]] = {}
    for name, item in (facts or {}).items():
        if "." in name:
            kind, field = name.split(".", 1)
            by_kind.setdefault(kind, {})[field] = item.python_value
    if not by_kind:
        return base
    certificates = list(base.certificates or ())
    rows = list(vendor.certificates.all())
    for kind, fields in by_kind.items():
        existing = [row for row in rows if row.kind == kind]
        latest = max(
            existing,
            key=lambda row: row.valid_until or row.issued_on or date.min,
            default=None,
        )
        row = copy.copy(latest) if latest else Certificate(kind=kind, vendor=vendor)
        for field, value in fields.items():
            setattr(row, field, value)
        declared = compliance_selectors.certificate_facts(row)
        old = {compliance_selectors.certificate_facts(r, data_center) for r in existing}
        certificates = [cert for cert in certificates if cert not in old]
        if declared is not None:
            certificates.append(declared)
    return replace(base, certificates=tuple(certificates))


def buyer_requirement(
    software_stack: str | None, facts: dict[str, DeclaredFact] | None
) -> BuyerRequirement | None:
    """The software the vendor declares the server ships with (PyTorch on the accelerator's
    stack), checked by HW-SOFTWARE-STACK; None when nothing is declared."""
    facts = facts or {}
    if not any(name in facts for name in SOFTWARE_FACTS):
        return None
    torch = facts.get("pytorch_version")
    stack = facts.get("stack_version")
    return BuyerRequirement(
        framework="pytorch" if torch else None,
        framework_version=torch.value if torch else None,
        stack=software_stack,
        stack_version=stack.value if stack else None,
    )


def provider_facts(
    key: str, name: str, name_zh: str | None, facts: dict[str, DeclaredFact] | None
) -> VendorFacts:
    """A cloud provider the catalog has no vendor record of: its name, and the certificates it
    declared. What it lists is a claim, so a certificate it did not declare stays unknown."""
    by_kind: dict[str, dict[str, object]] = {}
    for fact_name, item in (facts or {}).items():
        if "." in fact_name:
            kind, field = fact_name.split(".", 1)
            by_kind.setdefault(kind, {})[field] = item.python_value
    certificates = []
    for kind, fields in by_kind.items():
        row = Certificate(kind=kind)
        for field, value in fields.items():
            setattr(row, field, value)
        declared = compliance_selectors.certificate_facts(row)
        if declared is not None:
            certificates.append(declared)
    return VendorFacts(
        key=key,
        name=name,
        name_zh=name_zh,
        certificates=tuple(certificates) if certificates else None,
        certificates_complete=False,
    )


def image_requirement(
    software_stack: str | None, facts: dict[str, DeclaredFact] | None
) -> BuyerRequirement | None:
    """The software a cloud provider declares its instance image has (the cloud offer's
    ``image_*`` facts), read as :func:`buyer_requirement` reads a server's."""
    renamed = {IMAGE_FACTS[n]: item for n, item in (facts or {}).items() if n in IMAGE_FACTS}
    return buyer_requirement(software_stack, renamed)
