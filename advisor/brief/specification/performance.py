"""Performance requirements stated as numbers: compute, hardware, storage, network and
software lines."""

from __future__ import annotations

import math

from django.utils.translation import gettext as _

from advisor.brief.specification.values import (
    CATALOG_TO_ONE_DIRECTION,
    IMPORTANT,
    LINK_CLASSES_GBS,
    MANDATORY,
    NUMBER,
    YES_NO,
    Line,
    _findings,
    blank,
    technical_proof,
)
from advisor.domain.delivery.checklist import (
    SOURCE_MIN_NVME_TB,
    SOURCE_MIN_READ_GBS,
)
from advisor.presentation.labels import method_label
from advisor.presentation.numbers import plain_number

# --- Performance requirements ---------------------------------------------------------------------


def link_class(gbs) -> int | None:
    """The requirement class (GB/s per accelerator, one direction) of a catalog link figure."""
    if not gbs:
        return None
    one_direction = float(gbs) * CATALOG_TO_ONE_DIRECTION
    return next((c for c in LINK_CLASSES_GBS if one_direction >= c), None)


def job_tokens(snapshot: dict) -> float | None:
    training = snapshot["scenario"].get("training") or {}
    tokens, epochs = training.get("dataset_tokens"), training.get("epochs")
    if not tokens or not epochs:
        return None
    return float(tokens) * float(epochs)


def job_words(snapshot: dict) -> str:
    scenario = snapshot["scenario"]
    return _("%(model)s, %(method)s, %(tokens)s tokens in all, sequences of %(seq)s tokens") % {
        "model": scenario["model"]["name"],
        "method": method_label(scenario.get("method"), scenario.get("lora")),
        "tokens": plain_number(job_tokens(snapshot) or 0),
        "seq": plain_number(scenario.get("seq_len")),
    }


def throughput_needed(snapshot: dict, hours) -> int | None:
    tokens = job_tokens(snapshot)
    if not tokens or not hours:
        return None
    return math.ceil(tokens / (float(hours) * 3600))


def compute_lines(snapshot: dict, option: dict) -> list[Line]:
    """The compute the job needs, as training throughput on the stated job: ★ the pace the
    deadline needs (the brief's veto), ▲ the pace the approved plan reckons with."""
    planned = option["sizing"].get("time_to_train_hours")
    lines = []
    deadline_hours = (snapshot.get("procurement") or {}).get("deadline_hours")
    floor = throughput_needed(snapshot, deadline_hours)
    if floor:
        lines.append(
            Line(
                MANDATORY,
                _(
                    "Compute: training throughput on the stated job (%(job)s) of at least "
                    "%(rate)s tokens/s across all accelerators, so that it finishes within "
                    "%(hours)s h, by the deadline."
                )
                % {
                    "job": job_words(snapshot),
                    "rate": plain_number(floor),
                    "hours": plain_number(round(float(deadline_hours))),
                },
                technical_proof(),
                NUMBER,
            )
        )
    target = throughput_needed(snapshot, planned)
    if target:
        lines.append(
            Line(
                IMPORTANT,
                _(
                    "Compute: training throughput on the stated job (%(job)s) of at least "
                    "%(rate)s tokens/s across all accelerators, the job in at most %(hours)s h "
                    "as the approved plan reckons; 16-bit (BF16 or FP16) dense arithmetic."
                )
                % {
                    "job": job_words(snapshot),
                    "rate": plain_number(target),
                    "hours": plain_number(round(float(planned), 1)),
                },
                _(
                    "a measured run of the stated job, or of a published benchmark of the same "
                    "model size and method, with the 16-bit dense peak per accelerator"
                ),
                NUMBER,
            )
        )
    return lines


def hardware_lines(snapshot: dict, option: dict) -> list[Line]:
    sizing = option["sizing"]
    capacity = option["capacity"]
    findings = _findings(option)
    lines = compute_lines(snapshot, option)
    lines += [
        Line(
            MANDATORY,
            _(
                "Memory per accelerator: at least %(needed)s GiB usable to the training job "
                "(the job needs %(needed)s GiB per accelerator in the layout sized)."
            )
            % {"needed": plain_number(math.ceil(sizing["memory_total_gib"] * 10) / 10)},
            technical_proof(),
            NUMBER,
        ),
        Line(
            MANDATORY,
            _("Accelerators: at least %(gpus)s in all, %(per)s in each server or instance.")
            % {"gpus": capacity["gpus"], "per": capacity["gpus_per_instance"]},
            technical_proof(),
            NUMBER,
        ),
    ]
    floor = link_class((capacity.get("interconnect") or {}).get("within_gbs"))
    if floor and capacity["gpus_per_instance"] > 1:
        lines.append(
            Line(
                mark_for(findings.get("HW-INTRANODE-LINK")),
                _(
                    "Interconnect inside a server or instance: every accelerator reaches every "
                    "other directly (all-to-all), at least %(gbs)s GB/s per accelerator in one "
                    "direction, summed over its links (half the bidirectional figure some makers "
                    "publish)."
                )
                % {"gbs": floor},
                technical_proof(),
                NUMBER,
            )
        )
    if sizing.get("host_ram_per_server_gib"):
        lines.append(
            Line(
                IMPORTANT,
                _("Host memory: at least %(gib)s GiB per server or instance.")
                % {"gib": plain_number(math.ceil(sizing["host_ram_per_server_gib"]))},
                technical_proof(),
                NUMBER,
            )
        )
    lines += storage_lines(option, findings)
    lines += network_lines(option, findings)
    lines.append(software_line(snapshot, findings))
    return lines


def mark_for(finding: dict | None) -> str:
    """★ for a veto rule the chosen option does not fail, ▲ otherwise."""
    if not finding:
        return IMPORTANT
    blocker = finding.get("severity") == "blocker" and finding.get("status") != "fail"
    return MANDATORY if blocker else IMPORTANT


def storage_figures(option: dict) -> tuple[float | None, float | None]:
    """Local NVMe capacity (TB) and sequential read (GB/s) per server: the sizing's need, at
    least the buyer's minimum (advisor/domain/delivery/checklist.py)."""
    sizing = option["sizing"]
    needed = sizing.get("local_nvme_recommended_tb")
    if not needed:
        return None, None
    return max(float(needed), SOURCE_MIN_NVME_TB), SOURCE_MIN_READ_GBS


def storage_lines(option: dict, findings: dict) -> list[Line]:
    capacity_tb, read_gbs = storage_figures(option)
    if option.get("mode") == "cloud" or not capacity_tb:
        return []
    return [
        Line(
            mark_for(findings.get("HW-NVME-CAPACITY")),
            _("Local NVMe storage: at least %(tb)s TB usable per server.")
            % {"tb": plain_number(capacity_tb)},
            technical_proof(),
            NUMBER,
        ),
        Line(
            mark_for(findings.get("HW-NVME-READ")),
            _("Local NVMe sequential read: at least %(gbs)s GB/s per server.")
            % {"gbs": plain_number(read_gbs)},
            technical_proof(),
            NUMBER,
        ),
    ]


def network_lines(option: dict, findings: dict) -> list[Line]:
    if (option["capacity"].get("instances") or 1) <= 1:
        return [Line("", _("One server or instance: no network between servers is required."))]
    gbps = option["sizing"].get("network_gbps_per_server")
    if not gbps:
        between = (option["capacity"].get("interconnect") or {}).get("between") or {}
        gbps = (between.get("gbps") or 0) * (between.get("count") or 0) or None
    return [
        Line(
            mark_for(findings.get("HW-INTERNODE-NIC")) if gbps else IMPORTANT,
            _(
                "Network between servers: RDMA (RoCE or InfiniBand), at least %(gbps)s Gb/s "
                "per server, non-blocking between the servers of the job."
            )
            % {"gbps": plain_number(gbps) if gbps else blank()},
            technical_proof(),
            NUMBER if gbps else "",
        )
    ]


def software_line(snapshot: dict, findings: dict) -> Line:
    buyer = (snapshot.get("procurement") or {}).get("buyer") or {}
    framework = " ".join(
        str(x) for x in (buyer.get("framework"), buyer.get("framework_version")) if x
    )
    return Line(
        mark_for(findings.get("HW-SOFTWARE-STACK")),
        _(
            "Software (required): the buyer's training framework (%(framework)s) runs on the "
            "accelerators offered, with the maker's driver and collective-communication "
            "library in versions the maker supports for it; the versions are named in the "
            "offer and installed identically on every server."
        )
        % {"framework": framework or _("PyTorch 2.x, unless the buyer states another")},
        _("the maker's published compatibility table for those versions"),
        YES_NO,
    )
