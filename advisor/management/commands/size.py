"""``manage.py size``: size a fine-tuning job (scenario v1 JSON) on a catalog accelerator."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand
from django.utils import translation
from django.utils.translation import gettext

from advisor.catalog import sizing as selectors
from advisor.domain.document import control_character
from advisor.domain.scenario import LIMITS
from advisor.domain.sizing.estimate import SizingResult, size
from advisor.management.cli import (
    InputError,
    bad_input,
    display_width,
    load_scenario_or_fail,
    pad,
)
from advisor.presentation.labels import (
    MEMORY_COMPONENT_LABELS,
    OFFLOAD_LABELS,
    parallelism_label,
)
from advisor.presentation.labels import label as words_for
from advisor.presentation.text import local_name


class Command(BaseCommand):
    help = (
        "Size a fine-tuning job: per-GPU memory by component, whether it fits, the fewest GPUs, "
        "throughput, time, power, checkpoint storage and network. Input is a scenario v1 JSON "
        "file (docs/sizing.md); accelerator and server figures come from the catalog."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="scenario v1 JSON file, or - for stdin")
        parser.add_argument("--format", choices=("json", "table"), default="table")
        parser.add_argument("--accelerator", help="catalog accelerator key (overrides the file)")
        parser.add_argument("--gpus", type=int, help="GPU count (overrides hardware.count)")
        parser.add_argument(
            "--server",
            help="catalog server model key (default: the largest "
            "catalog server holding the accelerator)",
        )
        parser.add_argument(
            "--allow-offload",
            action="store_true",
            help="let the fewest-GPU search offload to the CPU",
        )
        parser.add_argument(
            "--language",
            default="en",
            choices=("en", "zh-hans"),
            help="language of the assumptions and table labels",
        )

    def handle(self, *args, **options):
        scenario = load_scenario_or_fail(options["input"])
        try:
            result = size_scenario(
                scenario,
                accelerator_key=options["accelerator"],
                gpus=options["gpus"],
                server_key=options["server"],
                allow_offload=options["allow_offload"],
            )
        except InputError as error:
            raise bad_input(str(error)) from error
        with translation.override(options["language"]):
            if options["format"] == "json":
                text = json.dumps(result.to_json(gettext), indent=2, ensure_ascii=False)
            else:
                text = render_table(result)
        self.stdout.write(text)


def size_scenario(
    scenario, *, accelerator_key=None, gpus=None, server_key=None, allow_offload=False
) -> SizingResult:
    """What ``size`` prints, for a checked scenario (the command and ``POST /api/size``);
    :class:`InputError` names an unknown accelerator or server, or a GPU count out of range."""
    for field_name, text in (("accelerator", accelerator_key), ("server", server_key)):
        if text and (character := control_character(text)):
            raise InputError(field_name, f"must not contain control characters (found {character})")
    accelerator = _accelerator(scenario, accelerator_key)
    if accelerator is None and server_key:
        raise InputError("server", "needs an accelerator (hardware.accelerator or --accelerator)")
    server = _server(accelerator.key, server_key) if accelerator else None
    if gpus is not None and not LIMITS["hardware.count"][0] <= gpus <= LIMITS["hardware.count"][1]:
        raise InputError("gpus", "must be between 1 and 4,096")
    return size(scenario, accelerator, gpus=gpus, server=server, allow_offload=allow_offload)


def _accelerator(scenario, key_option):
    key = key_option or scenario.hardware.accelerator
    field_name = "accelerator" if key_option else "hardware.accelerator"
    if not key:
        return None  # memory per GPU only (docs/sizing.md)
    spec = selectors.accelerator_spec(key)
    if spec is None:
        known = ", ".join(sorted(selectors.accelerator_specs()))
        raise InputError(field_name, f"unknown accelerator {key!r} (catalog: {known})")
    return spec


def _server(accelerator_key, key_option):
    if key_option:
        spec = selectors.server_spec(key_option)
        if spec is None:
            raise InputError("server", f"unknown server model {key_option!r}")
        if spec.accelerator_key != accelerator_key:
            raise InputError(
                "server", f"{key_option!r} holds {spec.accelerator_key}, not {accelerator_key}"
            )
        return spec
    candidates = selectors.servers_for_accelerator(accelerator_key)
    return candidates[0] if candidates else None


def _fmt(value, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return gettext("unknown")
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    text = f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"
    return f"{text} {unit}".rstrip()


def render_table(result: SizingResult) -> str:
    """A terminal table: labels left, values right-aligned with their units."""
    memory = result.memory
    time = result.time
    power = result.power
    rows: list[tuple[str, str]] = [
        (
            gettext("Accelerator"),
            local_name(result.accelerator) if result.accelerator else _fmt(None),
        ),
        (
            gettext("GPUs / servers"),
            gettext("%(gpus)s / %(servers)s (%(per_server)s per server)")
            % {
                "gpus": result.layout.gpus,
                "servers": result.servers,
                "per_server": result.gpus_per_server,
            },
        ),
        (
            gettext("Strategy"),
            f"{parallelism_label(result.layout.strategy, result.layout.tensor_parallel)}; "
            f"{words_for(OFFLOAD_LABELS, result.layout.offload)}; "
            f"PP {result.layout.pipeline_parallel}",
        ),
        ("", ""),
        (gettext("Memory per GPU"), ""),
    ]
    for name, value in memory.components().items():
        if name == "total":
            continue
        rows.append(("  " + words_for(MEMORY_COMPONENT_LABELS, name), _fmt(value, "GiB", 2)))
    reading = (
        [("  " + gettext("Device reading up to"), _fmt(memory.device_reading_high, "GiB", 2))]
        if memory.reading_exceeds_total
        else []
    )
    rows += [
        ("  " + words_for(MEMORY_COMPONENT_LABELS, "total"), _fmt(memory.total, "GiB", 2)),
        (
            "  " + gettext("Band (10th-90th percentile)"),
            f"{result.memory_low_gib:,.1f} - {result.memory_high_gib:,.1f} GiB",
        ),
        *reading,
        (
            "  " + gettext("Capacity (after reserve)"),
            _fmt(result.capacity_gib, "GiB", 2) if result.capacity_gib is not None else _fmt(None),
        ),
        ("  " + gettext("Fits"), _fmt(result.fits)),
        ("  " + gettext("Largest micro-batch"), _fmt(result.max_micro_batch)),
        ("  " + gettext("Longest sequence"), _fmt(result.max_seq_len, gettext("tokens"))),
        ("  " + gettext("Host RAM per server"), _fmt(result.host_ram_per_server_gib, "GiB")),
    ]
    if result.fewest is not None:
        fewest = result.fewest.layout
        rows.append(
            (
                "  " + gettext("Fewest GPUs that fit"),
                f"{fewest.gpus} ({fewest.strategy}, TP {fewest.tensor_parallel})",
            )
        )
    rows += [
        ("", ""),
        (gettext("Throughput"), _fmt(time.tokens_per_s if time else None, "tokens/s", 0)),
        (gettext("Step time"), _fmt(time.step_time_s if time else None, "s", 2)),
        (gettext("Time to train"), _fmt(time.time_to_train_hours if time else None, "h", 1)),
        (gettext("GPU-hours"), _fmt(time.gpu_hours if time else None, "GPU-h", 0)),
        (
            gettext("Power per server (max)"),
            _fmt(power.max_kw_per_server if power else None, "kW", 2),
        ),
        (
            gettext("Heat per server"),
            _fmt(power.btu_per_hour_per_server if power else None, "BTU/h", 0),
        ),
        (gettext("Checkpoint"), _fmt(result.storage.checkpoint_gib, "GiB", 2)),
        (gettext("Local NVMe"), _fmt(result.storage.local_nvme_recommended_tb, "TB", 1)),
    ]
    if result.network is not None and result.network.needed_gbps_per_server is not None:
        rows.append(
            (gettext("Network per server"), _fmt(result.network.needed_gbps_per_server, "Gb/s"))
        )
    label_width = max(display_width(label) for label, _ in rows)
    value_width = max(display_width(value) for _, value in rows)
    lines = [
        f"{pad(label, label_width)}  {pad(value, value_width, right=True)}" if value else label
        for label, value in rows
    ]
    lines += ["", gettext("Assumptions")]
    lines += [f"- {message.render(gettext)}" for message in result.assumptions]
    return "\n".join(lines)
