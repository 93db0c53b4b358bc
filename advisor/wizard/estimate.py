"""The live estimate panel: memory per GPU and GPUs needed for a few leading accelerators.

Computed from the answers being edited (not saved) with the sizing engine; the panel is a
hint while typing, the results page is the answer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace

from django.core.cache import cache
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from advisor.assessments import answers as answer_docs
from advisor.catalog import sizing as sizing_selectors
from advisor.catalog.stamp import current_stamp
from advisor.domain.scenario import ScenarioError, load_scenario
from advisor.domain.sizing.memory import plannable_capacity_gib
from advisor.domain.sizing.parallelism import PlacementSearch
from advisor.presentation.text import local_name
from advisor.wizard import choices as catalog

# The article's candidates (H100, A100, L40S, Ascend 910B) and the parts sold in China.
PANEL_ACCELERATORS = (
    "h100-sxm-80gb",
    "h20-96gb",
    "a800-sxm-80gb",
    "l40s-48gb",
    "ascend-910b-64gb",
)
PANEL_ROWS = 5
# Fine-tuning runs on one server or a small cluster (W1); the panel stops looking at 8 servers.
PANEL_MAX_GPUS = 64

READY = "ready"
INCOMPLETE = "incomplete"
INVALID = "invalid"


@dataclass(frozen=True)
class Row:
    accelerator_key: str
    accelerator: str
    gpus: int | None  # None: does not fit on any layout the engine tries
    memory_per_gpu_gib: float | None
    capacity_gib: float


@dataclass(frozen=True)
class Estimate:
    state: str
    message: str = ""
    rows: list[Row] = field(default_factory=list)
    max_gpus: int = 0
    note: str = ""

    @property
    def leading(self) -> Row | None:
        fitting = [row for row in self.rows if row.gpus is not None]
        return min(fitting, key=lambda row: row.gpus) if fitting else None


def incomplete() -> Estimate:
    return Estimate(INCOMPLETE, _("Answer the questions on this page to see an estimate."))


# Until the training step is answered the panel assumes the usual settings (the training
# step's defaults and a 2,048-token sequence) and says so.
ASSUMED_TRAINING = {
    "seq_len": 2048,
    "micro_batch": 1,
    "precision": "amp-bf16",
    "optimizer": "adamw",
    "gradient_checkpointing": "yes",
    "flash_attention": "yes",
    "framework": "",  # not sure: the most used stack, the heavier reading at the band's edge
    "packed": "",  # not sure: lengths may vary (only the device reading changes)
}


ESTIMATE_CACHE_SECONDS = 3600


def for_answers(answers: dict) -> Estimate:
    """The live estimate, cached by its inputs (the answers, the language, the catalog)."""
    inputs = json.dumps(answers, sort_keys=True, default=str, ensure_ascii=False)
    key = (
        "estimate:"
        + hashlib.sha256(f"{get_language()}|{current_stamp()}|{inputs}".encode()).hexdigest()
    )
    estimate = cache.get(key)
    if estimate is None:
        estimate = _for_answers(answers)
        cache.set(key, estimate, ESTIMATE_CACHE_SECONDS)
    return estimate


def _for_answers(answers: dict) -> Estimate:
    note = ""
    if not (answers.get("training") or {}).get("seq_len"):
        answers = {**answers, "training": ASSUMED_TRAINING}
        note = _(
            "Assumes %(seq_len)s-token sequences, one per GPU, mixed bf16, gradient "
            "checkpointing and the most used training stack (Hugging Face Transformers with "
            "PEFT and TRL) until you answer the training questions."
        ) % {"seq_len": f"{ASSUMED_TRAINING['seq_len']:,}"}
    document = answer_docs.scenario_document(answers)
    if document is None:
        return incomplete()
    try:
        scenario = load_scenario(document)
    except ScenarioError as error:
        return Estimate(INVALID, error.message.render(_))
    return replace(_sized(scenario, answers), note=note)


def candidate_accelerators(answers: dict) -> list:
    """The accelerators the panel shows: the article's candidates plus the China-market parts,
    or only the families chosen on the procurement step; never excluded or (when asked)
    foreign ones."""
    specs = sizing_selectors.accelerator_specs()
    procurement = answer_docs.procurement_section(answers.get("procurement")) or {}
    excluded = set(procurement.get("excluded_accelerators") or [])
    chosen = [key for key in procurement.get("preferred_accelerators") or [] if key in specs]
    keys = [key for key in chosen or PANEL_ACCELERATORS if key in specs]
    keys = [key for key in keys if key not in excluded]
    if procurement.get("domestic_only"):
        domestic = catalog.domestic_accelerator_keys()
        keys = [key for key in keys if key in domestic]
    return [specs[key] for key in dict.fromkeys(keys)][:PANEL_ROWS]


def _sized(scenario, answers: dict) -> Estimate:
    accelerators = candidate_accelerators(answers)
    if not accelerators:
        return Estimate(
            INVALID, _("No accelerator in the catalog matches your procurement answers.")
        )
    search = PlacementSearch(scenario)
    rows = []
    for spec in accelerators:
        placement = search.fewest_gpus(spec, max_gpus=PANEL_MAX_GPUS)
        rows.append(
            Row(
                accelerator_key=spec.key,
                accelerator=local_name(spec),
                gpus=placement.layout.gpus if placement else None,
                memory_per_gpu_gib=placement.memory.total if placement else None,
                capacity_gib=plannable_capacity_gib(spec),
            )
        )
    return Estimate(READY, rows=rows, max_gpus=PANEL_MAX_GPUS)
