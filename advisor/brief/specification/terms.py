"""Commercial terms per lot, acceptance tests, and the policy clauses of government
procurement (applicable or not, with why)."""

from __future__ import annotations

import math

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from advisor.brief.specification.performance import (
    link_class,
    storage_figures,
    throughput_needed,
)
from advisor.brief.specification.preface import (
    _cost_quantity,
    horizon_years,
)
from advisor.brief.specification.rules import (
    power_lines,
    titled,
)
from advisor.brief.specification.values import (
    CLOUD,
    GOODS,
    IMPORTANT,
    NUMBER,
    RENT,
    YES_NO,
    Line,
    Policy,
    _findings,
    blank,
    commitment,
)
from advisor.domain.delivery.checklist import (
    ACCEPTABLE_BUS_FRACTION,
    BURN_IN_MIN,
    FAULT_RESPONSE_H,
    SPARE_PARTS_H,
)
from advisor.domain.i18n import plural_number
from advisor.presentation.numbers import plain_number

# --- Commercial terms -----------------------------------------------------------------------------


def goods_terms(snapshot: dict, option: dict) -> list[Line]:
    return [
        Line(
            IMPORTANT,
            _(
                "Delivery and installation: delivered to the place of delivery, racked, cabled, "
                "installed and commissioned by the supplier: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            IMPORTANT,
            ngettext(
                "Warranty: at least %(years)s year on site from acceptance, parts and labour.",
                "Warranty: at least %(years)s years on site from acceptance, parts and labour.",
                horizon_years(snapshot),
            )
            % {"years": horizon_years(snapshot)},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "After-sales service: a service line open 7×24; response to a fault within "
                "%(hours)s h; an engineer on site when a remote repair fails."
            )
            % {"hours": FAULT_RESPONSE_H},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "Spare parts: failed accelerators, power supplies, fans and disks replaced "
                "within %(hours)s h during the warranty; failed disks stay with the buyer."
            )
            % {"hours": SPARE_PARTS_H},
            commitment(),
            NUMBER,
        ),
        Line(
            "",
            _(
                "Payment: after the acceptance tests pass; the split between advance, payment "
                "on acceptance and retention until the warranty ends: %(blank)s."
            )
            % {"blank": blank()},
        ),
        Line(
            "",
            _(
                "Training: the supplier trains the buyer's operators in installation, "
                "monitoring, fault diagnosis and replacing parts (persons and days: %(blank)s)."
            )
            % {"blank": blank()},
        ),
    ]


def hosting_terms() -> list[Line]:
    return [
        Line(
            IMPORTANT,
            _(
                "Billing: racks per rack-month and electricity metered per kWh, at prices "
                "stated in the offer and fixed for the contract period."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            IMPORTANT,
            _(
                "Access and remote hands: the buyer's staff and the goods supplier may enter and "
                "work at the racks; remote hands on request 7×24: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            IMPORTANT,
            _(
                "Exit: at the end of the term the buyer removes its servers; the data center "
                "keeps no data of the buyer: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            "",
            _("Payment: monthly or quarterly in arrears: %(blank)s.") % {"blank": blank()},
        ),
    ]


def rent_terms(snapshot: dict) -> list[Line]:
    assumptions = (snapshot.get("procurement") or {}).get("assumptions") or {}
    return [
        Line(
            IMPORTANT,
            ngettext(
                "Billing: per server-month, hosting, power and network included; a minimum term "
                "of no more than %(months)s month.",
                "Billing: per server-month, hosting, power and network included; a minimum term "
                "of no more than %(months)s months.",
                plural_number(assumptions.get("rent_min_months") or 1),
            )
            % {"months": plain_number(assumptions.get("rent_min_months") or 1)},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "Repairs: response to a fault within %(response)s h; failed parts replaced "
                "within %(hours)s h, or the server replaced."
            )
            % {"response": FAULT_RESPONSE_H, "hours": SPARE_PARTS_H},
            commitment(),
            NUMBER,
        ),
        Line(
            IMPORTANT,
            _(
                "Exit: at the end of the term the disks are erased and the erasure confirmed in "
                "writing: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            "",
            _("Payment: monthly in advance or in arrears: %(blank)s.") % {"blank": blank()},
        ),
    ]


def cloud_terms(option: dict) -> list[Line]:
    hours = _cost_quantity(option, "cloud_compute")
    return [
        Line(
            IMPORTANT,
            _(
                "Billing: per card-hour or finer, at a price fixed for the contract period; the "
                "job needs about %(hours)s card-hours; no commitment beyond the buyer's order."
            )
            % {"hours": hours or blank()},
            commitment(),
            NUMBER if hours else "",
        ),
        Line(
            IMPORTANT,
            _(
                "Exit: the buyer can export its data and checkpoints at any time; on termination "
                "every copy is deleted and the deletion confirmed in writing: required."
            ),
            commitment(),
            YES_NO,
        ),
        Line(
            "",
            _("Payment: prepaid or monthly in arrears: %(blank)s.") % {"blank": blank()},
        ),
    ]


# --- Acceptance -----------------------------------------------------------------------------------


def bus_floor(option: dict) -> int | None:
    """All-reduce bus bandwidth to accept inside a server: a share of the interconnect
    requirement (never one product's own figure)."""
    floor = link_class((option["capacity"].get("interconnect") or {}).get("within_gbs"))
    return round(floor * ACCEPTABLE_BUS_FRACTION) if floor else None


def throughput_acceptance(snapshot: dict, option: dict) -> Line:
    target = throughput_needed(snapshot, option["sizing"].get("time_to_train_hours"))
    return Line(
        "",
        titled(
            _("The training job"),
            _(
                "the stated job runs for at least one hour (or to its end) with the offered "
                "software; its throughput across all accelerators is at least what the offer "
                "states and at least %(rate)s tokens/s."
            )
            % {"rate": plain_number(target) if target else blank()},
        ),
    )


def server_acceptance(snapshot: dict, option: dict) -> list[Line]:
    capacity = option["capacity"]
    sizing = option["sizing"]
    lines = [
        Line(
            "",
            titled(
                _("Configuration"),
                _(
                    "the accelerators, memory per accelerator (at least %(gib)s GiB usable, as "
                    "the maker's monitoring tool reports it), host memory and disks of every "
                    "server are those of the offer."
                )
                % {"gib": plain_number(math.ceil(sizing["memory_total_gib"] * 10) / 10)},
            ),
        ),
        Line(
            "",
            titled(
                _("Burn-in"),
                _(
                    "every accelerator of every server at full load for at least %(minutes)s "
                    "minutes without a memory (ECC) error or device error; clocks stay at or "
                    "above the maker's base clock and temperatures level off."
                )
                % {"minutes": BURN_IN_MIN},
            ),
        ),
    ]
    accept = bus_floor(option)
    if accept and capacity["gpus_per_instance"] > 1:
        lines.append(
            Line(
                "",
                titled(
                    _("Communication inside a server"),
                    _(
                        "all-reduce across all %(per)s accelerators of each server reaches a "
                        "bus bandwidth of at least %(accept)s GB/s at large messages (%(share)s "
                        "of the interconnect requirement)."
                    )
                    % {
                        "per": capacity["gpus_per_instance"],
                        "accept": plain_number(accept),
                        "share": f"{ACCEPTABLE_BUS_FRACTION:.0%}",
                    },
                ),
            )
        )
    gbps = sizing.get("network_gbps_per_server")
    if (capacity.get("instances") or 1) > 1 and gbps:
        lines.append(
            Line(
                "",
                titled(
                    _("Communication between servers"),
                    _(
                        "all-reduce across all %(gpus)s accelerators of the job reaches a bus "
                        "bandwidth of at least %(accept)s GB/s (%(share)s of the network "
                        "requirement per server)."
                    )
                    % {
                        "gpus": capacity["gpus"],
                        "accept": plain_number(round(float(gbps) / 8 * ACCEPTABLE_BUS_FRACTION)),
                        "share": f"{ACCEPTABLE_BUS_FRACTION:.0%}",
                    },
                ),
            )
        )
    capacity_tb, read_gbs = storage_figures(option)
    if capacity_tb:
        lines.append(
            Line(
                "",
                titled(
                    _("Local storage"),
                    _(
                        "sequential read of at least %(read)s GB/s per server measured with a "
                        "file-system benchmark, and at least %(tb)s TB usable."
                    )
                    % {"read": plain_number(read_gbs), "tb": plain_number(capacity_tb)},
                ),
            )
        )
    lines.append(throughput_acceptance(snapshot, option))
    return lines


def cloud_acceptance(snapshot: dict, option: dict) -> list[Line]:
    capacity = option["capacity"]
    lines = [
        Line(
            "",
            titled(
                _("The instance ordered"),
                _(
                    "%(per)s accelerators in one instance, each with at least %(gib)s GiB "
                    "usable as the provider's monitoring reports it, in the region named in the "
                    "contract."
                )
                % {
                    "per": capacity["gpus_per_instance"],
                    "gib": plain_number(math.ceil(option["sizing"]["memory_total_gib"] * 10) / 10),
                },
            ),
        )
    ]
    accept = bus_floor(option)
    if accept and capacity["gpus_per_instance"] > 1:
        lines.append(
            Line(
                "",
                titled(
                    _("Communication inside the instance"),
                    _(
                        "all-reduce across all %(per)s accelerators reaches a bus bandwidth of "
                        "at least %(accept)s GB/s at large messages."
                    )
                    % {"per": capacity["gpus_per_instance"], "accept": plain_number(accept)},
                ),
            )
        )
    lines.append(throughput_acceptance(snapshot, option))
    return lines


def hosting_acceptance(option: dict) -> list[Line]:
    lines = power_lines(option, _findings(option))
    load = lines[0].text if lines else ""
    return [
        Line(
            "",
            titled(
                _("Power and cooling under load"),
                _(
                    "during the goods lot's burn-in each rack carries its full load without a "
                    "breaker trip, and the inlet temperature stays within the range required "
                    "above."
                ),
            )
            + (f" ({load})" if load else ""),
        ),
        Line(
            "",
            titled(
                _("Network"),
                _("the contracted bandwidth and addresses are delivered and measured."),
            ),
        ),
    ]


# --- Policy clauses ---------------------------------------------------------------------------------


def policies(kind: str, snapshot: dict, option: dict) -> list[Policy]:
    goods = kind == GOODS
    stores_data = kind in (RENT, CLOUD)
    return [
        Policy(
            _("Supplier conditions (政府采购法 第二十二条)"),
            True,
            _(
                "Every supplier of a lot: able to perform the contract, no major violation of "
                "law in its business in the last three years, not listed as dishonest on "
                "信用中国 or 中国政府采购网 (evidence: its statement and the search records)."
            ),
        ),
        Policy(
            _("Small and medium-sized enterprises (财库〔2020〕46号)"),
            True,
            _(
                "The lot is not reserved; offers of small and micro enterprises get the price "
                "deduction the buyer states (%(blank)s, within the 10–20 percent of 财库〔2022〕19号)."
            )
            % {"blank": blank()},
        ),
        Policy(
            _("Imported products (财库〔2007〕119号)"),
            goods,
            imported_why(snapshot, option) if goods else _("A service, not goods bought."),
        ),
        Policy(
            _("Energy-saving products (财库〔2019〕19号)"),
            False,
            _("Servers are not on the list of energy-saving products.")
            if goods
            else _("A service, not goods bought."),
        ),
        Policy(
            _("Environmental label products (财库〔2019〕18号)"),
            goods,
            _(
                "Servers are on the list (A02010103): offers certified with the environmental "
                "label are preferred."
            )
            if goods
            else _("A service, not goods bought."),
        ),
        Policy(
            _("General-purpose server requirement standard (财库〔2023〕33号)"),
            goods,
            _(
                "The servers are bought as goods in a lot of their own; the standard's "
                "substantive items apply to a government buyer."
            )
            if goods
            else _("Services are tendered apart from the servers, as the standard asks."),
        ),
        Policy(
            _("Data security and personal information (数据安全法, 个人信息保护法)"),
            stores_data,
            _("The supplier stores the training data and checkpoints.")
            if stores_data
            else _("The servers are the buyer's own; the supplier keeps no data of the buyer."),
        ),
    ]


def imported_why(snapshot: dict, option: dict) -> str:
    if (snapshot.get("procurement") or {}).get("domestic_only"):
        return _("The brief weighed domestic accelerators only: imported products are refused.")
    if option.get("domestic"):
        return _(
            "The approved brief chose a domestic accelerator; imported products are accepted "
            "only with the approval the rules require."
        )
    return _(
        "The approved brief chose an imported accelerator: a government buyer obtains the "
        "approval for imported products before tendering; domestic products qualify alike."
    )
