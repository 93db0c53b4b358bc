"""Vendor questionnaire pages: download for an option, upload the answers, preview, apply."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from advisor.assessments.selectors import assessment_for
from advisor.assessments.services import StaleDraft
from advisor.questionnaire import export, services
from advisor.questionnaire.forms import UploadForm
from advisor.questionnaire.models import AnswerSheet
from advisor.questionnaire.xlsx import UnreadableFile
from advisor.recommendation.services import assessment_results
from advisor.roles import procurement_required


def _run_or_404(assessment):
    run = assessment_results(assessment)
    if run is None:
        raise Http404
    return run


@procurement_required
def download(request, pk, key, kind):
    if kind not in export.CONTENT_TYPES:
        raise Http404
    assessment = assessment_for(request.user, pk)
    run = _run_or_404(assessment)
    option = export.find_option(run, key) if not key.isdigit() else None
    if option is None:
        raise Http404
    body = export.render(run, option, kind)
    services.questionnaires_sent(assessment=assessment, options=[option], counts={})
    response = HttpResponse(body, content_type=export.CONTENT_TYPES[kind])
    response["Content-Disposition"] = f'attachment; filename="{export.filename(option, kind)}"'
    return response


@procurement_required
def upload(request, pk):
    assessment = assessment_for(request.user, pk)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            sheet = services.answer_sheet_receive(
                assessment=assessment,
                user=request.user,
                data=upload.read(),
                name=upload.name,
                option_key=form.cleaned_data.get("option"),
            )
        except UnreadableFile as error:
            form.add_error("file", str(error))
        else:
            return redirect("questionnaire:preview", assessment.pk, sheet.pk)
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "questionnaire/upload.html",
        {"assessment": assessment, "form": form},
        status=status,
    )


@procurement_required
def preview(request, pk, sheet):
    assessment = assessment_for(request.user, pk)
    sheet = get_object_or_404(AnswerSheet, pk=sheet, assessment=assessment)
    result = services.answer_sheet_read(sheet)
    before = _run_or_404(assessment)
    if request.method == "POST" and result.answers and sheet.applied_at is None:
        try:
            version = int(request.POST.get("version", ""))
            services.answer_sheet_apply(
                assessment=assessment, sheet=sheet, result=result, version=version, before=before
            )
        except (ValueError, StaleDraft):
            messages.error(
                request,
                _("This assessment changed in another window; check the answers and apply again."),
            )
            assessment.refresh_from_db()
        else:
            messages.success(request, _("The vendor's answers are applied to this assessment."))
            if export.find_option(before, sheet.option_key):
                return redirect("results:option", assessment.pk, sheet.option_key)
            return redirect("results:list", assessment.pk)
    effect = services.answer_sheet_effect(
        assessment=assessment, sheet=sheet, result=result, before=before
    )
    return render(
        request,
        "questionnaire/preview.html",
        {
            "assessment": assessment,
            "sheet": sheet,
            "result": result,
            "option": effect.option,
            "changes": effect.changes,
            "names": effect.names,
        },
    )


@procurement_required
def bulk(request, pk):
    """The questionnaires for the shortlisted vendors: who they are, which went out, which came
    back; ``?download=1`` gives one workbook per vendor in a ZIP (and records them as sent)."""
    assessment = assessment_for(request.user, pk)
    run = _run_or_404(assessment)
    options = services.shortlisted(run)
    if request.GET.get("download") == "1" and options:
        body, counts = services.bundle(run, options)
        services.questionnaires_sent(assessment=assessment, options=options, counts=counts)
        response = HttpResponse(body, content_type="application/zip")
        response["Content-Disposition"] = (
            f'attachment; filename="questionnaires-assessment-{assessment.pk}.zip"'
        )
        return response
    sent = {r.vendor_key: r for r in assessment.questionnaire_requests.all()}
    rows = [(option, sent.get(services.vendor_key(option))) for option in options]
    return render(
        request,
        "questionnaire/bulk.html",
        {
            "assessment": assessment,
            "rows": rows,
            "others": [
                r for k, r in sent.items() if k not in {services.vendor_key(o) for o in options}
            ],
        },
    )
