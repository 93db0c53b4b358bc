"""Vendor questionnaire pages: download for an option, upload the answers, preview, apply."""

from __future__ import annotations

import hashlib

from django.contrib import messages
from django.core.files.base import ContentFile
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from advisor.domain.questionnaire.declared import merge, validate_declared
from advisor.questionnaire import export, services
from advisor.questionnaire.forms import UploadForm
from advisor.questionnaire.models import AnswerSheet
from advisor.questionnaire.xlsx import UnreadableFile, read_workbook
from advisor.results.services import DECLARED_KEY, assessment_document, assessment_results
from advisor.roles import procurement_required
from advisor.selectors.recommend import run_recommendation
from advisor.wizard import services as wizard_services
from advisor.wizard.selectors import assessment_for


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
    response = HttpResponse(
        export.render(run, option, kind), content_type=export.CONTENT_TYPES[kind]
    )
    response["Content-Disposition"] = f'attachment; filename="{export.filename(option, kind)}"'
    return response


@procurement_required
def upload(request, pk):
    assessment = assessment_for(request.user, pk)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data["file"].read()
        try:
            read_workbook(data, timezone.localdate())
        except UnreadableFile as error:
            form.add_error("file", str(error))
        else:
            sheet = AnswerSheet(
                assessment=assessment,
                uploaded_by=request.user,
                option_key=form.cleaned_data.get("option") or "",
                original_name=(form.cleaned_data["file"].name or "answers.xlsx")[:255],
                sha256=hashlib.sha256(data).hexdigest(),
                received_on=timezone.localdate(),
            )
            sheet.file.save("answers.xlsx", ContentFile(data), save=False)
            sheet.save()
            return redirect("questionnaire:preview", assessment.pk, sheet.pk)
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "questionnaire/upload.html",
        {"assessment": assessment, "form": form},
        status=status,
    )


def _read(sheet: AnswerSheet):
    with sheet.file.open("rb") as handle:
        return read_workbook(handle.read(), sheet.received_on)


@procurement_required
def preview(request, pk, sheet):
    assessment = assessment_for(request.user, pk)
    sheet = get_object_or_404(AnswerSheet, pk=sheet, assessment=assessment)
    result = _read(sheet)
    before = _run_or_404(assessment)
    if request.method == "POST" and result.answers and sheet.applied_at is None:
        section = merge(assessment.answers.get(DECLARED_KEY), result.declared)
        validate_declared(section)
        try:
            version = int(request.POST.get("version", ""))
            answers = {**assessment.answers, DECLARED_KEY: section}
            wizard_services._write(assessment, version, answers=answers)
        except (ValueError, wizard_services.StaleDraft):
            messages.error(
                request,
                _("This assessment changed in another window; check the answers and apply again."),
            )
            assessment.refresh_from_db()
        else:
            sheet.declared = section
            sheet.applied_at = timezone.now()
            sheet.save(update_fields=["declared", "applied_at"])
            messages.success(request, _("The vendor's answers are applied to this assessment."))
            if export.find_option(before, sheet.option_key):
                return redirect("results:option", assessment.pk, sheet.option_key)
            return redirect("results:list", assessment.pk)
    document = assessment_document(assessment)
    document[DECLARED_KEY] = merge(document.get(DECLARED_KEY), result.declared)
    after = run_recommendation(document, today=before.today)
    option = export.find_option(before, sheet.option_key) if sheet.option_key else None
    option = option or (before.recommendation.options[0] if before.recommendation.options else None)
    changes = []
    if option is not None:
        changed = export.find_option(after, option.key)
        changes = services.changes(option, changed) if changed else []
    return render(
        request,
        "questionnaire/preview.html",
        {
            "assessment": assessment,
            "sheet": sheet,
            "result": result,
            "option": option,
            "changes": changes,
        },
    )
