"""Results pages: thin views over advisor.selectors.recommend and the presenters."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from advisor.brief.render import MEMORY_COMPONENT_LABELS, MODE_LABELS
from advisor.domain.recommend import RANKING_LABELS
from advisor.domain.scenario import ScenarioError
from advisor.results import presenters
from advisor.results.services import assessment_results
from advisor.wizard.selectors import assessment_for


def _results_or_redirect(request, pk):
    assessment = assessment_for(request.user, pk)
    try:
        run = assessment_results(assessment)
    except ScenarioError:
        run = None
    return assessment, run


@login_required
def results(request, pk):
    assessment, run = _results_or_redirect(request, pk)
    if run is None:
        return redirect("wizard:check", assessment.pk)
    ranking = request.GET.get("ranking", "recommended")
    if ranking not in (*presenters.RANKINGS, presenters.ALL_OPTIONS):
        ranking = "recommended"
    sort = request.GET.get("sort", "rank")
    if sort not in presenters.SORTS:
        sort = "rank"
    rows = presenters.sorted_rows(presenters.rows_for(run.recommendation, ranking), sort)
    rankings = [(key, label) for key, label in RANKING_LABELS.items()]
    rankings.append((presenters.ALL_OPTIONS, _("All options, including those that do not qualify")))
    return render(
        request,
        "results/results.html",
        {
            "assessment": assessment,
            "run": run,
            "rows": rows,
            "ranking": ranking,
            "rankings": rankings,
            "sort": sort,
            "sorts": presenters.SORTS,
            "max_compared": presenters.MAX_COMPARED,
            "qualifying": len(run.recommendation.rankings["recommended"]),
            "mode_labels": MODE_LABELS,
        },
    )


def _option(run, key):
    option = next((o for o in run.recommendation.options if o.key == key), None)
    if option is None:
        raise Http404
    return option


@login_required
def option_detail(request, pk, key):
    assessment, run = _results_or_redirect(request, pk)
    if run is None:
        return redirect("wizard:check", assessment.pk)
    option = _option(run, key)
    return render(
        request,
        "results/option.html",
        {
            "assessment": assessment,
            "run": run,
            "option": option,
            "memory_chart": presenters.memory_chart(option),
            "cost_chart": presenters.cost_chart(option),
            "findings_by_area": presenters.findings_by_area(option),
            "memory_labels": MEMORY_COMPONENT_LABELS,
            "mode_label": MODE_LABELS.get(option.mode, ""),
        },
    )


@login_required
def compare(request, pk):
    assessment, run = _results_or_redirect(request, pk)
    if run is None:
        return redirect("wizard:check", assessment.pk)
    keys = list(dict.fromkeys(request.GET.getlist("option")))
    error = None
    if not keys:
        error = _("Choose at least one option to compare.")
    elif len(keys) > presenters.MAX_COMPARED:
        error = _("Choose at most %(count)d options to compare.") % {
            "count": presenters.MAX_COMPARED
        }
    options = [] if error else [_option(run, key) for key in keys]
    return render(
        request,
        "results/compare.html",
        {
            "assessment": assessment,
            "run": run,
            "options": options,
            "charts": [presenters.memory_chart(o) for o in options],
            "error": error,
        },
        status=400 if error else 200,
    )
