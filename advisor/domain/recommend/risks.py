"""Risks read from the figures of the chosen option: what a finance director or an engineer
would otherwise find only in the annexes.

- the memory a GPU needs fits at the estimate but not at the upper edge of its band;
- the predicted utilisation of the accelerators is below a stated floor;
- the accelerator's export-control record is older than the rule allows;
- the difference to the same server at another site rests on a demand charge that only one
  of the two sites' figures has.

Each is a :class:`Message` (worded by the presentation): the decision paragraph and page 2
of the brief list them. Pure Python.
"""

from __future__ import annotations

from datetime import date

from advisor.domain.compliance.base import Status
from advisor.domain.i18n import N_, Message, Nn_
from advisor.domain.recommend.options import Option, Recommendation
from advisor.domain.recommend.sites import same_server_by_site

# Below this share of the accelerators' peak the job mostly waits (memory, communication,
# launch overhead): a quarter of the usual 40-50 % of a well-fed dense fine-tune (the MFU the
# sizing's reference cases reach), stated here so that the risk line can say it.
UTILISATION_FLOOR = 0.10


def memory_risk(option: Option) -> Message | None:
    """Fits at the estimate, not at the upper edge of the estimate's band."""
    sizing = option.sizing
    have = sizing.capacity_gib
    if not sizing.fits or not have or sizing.memory_high_gib <= have:
        return None
    return Message(
        N_(
            "Memory: {need:,.1f} of {have:,.1f} GiB per GPU fits at the estimate, not at the "
            "upper edge of its band ({high:,.1f} GiB); test the longest sequences before "
            "ordering, or choose more GPUs."
        ),
        {"need": sizing.memory.total, "have": have, "high": sizing.memory_high_gib},
    )


def utilisation_risk(option: Option, floor: float = UTILISATION_FLOOR) -> Message | None:
    """The predicted share of the accelerators' peak the job uses, below ``floor``."""
    time = option.sizing.time
    share = time.model_flops_utilisation if time is not None else None
    if share is None or share >= floor:
        return None
    return Message(
        N_(
            "Utilisation: the job is predicted to use {share:.0%} of the accelerators' peak, "
            "below the {floor:.0%} floor: most of the time paid for is spent waiting, and the "
            "time estimate is less certain."
        ),
        {"share": share, "floor": floor},
    )


def export_control_risk(option: Option) -> Message | None:
    """The availability / export-control record is older than the rule's limit."""
    finding = next((f for f in option.compliance.findings if f.rule_id == "HW-AVAILABILITY"), None)
    availability = option.hardware.availability
    if finding is None or availability is None or availability.as_of is None:
        return None
    limit = option.compliance.parameters["hw.availability_max_age_days"]
    age = (option.compliance.today - availability.as_of).days
    if finding.status is Status.PASS or age <= limit:
        return None
    return Message(
        N_(
            "Export control: the availability record of {accelerator} dates from {day} "
            "({age} days old, more than {limit}); confirm with the supplier that it can still "
            "be delivered."
        ),
        {
            "accelerator": option.hardware.accelerator.name,
            "accelerator_zh": getattr(option.hardware.accelerator, "name_zh", None),
            "day": _iso(availability.as_of),
            "age": age,
            "limit": limit,
        },
    )


def _iso(day: date) -> str:
    return day.isoformat()


def demand_charge_risks(option: Option, recommendation: Recommendation) -> list[Message]:
    """One line for the other sites whose difference to this one lacks a demand charge that
    only one of the two sites' figures includes (the other's is not recorded): how many, the
    first three by name and the largest such part."""
    found = []
    for row in same_server_by_site(recommendation.options, option):
        difference = row.difference
        if difference is None:
            continue
        # A demand charge only one site records is left out of the stated difference
        # (decision 0105): the difference is then short of a part nobody can yet price.
        part = difference.left_out_cny.get("demand_charge") or difference.parts_cny.get(
            "demand_charge"
        )
        if not part:
            continue
        other = next(o for o in recommendation.options if o.key == row.option_key)
        charges = [o.economics.inputs.site.demand_charge_cny_per_kw_month for o in (option, other)]
        if all(charges) or not any(charges):
            continue
        found.append((abs(part), row))
    if not found:
        return []
    found.sort(key=lambda item: (-item[0], item[1].site_key))
    rows = [row for _, row in found]
    named = rows[:3]
    return [
        Message.counted(
            Nn_(
                "Sites: the difference to {count} other site ({sites}) leaves out up to "
                "{part:,.0f} CNY of demand charge that only one side's figures have; the "
                "other's is not recorded, so the true difference is not yet known.",
                "Sites: the difference to {count} other sites ({sites}) leaves out up to "
                "{part:,.0f} CNY of demand charge that only one side's figures have; the "
                "other's is not recorded, so the true difference is not yet known.",
            ),
            "count",
            {
                "count": len(rows),
                "sites": ", ".join(r.site_name for r in named),
                "sites_zh": "、".join(r.site_name_zh or r.site_name for r in named),
                "part": found[0][0],
            },
        )
    ]


def figure_risks(option: Option, recommendation: Recommendation) -> tuple[Message, ...]:
    """The chosen option's risks read from its figures, most consequential first."""
    found = [memory_risk(option), utilisation_risk(option), export_control_risk(option)]
    found += demand_charge_risks(option, recommendation)
    return tuple(message for message in found if message is not None)
