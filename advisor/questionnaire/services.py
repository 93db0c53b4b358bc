"""Questions for an option, read from the catalog with the assessment's declared facts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from advisor.domain.compliance.base import Status
from advisor.domain.economics.inputs import BASIS_OFFICIAL, BASIS_OVERRIDE, BASIS_QUOTE
from advisor.domain.questionnaire.declared import DeclaredFact, by_subject
from advisor.domain.questionnaire.questions import (
    Question,
    Subjects,
    declared_for_rule,
    questions_for,
)
from advisor.domain.questionnaire.specs import (
    ACCELERATOR,
    DATA_CENTER,
    FACTS,
    OFFER,
    OPERATOR,
    RULE_FACTS,
    SERVER,
)
from advisor.domain.recommend import Option
from advisor.selectors import compliance as compliance_selectors
from advisor.selectors import declared as declared_selectors
from advisor.selectors.recommend import OWN_ROOM_KEY, RecommendRun, offer_key, subject_keys
from vendors.models import Accelerator, DataCenter, HostingVendor, Offer, ServerModel

# A figure resting on one of these is firm; any other basis is indicative and asked for.
FIRM_BASES = (BASIS_QUOTE, BASIS_OVERRIDE, BASIS_OFFICIAL)
MODE_PRICE = {
    "buy": "purchase_cny_per_server",
    "rent": "rent_cny_per_server_month",
    "cloud": "cloud_cny_per_gpu_hour",
}


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


def subjects_for(option: Option, declared: tuple[DeclaredFact, ...]) -> Subjects:
    """Who the option's facts are about, and what the catalog and declared facts record."""
    grouped = by_subject(declared)
    keys, values = {}, {}
    dc = DataCenter.objects.filter(key=option.site.data_center.key).first()
    server = ServerModel.objects.select_related("accelerator").get(key=option.hardware.server.key)
    if dc is not None:
        keys[DATA_CENTER] = (dc.key, dc.name)
        values[DATA_CENTER] = _row_values(DATA_CENTER, dc, grouped.get(dc.key, {}))
        if dc.vendor is not None:
            vendor = dc.vendor
            keys[OPERATOR] = (vendor.key, vendor.name)
            values[OPERATOR] = {
                **_certificate_values(vendor),
                **_row_values(OPERATOR, vendor, grouped.get(vendor.key, {})),
            }
        key = offer_key(option)
        keys[OFFER] = (key, f"{server.name} @ {dc.name}")
        offer = Offer.objects.filter(server_model=server, data_center=dc).first()
        values[OFFER] = _row_values(OFFER, offer, grouped.get(key, {}))
    keys[SERVER] = (server.key, server.name)
    values[SERVER] = _row_values(SERVER, server, grouped.get(server.key, {}))
    accelerator: Accelerator = server.accelerator
    keys[ACCELERATOR] = (accelerator.key, accelerator.name)
    values[ACCELERATOR] = _row_values(ACCELERATOR, accelerator, grouped.get(accelerator.key, {}))
    return Subjects(keys, values)


def price_figures(option: Option, modes: tuple[str, ...]) -> tuple[str, ...]:
    """The economics figures this option rests on that are missing or only indicative."""
    site = option.site
    if site.data_center.key == OWN_ROOM_KEY:
        return ()
    wanted = list(site.missing_costs)
    for name in ("tariff_cny_per_kwh", "rack_fee_cny_per_month", "rack_power_limit_kw"):
        provenance = site.cost_provenance.get(name)
        if provenance is None or provenance.basis not in FIRM_BASES:
            wanted.append(name)
    _, provenance = site.prices_for(option.hardware)
    for mode in modes:
        name = MODE_PRICE.get(mode)
        if name and (provenance.get(name) is None or provenance[name].basis not in FIRM_BASES):
            wanted.append(name)
    return tuple(dict.fromkeys(wanted))


def questions(run: RecommendRun, option: Option) -> list[Question]:
    """The questionnaire for ``option``: its unknown and stale findings, its indicative prices.

    Facts already declared in this assessment are not asked again unless they are stale.
    """
    subjects = subjects_for(option, run.declared)
    asked = questions_for(
        option.compliance.findings,
        subjects,
        run.today,
        compliance_selectors.rule_parameters(),
        price_figures(option, run.procurement.modes),
    )
    declared = {(item.subject, item.fact.name) for item in run.declared}
    return [
        q
        for q in asked
        if (q.subject, q.fact.name) not in declared or q.reason == "stale"
        if q.fact.kind != OFFER or "rent" in run.procurement.modes or q.fact.name != "monthly_rent"
    ]


@dataclass(frozen=True)
class Change:
    """A finding before and after the vendor's answers."""

    rule_id: str
    title: str
    before: Status
    after: Status
    message: object


def changes(before: Option, after: Option) -> list[Change]:
    """The findings whose status the answers change."""
    old = {f.rule_id: f for f in before.compliance.findings}
    return [
        Change(f.rule_id, f.title, old[f.rule_id].status, f.status, f.message)
        for f in after.compliance.findings
        if f.rule_id in old and old[f.rule_id].status is not f.status
    ]


def declared_in(option: Option, rule_id: str, declared) -> list[DeclaredFact]:
    """The declared facts a finding of ``option`` was computed from."""
    return declared_for_rule(rule_id, subject_keys(option), declared)


def questionnaire_context(run: RecommendRun, option: Option) -> dict:
    """What the option page shows of the questionnaire: the open questions, the upload form,
    and per finding the vendor's declared facts it was computed from."""
    from advisor.questionnaire.forms import UploadForm

    return {
        "open_questions": questions(run, option),
        "questionnaire_form": UploadForm(initial={"option": option.key}),
        "declared_by_rule": {
            f.rule_id: declared_in(option, f.rule_id, run.declared)
            for f in option.compliance.findings
        },
    }


def questionnaire_snapshot(run: RecommendRun, option: Option) -> dict:
    """For the brief: every declared fact with its evidence, and the questions still open.

    JSON-ready; question wordings stay English templates, translated when the PDF renders.
    """
    keys = subject_keys(option)
    mine = {(keys[f.kind], f.name) for f in FACTS}
    declared = [
        {
            "subject": item.subject,
            "fact": item.fact.name,
            "question": item.fact.question,
            "value": item.value,
            "unit": item.fact.unit,
            "evidence": item.evidence,
            "received": item.received,
            "rules": [rule for rule, needed in RULE_FACTS.items() if item.fact in needed],
        }
        for item in run.declared
        if (item.subject, item.fact.name) in mine
    ]
    open_questions = [
        {
            "id": q.id,
            "subject": q.subject_name,
            "question": q.fact.question,
            "reason": q.reason,
            "rules": list(q.rules),
        }
        for q in questions(run, option)
    ]
    by_rule = {
        f.rule_id: [item.fact.name for item in declared_in(option, f.rule_id, run.declared)]
        for f in option.compliance.findings
    }
    return {
        "declared": declared,
        "open": open_questions,
        "declared_by_rule": {rule: names for rule, names in by_rule.items() if names},
    }
