"""Turn an assessment's stored answers into the documents the engine reads.

The answers are the wizard's steps plus two keys other pages add: the buyer's own figures
(``FIGURES_KEY``, results page) and the vendor's applied answers (``DECLARED_KEY``,
questionnaire). :func:`assessment_document` gives the whole document the recommendation reads.

The output is a scenario v1 document with two extra sections, ``site`` and ``procurement``
(all three described in ``docs/scenario-format.md``; how the answers map, in ``docs/wizard.md``). The scenario part
is checked with :func:`advisor.domain.scenario.load_scenario`.
"""

from __future__ import annotations

import copy

from django.utils.translation import gettext as _

from advisor.catalog import choices as catalog
from advisor.domain.document import ROOM_FIGURES
from advisor.domain.scenario import (
    ADAPTER_METHODS,
    DEFAULT_QUANT_BITS,
    FRAMEWORKS,
    OPTIMIZER_IMPLS,
    QUANT_FORMATS,
    ScenarioError,
    load_scenario,
)

PROCUREMENT_MODES = ("buy", "rent", "cloud")
FIGURES_KEY = "figures"
DECLARED_KEY = "declared"
# An assessment created from a scenario document (the HTTP API) keeps that document, checked by
# the one validator, under this key instead of the wizard's steps; answering a wizard step
# replaces it by the steps (advisor.assessments.services.save_step).
DOCUMENT_KEY = "document"


# Optional scenario model fields a preset or the model step may state (written only when set).
OPTIONAL_ARCH_FIELDS = ("head_dim", "sliding_window", "sliding_window_layers")


class Incomplete(Exception):
    """The assessment's answers do not yet describe a job."""


def model_fields(answers: dict) -> dict | None:
    """The scenario ``model`` object for the model step's answers, or None if incomplete."""
    source = answers.get("source")
    if source == "preset":
        row = catalog.preset(answers.get("preset"))
        if row is None:
            return None
        fields = {name: getattr(row, name) for name in catalog.ARCH_FIELDS}
        fields["name"] = row.name
    elif source in ("custom", "upload"):
        fields = {name: answers.get(name) for name in catalog.ARCH_FIELDS}
        fields["name"] = answers.get("name") or _("Custom model")
        if fields["params_b"] is None:
            return None
    else:
        return None
    fields["tied_embeddings"] = bool(fields["tied_embeddings"])
    if not fields.get("experts") or fields["experts"] <= 1:
        fields["experts"] = fields["experts_per_token"] = None
    order = ("name", *catalog.ARCH_FIELDS)
    model = {name: fields.get(name) for name in order}
    # Optional attention-shape fields (issue 29): only when stated, so that earlier documents
    # stay as they were.
    source_of = (lambda name: getattr(row, name, None)) if source == "preset" else answers.get
    for name in OPTIONAL_ARCH_FIELDS:
        value = source_of(name)
        if value is not None:
            model[name] = value
    return model


def dataset_tokens(training: dict) -> int | None:
    if training.get("dataset_mode") == "tokens":
        return training.get("total_tokens")
    samples, average = training.get("samples"), training.get("avg_tokens")
    if samples and average:
        return samples * average
    return None


def _average_tokens(training: dict) -> int | None:
    """The stated average tokens per sample (dataset given as samples), else null."""
    if training.get("dataset_mode") == "tokens":
        return None
    average = training.get("avg_tokens")
    return average if isinstance(average, int) and average > 0 else None


def _lora(model: dict) -> dict | None:
    if model.get("method") not in ADAPTER_METHODS:
        return None
    targets = model.get("lora_targets") or None
    if targets == "custom":
        targets = list(model.get("lora_target_names") or []) or None
    return {"rank": model.get("lora_rank"), "alpha": model.get("lora_alpha"), "targets": targets}


def _quant_bits(model: dict) -> int | None:
    if model.get("method") != "qlora":
        return None
    return int(model.get("quant_bits") or DEFAULT_QUANT_BITS)


def _yes(value) -> bool | None:
    """True for "yes", False for "no"; "not sure", a missing answer or anything else: null."""
    if not isinstance(value, str):
        return None
    return {"yes": True, "no": False}.get(value)


def _framework(value) -> str | None:
    """The stated framework; "not sure", a missing answer or an unknown value: null."""
    return value if isinstance(value, str) and value in FRAMEWORKS else None


def scenario_document(
    answers: dict, *, accelerator: str | None = None, gpus: int = 1, strategy: str | None = None
) -> dict | None:
    """The scenario v1 document, or None while the model or training step is unanswered.

    The wizard does not ask for a GPU type or count (the advisor chooses them); callers that
    size a concrete option pass ``accelerator`` and ``gpus``. Several GPUs default to FSDP full
    sharding, the usual way to fine-tune on one multi-GPU server.
    """
    model_answers = answers.get("model") or {}
    training = answers.get("training") or {}
    model = model_fields(model_answers)
    if model is None or not training.get("seq_len") or not model_answers.get("method"):
        return None
    strategy = strategy or ("single" if gpus == 1 else "fsdp")
    document = {
        "model": model,
        "method": model_answers["method"],
        "lora": _lora(model_answers),
        "precision": training.get("precision") or "amp-bf16",
        "quant_bits": _quant_bits(model_answers),
        "optimizer": training.get("optimizer") or "adamw",
        "optimizer_in_backward": False,
        "seq_len": training["seq_len"],
        "micro_batch": training.get("micro_batch") or 1,
        "grad_accum": 1,
        "gradient_checkpointing": _yes(training.get("gradient_checkpointing")),
        "flash_attention": _yes(training.get("flash_attention")),
        "packed": _yes(training.get("packed")),  # "not sure" and older drafts: null
        "framework": _framework(training.get("framework")),
        "avg_tokens_per_sample": _average_tokens(training),
        "hardware": {"accelerator": accelerator, "count": gpus, "nodes": 1},
        "parallelism": {
            "strategy": strategy,
            "offload": "none",
            "tensor_parallel": 1,
            "pipeline_parallel": 1,
        },
        "training": {
            "dataset_tokens": dataset_tokens(training),
            "epochs": training.get("epochs"),
        },
    }
    # Fields added by issue 29: written only when answered, so the documents of earlier answers
    # stay as they were ("not sure" is the framework's default, the same as absent).
    quant_format = model_answers.get("quant_format")
    if model_answers["method"] == "qlora" and quant_format in QUANT_FORMATS:
        document["quant_format"] = quant_format
    optimizer_impl = training.get("optimizer_impl")
    if document["optimizer"] == "adamw" and optimizer_impl in OPTIMIZER_IMPLS:
        document["optimizer_impl"] = optimizer_impl
    fused_loss = _yes(training.get("fused_loss"))
    if fused_loss is not None:
        document["fused_loss"] = fused_loss
    torch_compile = _yes(training.get("torch_compile"))
    if torch_compile is not None:
        document["torch_compile"] = torch_compile
    longest = training.get("longest_sample")  # asked only for unpacked samples (decision 0135)
    if document["packed"] is False and type(longest) is int and longest > 0:
        document["longest_sample_tokens"] = longest
    if document["packed"] is not True:
        grouped = _yes(training.get("length_grouped"))
        if grouped is not None:
            document["length_grouped"] = grouped
        if training.get("empty_cache_steps"):
            document["empty_cache_steps"] = training["empty_cache_steps"]
    site = site_section(answers.get("site"))
    if site is not None:
        document["site"] = site
    own_room = (answers.get("site") or {}).get("mode") == "own"
    procurement = procurement_section(answers.get("procurement"), training, own_room)
    if procurement is not None:
        document["procurement"] = procurement
    return document


def site_section(site: dict | None) -> dict | None:
    if not site:
        return None
    mode = site.get("mode")
    if mode == "catalog":
        return {"data_centers": [site["data_center"]]}
    if mode == "compare":
        return {"data_centers": list(site.get("compare") or [])}
    if mode == "own":
        room = {"name": site.get("room_name"), "policy_zone": site.get("province")}
        room.update({name: site.get(name) for name in ROOM_FIGURES})
        return {"room": room}
    return None


def _accelerators(family_keys) -> list[str]:
    families = catalog.accelerator_families()
    keys: list[str] = []
    for family in family_keys or []:
        keys.extend(families.get(family, {}).get("keys", []))
    return keys


DOMESTIC_CHOICES = ("", "preferred", "required")  # no preference, a tie-break, a filter


# Renting a vendor's servers leaves them in the vendor's data center: no choice for the buyer's
# own room (the procurement step offers buying for the room, or cloud).
OWN_ROOM_MODES = ("buy", "cloud")


def current_procurement(procurement: dict, own_room: bool = False) -> dict:
    """The procurement step's answers with those saved before the modes became several choices
    and domestic accelerators could be preferred: one ``mode`` (``any`` for every mode) reads
    as ``modes``, ``domestic_only`` as ``domestic`` ("required" or no preference). For the
    buyer's own room (``own_room``) "any" means every mode the room allows."""
    current = dict(procurement)
    if "modes" not in current:
        mode = current.get("mode") or "any"
        every = OWN_ROOM_MODES if own_room else PROCUREMENT_MODES
        current["modes"] = list(every) if mode == "any" else [mode]
    current.pop("mode", None)
    if "domestic" not in current:
        current["domestic"] = "required" if current.get("domestic_only") else ""
    current.pop("domestic_only", None)
    return current


def procurement_section(
    procurement: dict | None, training: dict | None = None, own_room: bool = False
) -> dict | None:
    if not procurement:
        return None
    procurement = current_procurement(procurement, own_room)
    modes = [m for m in PROCUREMENT_MODES if m in (procurement.get("modes") or ())]
    return {
        "modes": modes or list(PROCUREMENT_MODES),
        "budget_cny": procurement.get("budget_cny"),
        "qualifications": list(procurement.get("qualifications") or []),
        "preferred_accelerators": _accelerators(procurement.get("preferred_families")),
        "excluded_accelerators": list(
            dict.fromkeys(
                [
                    *_accelerators(procurement.get("excluded_families")),
                    *(procurement.get("excluded_products") or []),
                ]
            )
        ),
        "domestic_only": procurement.get("domestic") == "required",
        "prefer_domestic": procurement.get("domestic") == "preferred",
        **usage_answers(procurement),
        "rent_min_months": procurement.get("rent_min_months"),
        "resale_pct": procurement.get("resale_pct"),
        "deadline": (training or {}).get("deadline"),
    }


def usage_answers(procurement: dict) -> dict:
    """One job, or a programme of runs a year over years. Answers saved before the question
    (hours a year and years, always) read as the programme they described."""
    usage = procurement.get("usage")
    if usage is None and procurement.get("hours_per_year"):
        return {
            "usage": "programme",
            "years": procurement.get("years"),
            "hours_per_year": procurement.get("hours_per_year"),
        }
    if usage == "programme":
        return {
            "usage": "programme",
            "years": procurement.get("years"),
            "runs_per_year": procurement.get("runs_per_year"),
        }
    return {"usage": "once"}


def scenario_problem(answers: dict) -> ScenarioError | None:
    """The first thing the scenario validator refuses, or None when it is valid."""
    document = scenario_document(answers)
    if document is None:
        return None
    try:
        load_scenario(document)
    except ScenarioError as error:
        return error
    return None


# Own figures saved before the cost lines (decision 0007): the salvage share is the resale
# share; straight-line depreciation no longer enters a cost (the resale line replaces it).
RENAMED_FIGURES = {"salvage_pct": "resale_pct"}
RETIRED_FIGURES = ("depreciation_years",)


def current_figures(figures: dict) -> dict:
    """The buyer's own figures with keys saved by earlier versions renamed or dropped."""
    overrides = figures.get("overrides")
    if not isinstance(overrides, dict):
        return figures
    current = {}
    for key, value in overrides.items():
        if key in RETIRED_FIGURES:
            continue
        current.setdefault(RENAMED_FIGURES.get(key, key), value)
    return {**figures, "overrides": current}


def assessment_document(assessment) -> dict:
    """The wizard's document plus the buyer's own figures (in ``procurement``) and the vendor's
    applied answers (``declared``); raises :class:`Incomplete` while the steps are unanswered."""
    given = assessment.answers.get(DOCUMENT_KEY)
    document = copy.deepcopy(given) if given else scenario_document(assessment.answers)
    if document is None:
        raise Incomplete(assessment.pk)
    figures = current_figures(assessment.answers.get(FIGURES_KEY) or {})
    if figures:
        document["procurement"] = {**(document.get("procurement") or {}), **figures}
    declared = assessment.answers.get(DECLARED_KEY)
    if declared:
        document[DECLARED_KEY] = declared
    return document
