"""The lots by who supplies what, their sections, the closing notes, and :func:`specification`,
the whole document of a brief's chosen option."""

from __future__ import annotations

from datetime import date

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from advisor.brief.specification.performance import (
    hardware_lines,
)
from advisor.brief.specification.preface import (
    lot_preface,
    preface,
    region_text,
)
from advisor.brief.specification.rules import (
    goods_power_lines,
    power_lines,
    requirement_text,
    site_lines,
    threshold_groups,
    titled,
    vendor_lines,
)
from advisor.brief.specification.terms import (
    cloud_acceptance,
    cloud_terms,
    goods_terms,
    hosting_acceptance,
    hosting_terms,
    policies,
    rent_terms,
    server_acceptance,
)
from advisor.brief.specification.values import (
    CLOUD,
    GOODS,
    HOSTING,
    READINESS,
    RENT,
    Line,
    Lot,
    Section,
    Specification,
    _findings,
    blank,
)
from advisor.presentation.text import local_name, render_text

# --- Lots ------------------------------------------------------------------------------------------


def lot_kinds(mode: str | None) -> list[str]:
    """The lots a procurement mode needs (财库〔2023〕33号: server goods apart from services)."""
    return {
        "buy": [GOODS, HOSTING],
        "own": [GOODS, READINESS],
        "rent": [RENT],
        "cloud": [CLOUD],
    }.get(mode or "buy", [GOODS, HOSTING])


def lot_title(kind: str, number: int) -> str:
    titles = {
        GOODS: _("Lot %(n)d: servers (goods)"),
        HOSTING: _("Lot %(n)d: hosting of the servers (colocation service)"),
        RENT: _("Lot %(n)d: rented dedicated servers (service)"),
        CLOUD: _("Lot %(n)d: cloud computing service"),
    }
    if kind == READINESS:
        return _("Internal readiness checklist: the buyer's own room (not tendered)")
    return titles[kind] % {"n": number}


def lot_place(kind: str, option: dict) -> str | None:
    region = region_text(option)
    if kind == CLOUD:
        return _("a region in mainland China, named in the offer")
    if kind == GOODS and option.get("mode") == "own":
        return _("the buyer's own room (%(name)s)") % {"name": local_name(option.get("place"))}
    if kind == GOODS:
        return (
            _("the data center of the hosting lot, in %(region)s") % {"region": region}
            if region
            else _("the data center of the hosting lot")
        )
    return region


def readiness_lines(option: dict) -> list[Line]:
    """The own room's checks before the servers arrive: what the room must give them, each with
    what the brief found."""
    findings = _findings(option)
    lines = [Line("", line.text) for line in power_lines(option, findings)]
    for finding in option["compliance"]["findings"]:
        if finding["area"] != "site" or finding.get("severity") == "advice":
            continue
        needs = [requirement_text(group[-1]) for group in threshold_groups(finding)]
        body = _("; ").join(needs) or render_text(finding.get("explanation") or "")
        lines.append(
            Line(
                "",
                _("%(requirement)s. The brief found: %(found)s")
                % {
                    "requirement": titled(finding["title"], body),
                    "found": render_text(finding.get("message") or ""),
                },
            )
        )
    return lines


def lot_sections(kind: str, snapshot: dict, option: dict) -> list[Section]:
    requirements = _("Requirements")
    site = _("Site and service requirements")
    qualifications = _("Supplier qualifications")
    terms = _("Commercial terms")
    if kind == GOODS:
        sections = [
            (requirements, hardware_lines(snapshot, option) + goods_power_lines(option)),
            (terms, goods_terms(snapshot, option)),
        ]
    elif kind == HOSTING:
        sections = [
            (site, site_lines(option)),
            (qualifications, vendor_lines(option)),
            (terms, hosting_terms()),
        ]
    elif kind == RENT:
        sections = [
            (requirements, hardware_lines(snapshot, option)),
            (site, site_lines(option)),
            (qualifications, vendor_lines(option)),
            (terms, rent_terms(snapshot)),
        ]
    elif kind == CLOUD:
        sections = [
            (requirements, hardware_lines(snapshot, option)),
            (qualifications, vendor_lines(option)),
            (terms, cloud_terms(option)),
        ]
    else:
        sections = [(_("Checks of the room before delivery"), readiness_lines(option))]
    return [Section(title, lines) for title, lines in sections if lines]


def lot_acceptance(kind: str, snapshot: dict, option: dict) -> list[Line]:
    if kind in (GOODS, RENT):
        return server_acceptance(snapshot, option)
    if kind == CLOUD:
        return cloud_acceptance(snapshot, option)
    if kind == HOSTING:
        return hosting_acceptance(option)
    return []


def build_lots(snapshot: dict, option: dict) -> list[Lot]:
    lots, number = [], 0
    for kind in lot_kinds(option.get("mode")):
        vendor = kind != READINESS
        number += vendor
        lots.append(
            Lot(
                kind=kind,
                title=lot_title(kind, number),
                vendor=vendor,
                preface=lot_preface(snapshot, option, kind, lot_place(kind, option)),
                sections=lot_sections(kind, snapshot, option),
                acceptance=lot_acceptance(kind, snapshot, option),
                policies=policies(kind, snapshot, option) if vendor else [],
            )
        )
    return lots


def notes() -> list[str]:
    return [
        _(
            "★ marks a substantive item: an offer that does not meet it is rejected; it is used "
            "only where the approved brief treats the requirement as a veto. ▲ marks an "
            "important item, weighed in the evaluation."
        ),
        _(
            "The requirements state performance, not products: any product that meets them "
            "qualifies (通用服务器政府采购需求标准, 财库〔2023〕33号)."
        ),
        _(
            "Each requirement names the evidence the bidder supplies (提供相关技术证明文件); a "
            "requirement without its evidence counts as not met."
        ),
        _(
            "Interconnect figures are GB/s per accelerator in one direction, summed over its "
            "links; an all-reduce's bus bandwidth is compared with them."
        ),
        _(
            "The policy clauses bind a buyer under the Government Procurement Law; an "
            "enterprise buyer may keep them as its own terms or strike them."
        ),
        _("Blanks marked %(blank)s are for the buyer to fill in.") % {"blank": blank()},
    ]


def examples() -> list[str]:
    return [
        _("Any tool that measures the same quantity is accepted; for example:"),
        _(
            "NVIDIA (CUDA): nvidia-smi for the configuration and temperatures, DCGM diagnostics "
            "or gpu-burn for the burn-in, nccl-tests all_reduce_perf for the bus bandwidth."
        ),
        _(
            "AMD (ROCm): amd-smi, the ROCm Validation Suite for the burn-in, rccl-tests "
            "all_reduce_perf for the bus bandwidth."
        ),
        _(
            "Huawei Ascend (CANN): npu-smi, the Ascend DMI stress test for the burn-in, "
            "hccl_test for the bus bandwidth."
        ),
        _("Any family: fio for local storage; the buyer's own training script for the job."),
    ]


def specification(snapshot: dict, number: str = "") -> Specification:
    """The procurement requirements of the snapshot's chosen option, lot by lot, in the active
    language."""
    option = snapshot["options"][0]
    lots = build_lots(snapshot, option)
    return Specification(
        title=_("Technical specification: computing capacity for fine-tuning"),
        number=number,
        day=date.fromisoformat(snapshot["today"]),
        language=get_language() or "en",
        preface=preface(snapshot, option, lots),
        lots=lots,
        notes=notes(),
        examples_title=_("Examples per accelerator family"),
        examples=examples(),
    )
