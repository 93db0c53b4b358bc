"""The live estimate panel: memory per GPU and GPUs needed for a few leading accelerators.

Computed from the answers being edited (not saved) with the sizing engine; the panel is a
hint while typing, the results page is the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from advisor.domain.scenario import ScenarioError, load_scenario
from advisor.wizard import answers as answer_docs

READY = "ready"
INCOMPLETE = "incomplete"
INVALID = "invalid"
UNAVAILABLE = "unavailable"


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

    @property
    def leading(self) -> Row | None:
        fitting = [row for row in self.rows if row.gpus is not None]
        return min(fitting, key=lambda row: row.gpus) if fitting else None


def incomplete() -> Estimate:
    return Estimate(INCOMPLETE, _("Answer the model and training questions to see an estimate."))


def for_answers(answers: dict) -> Estimate:
    document = answer_docs.scenario_document(answers)
    if document is None:
        return incomplete()
    try:
        scenario = load_scenario(document)
    except ScenarioError as error:
        return Estimate(INVALID, error.message.render(_))
    return _sized(scenario, answers)


def _sized(scenario, answers: dict) -> Estimate:
    return Estimate(
        UNAVAILABLE, _("The estimate appears here once the sizing engine is available.")
    )
