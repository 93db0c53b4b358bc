"""The step registry: which pages the wizard has, in order, and when each is complete.

A step is complete when its stored answers still pass its form's validation given the other
steps' answers (a later change, e.g. a preset with a shorter context, can reopen a step).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.datastructures import MultiValueDict
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from advisor.wizard import forms

NOT_STARTED = "not-started"
COMPLETE = "complete"
NEEDS_ATTENTION = "attention"

STATUS_LABELS = {
    NOT_STARTED: _("Not started"),
    COMPLETE: _("Completed"),
    NEEDS_ATTENTION: _("Needs attention"),
}


def _always(answers: dict) -> bool:
    return True


@dataclass(frozen=True)
class Step:
    slug: str
    title: Promise
    summary: Promise
    form_class: type[forms.StepForm]
    template: str
    live_estimate: bool = False
    condition: Callable[[dict], bool] = _always  # whether the step applies to these answers

    def context(self, answers: dict) -> dict:
        """The other steps' answers, as the form's cross-step rules read them."""
        return {slug: value for slug, value in answers.items() if slug != self.slug}

    def form(self, answers: dict, data=None, files=None) -> forms.StepForm:
        stored = self.form_class.current(answers.get(self.slug) or {}, self.context(answers))
        form = self.form_class(data, files, context=self.context(answers), stored=stored)
        form.step_slug = self.slug
        return form

    def is_complete(self, answers: dict) -> bool:
        return self.status(answers) == COMPLETE

    def status(self, answers: dict) -> str:
        stored = answers.get(self.slug)
        if not stored:
            return NOT_STARTED
        current = self.form_class.current(stored, self.context(answers))
        form = self.form(answers, data=_as_post(current))
        return COMPLETE if form.is_valid() else NEEDS_ATTENTION


def _as_post(stored: dict) -> MultiValueDict:
    """Stored JSON answers as the POST data a browser would send for them."""
    data = MultiValueDict()
    for name, value in stored.items():
        if value is None or value is False:
            continue
        if isinstance(value, list):
            data.setlist(name, [str(v) for v in value])
        elif value is True:
            data[name] = "on"
        else:
            data[name] = str(value)
    return data


STEPS: tuple[Step, ...] = (
    Step(
        slug="model",
        title=_("Model and method"),
        summary=_("Which model, and how it will be fine-tuned"),
        form_class=forms.ModelStepForm,
        template="wizard/step_model.html",
        live_estimate=True,
    ),
    Step(
        slug="training",
        title=_("Training"),
        summary=_("Sequence length, dataset, epochs, precision"),
        form_class=forms.TrainingStepForm,
        template="wizard/step_training.html",
        live_estimate=True,
    ),
    Step(
        slug="site",
        title=_("Site"),
        summary=_("A data center from the catalog, your own room, or several to compare"),
        form_class=forms.SiteStepForm,
        template="wizard/step_site.html",
    ),
    Step(
        slug="procurement",
        title=_("Procurement"),
        summary=_("Buy, rent or cloud; budget; vendor qualifications; accelerators"),
        form_class=forms.ProcurementStepForm,
        template="wizard/step_procurement.html",
    ),
)
BY_SLUG = {step.slug: step for step in STEPS}


def active_steps(answers: dict) -> list[Step]:
    return [step for step in STEPS if step.condition(answers)]


def get(slug: str) -> Step | None:
    return BY_SLUG.get(slug)


def previous(step: Step, answers: dict) -> Step | None:
    steps = active_steps(answers)
    index = steps.index(step)
    return steps[index - 1] if index > 0 else None


def following(step: Step, answers: dict) -> Step | None:
    steps = active_steps(answers)
    index = steps.index(step)
    return steps[index + 1] if index + 1 < len(steps) else None


def all_complete(answers: dict) -> bool:
    return all(step.is_complete(answers) for step in active_steps(answers))
