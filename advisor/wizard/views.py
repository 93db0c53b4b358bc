"""Wizard pages. Thin: forms validate, services write, selectors read, steps order the pages.

Every page works as plain POST/redirect/GET; htmx requests (the live estimate, the preset
search) get template partials.
"""

from __future__ import annotations

import contextlib

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from advisor.assessments import services
from advisor.assessments.answers import DOCUMENT_KEY
from advisor.assessments.selectors import assessment_for
from advisor.catalog.stamp import catalog_reads_kept
from advisor.domain.scenario import ScenarioError
from advisor.recommendation.services import shown_results
from advisor.roles import procurement_required
from advisor.text import clean_text
from advisor.wizard import choices as catalog
from advisor.wizard import estimate, steps
from advisor.wizard.forms import TitleForm
from advisor.wizard.summary import step_rows

STALE_MESSAGE = gettext_lazy(
    "This assessment was changed in another tab or window after you opened this page. "
    "What you entered here has not been saved yet: check it and save again."
)


def _version(request) -> int | None:
    try:
        return int(request.POST.get("version", ""))
    except ValueError:
        return None


def _task_list_url(assessment) -> str:
    return reverse("wizard:task_list", args=[assessment.pk])


def _step_url(assessment, step, *, to_check=False) -> str:
    url = reverse("wizard:step", args=[assessment.pk, step.slug])
    return f"{url}?next=check" if to_check else url


# --- Drafts ------------------------------------------------------------------------------


@procurement_required
@require_POST
def create(request):
    assessment = services.create_assessment(request.user)
    return redirect("wizard:task_list", assessment.pk)


@procurement_required
@require_http_methods(["GET", "POST"])
def rename(request, pk):
    assessment = assessment_for(request.user, pk)
    stale = False
    if request.method == "POST":
        form = TitleForm(request.POST)
        if form.is_valid():
            try:
                services.rename_assessment(
                    assessment, form.cleaned_data["title"], _version(request) or 0
                )
            except services.StaleDraft:
                stale = True
            else:
                messages.success(request, _("Renamed."))
                return redirect("home")
    else:
        form = TitleForm(initial={"title": assessment.display_title})
    return render(
        request,
        "wizard/rename.html",
        {"assessment": assessment, "form": form, "stale": stale, "stale_text": STALE_MESSAGE},
        status=409 if stale else 200,
    )


@procurement_required
@require_POST
def duplicate(request, pk):
    copy = services.duplicate_assessment(assessment_for(request.user, pk))
    messages.success(request, _("Copied as “%(title)s”.") % {"title": copy.display_title})
    return redirect("home")


@procurement_required
@require_http_methods(["GET", "POST"])
def delete(request, pk):
    assessment = assessment_for(request.user, pk)
    if request.method == "POST":
        title = assessment.display_title
        services.delete_assessment(assessment)
        messages.success(request, _("Deleted “%(title)s”.") % {"title": title})
        return redirect("home")
    return render(request, "wizard/delete.html", {"assessment": assessment})


# --- Task list, steps, check answers -----------------------------------------------------


@procurement_required
@require_GET
@catalog_reads_kept
def task_list(request, pk):
    assessment = assessment_for(request.user, pk)
    answers = assessment.answers
    if from_document(assessment):
        # Made from a scenario document (the HTTP API): the steps were never answered, and
        # saving one would replace the document. The page shows the job the document states.
        return render(
            request,
            "wizard/from_document.html",
            {"assessment": assessment, "s": answers[DOCUMENT_KEY]},
        )
    tasks = []
    for step in steps.active_steps(answers):
        status = step.status(answers)
        tasks.append(
            {
                "step": step,
                "status": status,
                "label": steps.STATUS_LABELS[status],
                "url": _step_url(assessment, step),
            }
        )
    ready = all(task["status"] == steps.COMPLETE for task in tasks)
    return render(
        request,
        "wizard/task_list.html",
        {
            "assessment": assessment,
            "tasks": tasks,
            "done": sum(task["status"] == steps.COMPLETE for task in tasks),
            "ready": ready,
        },
    )


def from_document(assessment) -> bool:
    return bool(assessment.answers.get(DOCUMENT_KEY))


def _back_url(assessment, step, to_check: bool) -> str:
    if to_check:
        return reverse("wizard:check", args=[assessment.pk])
    before = steps.previous(step, assessment.answers)
    return _step_url(assessment, before) if before else _task_list_url(assessment)


def _render_step(
    request, assessment, step, form, *, to_check, stale=False, status=200, preview=None
):
    if preview is None and step.live_estimate:
        preview = estimate.for_answers(assessment.answers)
    return render(
        request,
        step.template,
        {
            "assessment": assessment,
            "step": step,
            "form": form,
            "to_check": to_check,
            "stale": stale,
            "stale_text": STALE_MESSAGE,
            "back_url": _back_url(assessment, step, to_check),
            "step_number": steps.active_steps(assessment.answers).index(step) + 1,
            "step_count": len(steps.active_steps(assessment.answers)),
            "estimate": preview,
        },
        status=status,
    )


@procurement_required
@require_http_methods(["GET", "POST"])
@catalog_reads_kept
def step_page(request, pk, slug):
    assessment = assessment_for(request.user, pk)
    step = steps.get(slug)
    if step is None or not step.condition(assessment.answers):
        raise Http404
    if from_document(assessment):
        return redirect("wizard:task_list", assessment.pk)
    to_check = request.GET.get("next") == "check" or request.POST.get("next") == "check"
    if request.method == "GET":
        form = step.form(assessment.answers)
        return _render_step(request, assessment, step, form, to_check=to_check)

    form = step.form(assessment.answers, data=request.POST, files=request.FILES)
    if "preview" in request.POST and step.live_estimate:  # the no-JavaScript estimate
        preview = _preview(assessment, form)
        return _render_step(request, assessment, step, form, to_check=to_check, preview=preview)
    if _version(request) != assessment.version:
        form.is_valid()  # show the user's entries and their errors, unsaved
        return _render_step(
            request, assessment, step, form, to_check=to_check, stale=True, status=409
        )
    if not form.is_valid():
        return _render_step(request, assessment, step, form, to_check=to_check)
    try:
        services.save_step(assessment, step.slug, form.to_answers(), assessment.version)
    except services.StaleDraft:
        return _render_step(
            request, assessment, step, form, to_check=to_check, stale=True, status=409
        )
    return HttpResponseRedirect(_after_save(request, assessment, step, to_check))


def _after_save(request, assessment, step, to_check: bool) -> str:
    if "save_and_exit" in request.POST:
        messages.success(
            request,
            _("Your answers are saved. Open “%(title)s” from this list to carry on.")
            % {"title": assessment.display_title},
        )
        return reverse("home")
    if to_check:
        return reverse("wizard:check", args=[assessment.pk])
    following = steps.following(step, assessment.answers)
    if following is None:
        return reverse("wizard:check", args=[assessment.pk])
    return _step_url(assessment, following)


def _compute_options(assessment) -> None:
    """Compute and store the options as the buyer confirms, so that the results page they are
    sent to reads them (docs/decisions/0033-stored-recommendation.md). Answers that cannot be
    sized are said on the results page, which computes again and names the field."""
    with contextlib.suppress(ScenarioError):
        shown_results(assessment)


@procurement_required
@require_http_methods(["GET", "POST"])
@catalog_reads_kept
def check(request, pk):
    assessment = assessment_for(request.user, pk)
    if from_document(assessment):
        return redirect("wizard:task_list", assessment.pk)
    answers = assessment.answers
    sections = [
        {
            "step": step,
            "status": step.status(answers),
            "rows": step_rows(step, answers) if answers.get(step.slug) else [],
            "url": _step_url(assessment, step, to_check=True),
        }
        for step in steps.active_steps(answers)
    ]
    ready = all(section["status"] == steps.COMPLETE for section in sections)
    if request.method == "POST" and ready:
        try:
            assessment = services.confirm_answers(assessment, _version(request) or 0)
        except services.StaleDraft:
            messages.error(request, STALE_MESSAGE)
            return redirect("wizard:check", assessment.pk)
        _compute_options(assessment)
        messages.success(request, _("Answers confirmed."))
        return redirect("results:list", assessment.pk)
    return render(
        request,
        "wizard/check.html",
        {"assessment": assessment, "sections": sections, "ready": ready},
        status=200 if request.method == "GET" or ready else 400,
    )


# --- htmx partials -----------------------------------------------------------------------


@procurement_required
@require_POST
@catalog_reads_kept
def estimate_panel(request, pk, slug):
    """The live estimate for the answers being typed on a step (not saved)."""
    assessment = assessment_for(request.user, pk)
    step = steps.get(slug)
    if step is None or not step.live_estimate:
        raise Http404
    form = step.form(assessment.answers, data=request.POST, files=request.FILES)
    return render(
        request, "wizard/step_base.html#estimate-panel", {"estimate": _preview(assessment, form)}
    )


def _preview(assessment, form) -> estimate.Estimate:
    """The estimate for the entries on ``form`` (validated, never saved)."""
    if not form.is_valid():
        return estimate.incomplete()
    answers = dict(assessment.answers)
    answers[form.step_slug] = form.to_answers()
    return estimate.for_answers(answers)


@procurement_required
@require_GET
def preset_options(request):
    """``<option>``s of the presets matching ``q`` (search as you type)."""
    selected = clean_text(request.GET.get("preset", ""))
    groups = catalog.search_presets(clean_text(request.GET.get("q", "")), selected)
    return render(
        request,
        "wizard/step_model.html#preset-options",
        {"groups": groups, "selected": selected},
    )
