"""Results pages: thin views over the stored recommendation and the presenters."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from advisor.assessments import services as assessment_services
from advisor.assessments.answers import FIGURES_KEY
from advisor.assessments.selectors import assessment_for
from advisor.assessments.services import save_figures
from advisor.domain.recommend import RANKING_LABELS
from advisor.domain.recommend.decision import decide
from advisor.domain.recommend.options import cost_figures
from advisor.domain.recommend.risks import figure_risks
from advisor.domain.scenario import ScenarioError
from advisor.presentation.text import local_name, render_text
from advisor.recommendation import services
from advisor.recommendation.questions import declared_by_rule, open_items, questions
from advisor.results import pages, presenters
from advisor.results.forms import GENERAL_NAMES, SITE_FIELDS, FiguresForm
from advisor.results.rows import table_rows
from advisor.roles import procurement_required


def _cannot_size(request, error: ScenarioError) -> None:
    messages.error(
        request,
        _(
            "These answers cannot be sized: %(field)s %(problem)s. Change that answer and "
            "confirm again."
        )
        % {"field": error.field, "problem": render_text(error.message)},
    )


def _incomplete(request) -> None:
    messages.error(request, _("Answer every section before the options can be shown."))


def _results_or_redirect(request, pk):
    """The assessment and its stored results (``services.Shown``); None with a message saying
    why when there are none. The results pages then redirect to the check page, never without
    that message.
    """
    assessment = assessment_for(request.user, pk)
    try:
        shown = services.shown_results(assessment)
    except ScenarioError as error:
        _cannot_size(request, error)
        return assessment, None
    if shown is None:
        _incomplete(request)
    return assessment, shown


@procurement_required
def results(request, pk):
    assessment, shown = _results_or_redirect(request, pk)
    if shown is None:
        return redirect("wizard:check", assessment.pk)
    ranking = request.GET.get("ranking", "recommended")
    if ranking not in (*presenters.RANKINGS, presenters.ALL_OPTIONS):
        ranking = "recommended"
    sort = request.GET.get("sort", "rank")
    if sort not in presenters.SORTS:
        sort = "rank"
    show_all = request.GET.get("all") == "1"
    view = {"assessment": assessment.pk, "ranking": ranking, "sort": sort, "all": show_all}
    body = pages.cached_body(request, shown, view, lambda: _kept_context(assessment, shown, view))
    return render(
        request,
        "results/results.html",
        {"assessment": assessment, "shown": shown, "body": body},
    )


def _kept_context(assessment, shown, view: dict) -> dict:
    with shown.catalog_reads():  # open items read the catalog: once per stamp
        return _results_context(assessment, shown, view["ranking"], view["sort"], view["all"])


def _results_context(assessment, shown, ranking: str, sort: str, show_all: bool) -> dict:
    """What the results page shows below its heading (results/results_body.html)."""
    run = shown.run
    rows = presenters.sorted_rows(presenters.rows_for(run.recommendation, ranking), sort)
    rows, hidden = presenters.folded(rows, show_all or ranking == presenters.ALL_OPTIONS)
    rankings = [(key, label) for key, label in RANKING_LABELS.items()]
    rankings.append((presenters.ALL_OPTIONS, _("All options, including those that do not qualify")))
    decision = decide(run.recommendation, prefer_domestic=run.procurement.prefer_domestic)
    recommended = decision.recommended
    return {
        "assessment": assessment,
        "run": run,
        "rows": rows,
        "table_rows": table_rows(rows, assessment.pk),
        "hidden": hidden,
        "show_all": show_all,
        "ranking": ranking,
        "rankings": rankings,
        "sort": sort,
        "sorts": presenters.SORTS,
        "max_compared": presenters.MAX_COMPARED,
        "qualifying": decision.qualifying,
        "decision": decision,
        "open_items": open_items(run, recommended) if recommended else None,
        "risks": figure_risks(recommended, run.recommendation) if recommended else (),
        # Qualifications asked for apply to hosting vendors and cloud providers, not the room.
        "vendor_rules_skipped": bool(run.procurement.required_rules)
        and any(o.is_own_room for o in run.recommendation.options),
        "blockers": presenters.blockers(run.recommendation),
        "combined": (combined := presenters.combined(run.recommendation)),
        "combined_words": presenters.requirement_list(combined.codes) if combined else "",
        "placeholders": presenters.placeholders(run.recommendation.options),
        # The vendors and cloud providers of every option, as the questionnaires page lists
        # them (whose answers could let their options through), whatever the tab.
        "vendors_to_ask": presenters.vendors_to_ask(run.recommendation.options),
    }


def _option(run, key):
    option = next((o for o in run.recommendation.options if o.key == key), None)
    if option is None:
        raise Http404
    return option


@procurement_required
def option_detail(request, pk, key):
    assessment, shown = _results_or_redirect(request, pk)
    if shown is None:
        return redirect("wizard:check", assessment.pk)
    run = shown.run
    option = _option(run, key)
    with shown.catalog_reads():  # open questions read the catalog: once per stamp
        context = _option_context(assessment, shown, option)
    context["issue"] = _issue_form(request, assessment, run, option)
    return render(request, "results/option.html", context)


def _issue_form(request, assessment, run, option) -> dict:
    """The issue form's state: the option's rank, whether a reason is asked for (another
    option than rank 1), and the reason the buyer wrote when the brief could not be issued."""
    qualifying = run.recommendation.rankings["recommended"]
    rank = next((i for i, o in enumerate(qualifying, start=1) if o.key == option.key), None)
    kept = request.session.get(services.ISSUE_REASON_KEPT) or {}
    if kept.get("assessment") == assessment.pk and kept.get("option") == option.key:
        del request.session[services.ISSUE_REASON_KEPT]
    else:
        kept = {}
    return {
        "rank": rank,
        "first": qualifying[0] if qualifying else None,
        "needs_reason": rank != 1,
        "reason": kept.get("text", ""),
        "error": kept.get("error", ""),
    }


def _option_context(assessment, shown, option) -> dict:
    run = shown.run
    return {
        "assessment": assessment,
        "run": run,
        "shown": shown,
        "option": option,
        "memory_chart": presenters.memory_chart(option),
        "cost_chart": presenters.cost_chart(option),
        "findings_by_area": presenters.findings_by_area(option),
        "site_rows": presenters.site_rows(list(run.recommendation.options), option),
        "tariff_source": presenters.tariff_source(option),
        "price_notes": presenters.notes_for(option, run.procurement),
        "price_anchor": presenters.price_anchor(option, run.procurement),
        "open_questions": questions(run, option),
        "declared_by_rule": declared_by_rule(run, option),
        "cost_figures": cost_figures(option),
    }


@procurement_required
def compare(request, pk):
    assessment, shown = _results_or_redirect(request, pk)
    if shown is None:
        return redirect("wizard:check", assessment.pk)
    run = shown.run
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
            "shown": shown,
            "options": options,
            "charts": [(o, presenters.memory_chart(o)) for o in options],
            "site_rows": presenters.site_rows(options, options[0] if options else None),
            "error": error,
        },
        status=400 if error else 200,
    )


def _sites_and_servers(run):
    """The data centers (and the buyer's room) and server models of the options, each with
    the figures in use now; cloud options have no site to enter figures for."""
    options = run.recommendation.options
    sites, servers = {}, {}
    for option in options:
        site = option.site
        key = site.data_center.key
        if not option.is_cloud and key and key not in sites:
            in_use = {name: presenters.figure_in_use(site, name) for name, *_ in SITE_FIELDS}
            in_use = {name: text for name, text in in_use.items() if text is not None}
            sites[key] = (key, local_name(site.data_center) or key, in_use)
        servers.setdefault(option.hardware.server.key, local_name(option.hardware.server))
    rows = [
        (key, name, presenters.prices_in_use(options, key))
        for key, name in sorted(servers.items(), key=lambda item: item[1])
    ]
    return list(sites.values()), rows


def _back_to(request, assessment) -> str:
    """Where the buyer came from (``next``, a page of this site), else the options."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("results:list", args=[assessment.pk])


@procurement_required
def figures(request, pk):
    assessment, shown = _results_or_redirect(request, pk)
    if shown is None:
        return redirect("wizard:check", assessment.pk)
    run = shown.run
    sites, servers = _sites_and_servers(run)
    general = presenters.assumptions_in_use(run.recommendation.options, GENERAL_NAMES)
    stored = assessment.answers.get(FIGURES_KEY) or {}
    initial = FiguresForm.initial_from(stored)
    kwargs = {"sites": sites, "servers": servers, "general": general, "initial": initial}
    back = _back_to(request, assessment)
    if request.method == "POST":
        form = FiguresForm(request.POST, **kwargs)
        if form.is_valid():
            try:
                version = int(request.POST.get("version", ""))
                save_figures(assessment, form.to_answers(), version)
            except (ValueError, assessment_services.StaleDraft):
                messages.error(
                    request,
                    _(
                        "This assessment changed in another window since you opened this page. "
                        "Your figures are still below: check them and save again."
                    ),
                )
                assessment.refresh_from_db()
                return _figures_page(request, assessment, form, back, status=409)
            messages.success(request, _("Your figures are saved; the options are priced again."))
            return redirect(back)
        return _figures_page(request, assessment, form, back, status=400)
    form = FiguresForm(**kwargs)
    return _figures_page(request, assessment, form, back)


@procurement_required
@require_POST
def recompute(request, pk):
    """Compute the options again with the current catalog (a new stored result)."""
    assessment = assessment_for(request.user, pk)
    try:
        shown = services.recompute(assessment)
    except ScenarioError as error:
        _cannot_size(request, error)
        return redirect("wizard:check", assessment.pk)
    if shown is None:
        _incomplete(request)
        return redirect("wizard:check", assessment.pk)
    messages.success(request, _("The options were computed again with the current catalog."))
    return redirect("results:list", assessment.pk)


def _figures_page(request, assessment, form, back, status=200):
    context = {"assessment": assessment, "form": form, "back": back}
    return render(request, "results/figures.html", context, status=status)
