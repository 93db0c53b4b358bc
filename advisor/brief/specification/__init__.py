"""The procurement documents' requirements (采购需求 / 技术规格书) of a brief's chosen option.

Built from the brief's snapshot only (the chosen option is ``options[0]``), in the active
language. The capacity is split into lots (采购包) by who supplies what, as 通用服务器政府采购需求
标准 (财库〔2023〕33号) splits server goods from services: buying and hosting gives a goods lot
(the servers) and a hosting lot (racks, power, cooling at a data center); buying into the
buyer's own room gives the goods lot and an internal readiness checklist instead of a vendor
lot; renting gives one lot of rented servers; the cloud gives one cloud-service lot.

Each lot has its own budget line (the brief's cost lines of that lot, never the whole budget),
its delivery term, its requirements, commercial terms and acceptance tests, the evidence a
bidder supplies per clause (提供相关技术证明文件) and the policy clauses of government
procurement, each marked applicable or not with why. A line is ★ (substantive: an offer that
fails it is rejected) only where the brief treats it as a veto, and never so that the option the
brief chose would fail it; ▲ for the brief's warnings. Requirements state performance as
numbers, not products: the tools of one maker are named only in the closing note of examples
per accelerator family.

Written as DOCX (python-docx, A4, header and page numbers) and as PDF (the same content through
an HTML template and WeasyPrint, as the brief).
The package reads by part: ``values`` (marks, lot kinds, the dataclasses, evidence wording),
``preface`` (the project, budget and delivery rows), ``performance`` (compute, hardware, storage,
network and software lines), ``rules`` (lines from the compliance findings, power and PUE),
``terms`` (commercial terms, acceptance tests, policy clauses), ``lots`` (the lots and
:func:`specification`) and ``files`` (DOCX and PDF)."""

from __future__ import annotations

from advisor.brief.specification.files import (
    docx_bytes,
    pdf_bytes,
)
from advisor.brief.specification.lots import (
    specification,
)
from advisor.brief.specification.performance import (
    link_class,
)
from advisor.brief.specification.preface import (
    lot_budget,
)
from advisor.brief.specification.rules import (
    rule_lines,
)
from advisor.brief.specification.values import (
    CLOUD,
    GOODS,
    HOSTING,
    IMPORTANT,
    MANDATORY,
    NUMBER,
    READINESS,
    RENT,
    YES_NO,
    Line,
    Lot,
    Policy,
    PrefaceRow,
    Section,
    Specification,
)

__all__ = [
    "CLOUD",
    "GOODS",
    "HOSTING",
    "IMPORTANT",
    "Line",
    "Lot",
    "MANDATORY",
    "NUMBER",
    "Policy",
    "PrefaceRow",
    "READINESS",
    "RENT",
    "Section",
    "Specification",
    "YES_NO",
    "docx_bytes",
    "link_class",
    "lot_budget",
    "pdf_bytes",
    "rule_lines",
    "specification",
]
