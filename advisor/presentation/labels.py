"""The words a person reads for every code: one dict per kind of code, in one place.

The wizard's forms, the results, option and comparison pages, the PDF brief and the command
line tools all use these (docs/decisions/0024-capacity-cloud-labels.md). A code without a
label is shown as itself, so a new code stays visible until it is given words. The compliance
and economics codes keep their ``N_``-marked words in the domain, next to the code they name;
:data:`LABELS` gathers them here with the rest, and :func:`word` reads any of them.
"""

from django.utils.text import format_lazy
from django.utils.translation import gettext, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from advisor.domain.compliance.base import AREA_LABELS, SEVERITY_LABELS, STATUS_LABELS
from advisor.domain.compliance.engine import CLOUD_RULES, RULES, VERDICT_LABELS
from advisor.domain.economics.confidence import FLAG_LABELS, LEVEL_LABELS
from advisor.domain.economics.tariff import BAND_LABELS
from advisor.domain.i18n import plural_number
from advisor.domain.recommend import RANKING_LABELS
from advisor.domain.scenario import DEFAULT_LORA_RANK
from vendors.choices import InterconnectKind, ServerTopology, SiteCooling

# The scenario's optional ``framework``: each label names the tools that behave alike.
FRAMEWORK_LABELS = {
    "hf": _("Hugging Face Transformers / PEFT (LLaMA-Factory, ms-swift, TRL)"),
    "torchtune": _("torchtune"),
    "litgpt": _("LitGPT"),
    "megatron": _("Megatron-LM (NeMo, MindSpeed, Megatron-SWIFT)"),
}

# The scenario's ``packed``: whether every sequence is filled to the full length.
PACKING_LABELS = {
    True: _("Packed: every sequence is filled to the full length"),
    False: _("Varying: each batch is padded to its longest sample"),
}

# The scenario's ``method``.
METHOD_LABELS = {
    "full": _("Full fine-tuning"),
    "lora": _("LoRA"),
    "qlora": _("QLoRA"),
    "dora": _("DoRA"),
    "freeze": _("Freeze (train some layers)"),
}

# The scenario's ``precision``.
PRECISION_LABELS = {
    "amp-bf16": _("Mixed bf16"),
    "bf16": _("Pure bf16"),
    "amp-fp16": _("Mixed fp16"),
    "fp16": _("Pure fp16"),
    "fp32": _("fp32"),
}

# The scenario's ``optimizer``.
OPTIMIZER_LABELS = {
    "adamw": _("AdamW"),
    "adamw-8bit": _("8-bit AdamW"),
    "paged-adamw-8bit": _("Paged 8-bit AdamW"),
    "paged-adamw": _("Paged AdamW"),
    "adafactor": _("Adafactor"),
    "sgd": _("SGD"),
}

# The layout's ``strategy`` (how the GPUs share the work).
STRATEGY_LABELS = {
    "single": _("One GPU"),
    "ddp": _("Data parallel (DDP)"),
    "fsdp": _("Fully sharded data parallel (FSDP)"),
    "zero1": _("DeepSpeed ZeRO stage 1"),
    "zero2": _("DeepSpeed ZeRO stage 2"),
    "zero3": _("DeepSpeed ZeRO stage 3"),
}

# The scenario's ``parallelism.offload``.
OFFLOAD_LABELS = {
    "none": _("No offload"),
    "optimizer": _("Optimizer states offloaded to host memory"),
    "optimizer+params": _("Optimizer states and weights offloaded to host memory"),
}

# How the capacity is obtained (an option's cheapest mode, and the groups of options).
MODE_LABELS = {
    "buy": _("Buy and host"),
    "own": _("Buy for your own room"),
    "rent": _("Rent dedicated servers"),
    "cloud": _("Cloud GPU-hours"),
}

# How the buyer uses the capacity (procurement ``usage``).
USAGE_LABELS = {
    "once": _("One job"),
    "programme": _("A programme of runs"),
}

# The parts of an option's cost (economics), as finance reads them.
COST_COMPONENT_LABELS = {
    "purchase": _("Purchase"),
    "electricity": _("Electricity"),
    "demand_charge": _("Demand (basic) charge"),
    "colocation": _("Rack fees"),
    "maintenance": _("Maintenance and support"),
    "data_transfer": _("Data transfer to and from the public cloud"),
    "rent": _("Rent"),
    "cloud_compute": _("Cloud card-hours"),
    "resale": _("Resale at the end"),
}

# The units of cost lines: what one unit price buys.
UNIT_LABELS = {
    "server": _("server"),
    "kwh": _("kWh"),
    "kw_month": _("kW·month"),
    "rack_month": _("rack-month"),
    "month": _("month"),
    "year": _("year"),
    "server_month": _("server-month"),
    "card_hour": _("card-hour"),
    "gb": _("GB"),
}

# A quantity of those units, as a cost line's quantity cell reads: "51.2 card-hours",
# "1 server", "36 个月". ``count`` picks the form, ``n`` is the quantity as printed.
UNIT_COUNTS = {
    "server": ngettext_lazy("%(n)s server", "%(n)s servers", "count"),
    "kwh": ngettext_lazy("%(n)s kWh", "%(n)s kWh", "count"),
    "kw_month": ngettext_lazy("%(n)s kW·month", "%(n)s kW·months", "count"),
    "rack_month": ngettext_lazy("%(n)s rack-month", "%(n)s rack-months", "count"),
    "month": ngettext_lazy("%(n)s month", "%(n)s months", "count"),
    "year": ngettext_lazy("%(n)s year", "%(n)s years", "count"),
    "server_month": ngettext_lazy("%(n)s server-month", "%(n)s server-months", "count"),
    "card_hour": ngettext_lazy("%(n)s card-hour", "%(n)s card-hours", "count"),
    "gb": ngettext_lazy("%(n)s GB", "%(n)s GB", "count"),
}


def unit_count(text: str, number, code) -> str:
    """``text`` (a quantity as printed) with its unit ``code`` in the form its ``number`` takes;
    a unit without counted words: the quantity and the unit's label."""
    counted = UNIT_COUNTS.get(code)
    if counted is None:
        return f"{text} {word('unit', code)}".strip()
    return str(counted % {"n": text, "count": plural_number(number)})


# The figures an option's cost rests on, named for a sentence ("… priced from province or
# national figures: electricity price, PUE").
FIGURE_NAMES = {
    "tariff_cny_per_kwh": _("electricity price"),
    "pue": _("PUE"),
    "rack_fee_cny_per_month": _("rack fee"),
    "rack_power_limit_kw": _("power per rack"),
    "demand_charge_cny_per_kw_month": _("demand charge"),
    "purchase_cny_per_server": _("purchase price"),
    "rent_cny_per_server_month": _("monthly rent"),
    "cloud_cny_per_gpu_hour": _("price per card-hour"),
}

# The per-GPU memory components of the sizing result (pages, brief, ``size`` command).
MEMORY_COMPONENT_LABELS = {
    "frozen_weights": _("Frozen weights"),
    "trainable_weights": _("Trainable weights"),
    "master_weights": _("FP32 master weights"),
    "gradients": _("Gradients"),
    "optimizer_states": _("Optimizer states"),
    "activations": _("Activations"),
    "logits": _("Logits and loss"),
    "work_buffers": _("Gather, bucket, dequantisation and mask buffers"),
    "fragmentation": _("Allocator fragmentation"),
    "framework_overhead": _("Device context and communication library"),
    "total": _("Total per GPU"),
}

# What kind of publication a figure's strongest source is (advisor/domain/sources.py).
SOURCE_KIND_LABELS = {
    "official": _("official document or price list"),
    "vendor": _("vendor or operator publication"),
    "dealer": _("dealer quote"),
    "press": _("press report"),
    "aggregator": _("aggregator or repost"),
    "blog": _("blog"),
}
# The mark next to a figure whose sources are all aggregators or blogs.
LOW_QUALITY_SOURCE = _("low-quality source")

# Every kind of code a person reads, by name (``word("verdict", code)``).
# How GPUs are linked (a server's topology, an accelerator's interconnect), and cooling kinds:
# the catalog's own choice labels.
TOPOLOGY_LABELS = {
    **{c.value: c.label for c in InterconnectKind},
    **{c.value: c.label for c in ServerTopology},
}
COOLING_LABELS = {c.value: c.label for c in SiteCooling}

LABELS = {
    "area": AREA_LABELS,
    "cooling": COOLING_LABELS,
    "topology": TOPOLOGY_LABELS,
    "band": BAND_LABELS,
    "cost": COST_COMPONENT_LABELS,
    "figure": FIGURE_NAMES,
    "flag": FLAG_LABELS,
    "framework": FRAMEWORK_LABELS,
    "level": LEVEL_LABELS,
    "memory": MEMORY_COMPONENT_LABELS,
    "method": METHOD_LABELS,
    "mode": MODE_LABELS,
    "offload": OFFLOAD_LABELS,
    "optimizer": OPTIMIZER_LABELS,
    "packing": PACKING_LABELS,
    "precision": PRECISION_LABELS,
    "ranking": RANKING_LABELS,
    "severity": SEVERITY_LABELS,
    "source_kind": SOURCE_KIND_LABELS,
    "status": STATUS_LABELS,
    "strategy": STRATEGY_LABELS,
    "unit": UNIT_LABELS,
    "usage": USAGE_LABELS,
    "verdict": VERDICT_LABELS,
}


def label(labels: dict, code) -> str:
    """The words for ``code`` in the active language; the code itself when it has none."""
    if code is None or code == "":
        return ""
    words = labels.get(code)
    if words is None:
        return str(code)
    return gettext(str(words))


ALL_RULES = {rule.id: rule for rule in (*RULES, *CLOUD_RULES)}

# What disqualifies options: the buyer's requirement behind each reason code (decision page).
REQUIREMENT_LABELS = {
    "fit": _("The job does not fit in the GPUs' memory"),
    "instance": _("The instance sizes sold"),
    "domestic": _("Domestic accelerators only"),
    "preferred": _("Your preferred accelerators"),
    "excluded": _("The accelerators you excluded"),
    "deadline": _("The deadline"),
    "time": _("A peak figure the catalog lacks"),
    "usage": _("The runs a year of your programme"),
    "budget": _("The budget"),
}


def requirement(code: str) -> str:
    """The words for a reason code: ``required:VENDOR-MLPS3`` → "Required: MLPS level 3 …"."""
    kind, _sep, rule_id = code.partition(":")
    rule = ALL_RULES.get(rule_id)
    if kind in ("required", "veto") and rule is not None:
        template = (
            _("Required by you: %(rule)s") if kind == "required" else _("Veto check: %(rule)s")
        )
        return str(template) % {"rule": gettext(rule.title)}
    return label(REQUIREMENT_LABELS, code)


def word(kind: str, code, *, missing: str | None = None) -> str:
    """The words for ``code`` of ``kind`` (a key of :data:`LABELS`) in the active language.

    A code without words reads as itself, or as ``missing`` when that is given.
    """
    labels = LABELS[kind]
    if missing is not None and code not in labels:
        return missing
    return label(labels, code)


def recommended(words) -> str:
    """A choice label marked as the usual one in the wizard, e.g. "Mixed bf16 (recommended)"."""
    return format_lazy(_("{label} (recommended)"), label=words)


def default(words) -> str:
    return format_lazy(_("{label} (default)"), label=words)


def parallelism_label(strategy, tensor_parallel) -> str:
    """E.g. "Fully sharded data parallel (FSDP), no tensor parallelism"."""
    words = label(STRATEGY_LABELS, strategy)
    tp = int(tensor_parallel or 1)
    if tp <= 1:
        return gettext("%(strategy)s, no tensor parallelism") % {"strategy": words}
    return gettext("%(strategy)s, tensor parallel over %(tp)d GPUs") % {
        "strategy": words,
        "tp": tp,
    }


def method_label(method, lora) -> str:
    """E.g. "LoRA, rank 8 (the PEFT default)" or "LoRA, rank 16"; full methods: the name."""
    words = label(METHOD_LABELS, method)
    if lora is None:
        return words
    rank = lora.get("rank") if isinstance(lora, dict) else getattr(lora, "rank", None)
    if rank is None:
        return gettext("%(method)s, rank %(rank)d (the PEFT default)") % {
            "method": words,
            "rank": DEFAULT_LORA_RANK,
        }
    return gettext("%(method)s, rank %(rank)d") % {"method": words, "rank": int(rank)}


# China's provincial-level divisions, as the catalog records a data center's province (English)
# and a reader reads it: "Guizhou" on an English page, "贵州省" on a Chinese one.
PROVINCE_LABELS = {
    "Beijing": _("Beijing"),
    "Tianjin": _("Tianjin"),
    "Hebei": _("Hebei"),
    "Shanxi": _("Shanxi"),
    "Inner Mongolia": _("Inner Mongolia"),
    "Liaoning": _("Liaoning"),
    "Jilin": _("Jilin"),
    "Heilongjiang": _("Heilongjiang"),
    "Shanghai": _("Shanghai"),
    "Jiangsu": _("Jiangsu"),
    "Zhejiang": _("Zhejiang"),
    "Anhui": _("Anhui"),
    "Fujian": _("Fujian"),
    "Jiangxi": _("Jiangxi"),
    "Shandong": _("Shandong"),
    "Henan": _("Henan"),
    "Hubei": _("Hubei"),
    "Hunan": _("Hunan"),
    "Guangdong": _("Guangdong"),
    "Guangxi": _("Guangxi"),
    "Hainan": _("Hainan"),
    "Chongqing": _("Chongqing"),
    "Sichuan": _("Sichuan"),
    "Guizhou": _("Guizhou"),
    "Yunnan": _("Yunnan"),
    "Tibet": _("Tibet"),
    "Shaanxi": _("Shaanxi"),
    "Gansu": _("Gansu"),
    "Qinghai": _("Qinghai"),
    "Ningxia": _("Ningxia"),
    "Xinjiang": _("Xinjiang"),
    "Hong Kong": _("Hong Kong"),
    "Macau": _("Macau"),
    "Taiwan": _("Taiwan"),
}


def province_label(value) -> str:
    """A province as the reader reads it; one the list lacks, as recorded."""
    return label(PROVINCE_LABELS, value) if value else ""
