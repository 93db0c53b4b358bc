from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from advisor.brief.audit import record
from advisor.brief.forms import VerifyUploadForm
from advisor.brief.models import AuditAction
from advisor.brief.verification import verify_upload


@require_http_methods(["GET", "POST"])
def verify(request):
    """Anyone with the link may check a PDF; only its signature and record status are shown."""
    posted = request.method == "POST"
    form = VerifyUploadForm(request.POST, request.FILES) if posted else VerifyUploadForm()
    verification = None
    if posted and form.is_valid():
        verification = verify_upload(form.cleaned_data["pdf"])
        record(
            AuditAction.BRIEF_VERIFIED,
            actor=request.user,
            brief=verification.brief or verification.stripped_from,
            sha256=verification.report.sha256,
            outcome=verification.report.tampering.value,
            on_record=verification.on_record,
        )
    status = 422 if form.errors else 200
    return render(
        request, "brief/verify.html", {"form": form, "verification": verification}, status=status
    )
