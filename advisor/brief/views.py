"""Brief pages: issue, status (htmx polling), download, approvals, and public verification."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST
from django_ratelimit.core import is_ratelimited

from advisor.assessments.answers import Incomplete
from advisor.assessments.selectors import assessment_for
from advisor.brief import documents, services
from advisor.brief.audit import record
from advisor.brief.credentials import CredentialError
from advisor.brief.forms import (
    UPLOAD_ERRORS,
    CertificateForm,
    IssueForm,
    RemoteCredentialForm,
    ReviewForm,
    SigningTokenForm,
    VerifyUploadForm,
)
from advisor.brief.lifecycle import glance
from advisor.brief.models import (
    AuditAction,
    Brief,
    BriefStatus,
    Origin,
    SigningCertificate,
    open_vetoes,
)
from advisor.brief.selectors import brief_for, briefs_prepared_by
from advisor.brief.verification import (
    MAX_PDF_BYTES,
    Busy,
    NotAPdf,
    verify_owners,
    verify_upload,
)
from advisor.domain.scenario import ScenarioError
from advisor.recommendation.services import ISSUE_REASON_KEPT
from advisor.roles import ISSUE, approver_required, is_approver, permission_required
from advisor.security import client_ip


@login_required
def brief_list(request):
    return render(request, "brief/list.html", {"briefs": briefs_prepared_by(request.user)})


@permission_required(ISSUE)
@require_POST
def issue(request):
    form = IssueForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose an option and a language for the brief."))
        return redirect("home")
    assessment = assessment_for(request.user, form.cleaned_data["assessment"])
    option_key, reason = form.cleaned_data["option"], form.cleaned_data["reason"]
    try:
        # The stored recommendation the results pages show, never a new computation.
        brief = services.issue_for_assessment(
            user=request.user,
            assessment=assessment,
            option_key=option_key,
            language=form.cleaned_data["language"],
            computed=form.cleaned_data["computed"],
            reason=reason,
            origin=Origin.PAGE,
        )
    except Incomplete:
        messages.error(request, _("Finish the assessment before issuing a brief."))
        return redirect("wizard:task_list", assessment.pk)
    except ScenarioError:  # the results page says which answer cannot be sized
        return redirect("results:list", assessment.pk)
    except services.ReasonRequired as error:
        keep_reason(request, assessment.pk, option_key, reason, error.code)
        url = reverse("results:option", args=[assessment.pk, option_key])
        return redirect(f"{url}#issue-reason")
    except services.BriefError as error:
        keep_reason(request, assessment.pk, option_key, reason)
        messages.error(request, str(error))
        return redirect("results:list", assessment.pk)
    return redirect("brief:detail", brief.pk)


def keep_reason(request, assessment_pk: int, option_key: str, reason: str, error: str = ""):
    """Keep what the buyer wrote for the option page (``ISSUE_REASON_KEPT``), with the code of
    what was wrong with it ("missing", "too_long"; the page words it in the reader's
    language)."""
    request.session[ISSUE_REASON_KEPT] = {
        "assessment": assessment_pk,
        "option": option_key,
        "text": reason,
        "error": error,
    }


@login_required
def detail(request, pk):
    brief = brief_for(request.user, pk)
    template = "brief/detail.html#status" if request.htmx else "brief/detail.html"
    vetoes = open_vetoes(brief.snapshot)
    return render(
        request,
        template,
        {
            "brief": brief,
            "glance": glance(brief),
            "can_review": is_approver(request.user)
            and brief.status == BriefStatus.AWAITING_APPROVAL
            and brief.prepared_by_id != request.user.pk,
            "review_form": ReviewForm(open_vetoes=len(vetoes), key_source=key_source(request.user)),
            "documents": documents.available(brief),
            "documents_made": documents.history(brief),
        },
    )


@login_required
def download(request, pk):
    brief = brief_for(request.user, pk)
    if not brief.ready:
        raise Http404
    services.record_download(brief, request.user)
    response = FileResponse(
        brief.pdf.open("rb"), as_attachment=True, filename=f"{brief.number}.pdf"
    )
    response["Content-Type"] = "application/pdf"
    return response


@login_required
def document(request, pk, kind):
    """A document made from the brief's snapshot (the price comparison sheet), recorded."""
    brief = brief_for(request.user, pk)
    if not brief.ready:
        raise Http404
    try:
        made = documents.make(brief, kind, request.user)
    except KeyError:
        raise Http404 from None
    response = HttpResponse(made.data, content_type=made.kind.content_type)
    response["Content-Disposition"] = f'attachment; filename="{made.filename}"'
    return response


@login_required
@require_POST
def retry(request, pk):
    brief = brief_for(request.user, pk)
    if brief.prepared_by_id != request.user.pk:
        raise PermissionDenied
    try:
        services.retry(brief, request.user)
    except services.BriefError as error:
        messages.error(request, str(error))
    return redirect("brief:detail", brief.pk)


@approver_required
def approvals(request):
    waiting = (
        Brief.objects.filter(status=BriefStatus.AWAITING_APPROVAL)
        .exclude(prepared_by=request.user)
        .select_related("prepared_by")
    )
    return render(request, "brief/approvals.html", {"glances": [glance(b) for b in waiting]})


def key_source(user) -> str | None:
    """Where ``user``'s own signing key is (KeySource), or None when they registered none."""
    return SigningCertificate.objects.filter(user=user).values_list("source", flat=True).first()


def tokens_configured() -> bool:
    return bool(settings.BRIEF_SIGNING.get("APPROVER_PKCS11_MODULE"))


def service_configured() -> bool:
    return bool((settings.BRIEF_SIGNING.get("APPROVER_CSC") or {}).get("URL"))


@approver_required
@sensitive_post_parameters("passphrase", "pin")
@require_http_methods(["GET", "POST"])
def certificate(request):
    """An approver's own signing key: what is registered, upload a certificate file or name a
    key on their token instead, remove it."""
    form = CertificateForm()
    token_form = SigningTokenForm() if tokens_configured() else None
    remote_form = RemoteCredentialForm() if service_configured() else None
    if request.method == "POST" and request.POST.get("action") == "remove":
        services.remove_certificate(request.user)
        messages.success(request, _("Your signing certificate was removed."))
        return redirect("brief:certificate")
    if request.method == "POST" and request.POST.get("action") == "token" and token_form:
        token_form = SigningTokenForm(request.POST)
        if token_form.is_valid():
            data = token_form.cleaned_data
            try:
                services.register_token(
                    request.user,
                    data["token_label"],
                    data["key_label"],
                    data["key_id"],
                    data["pin"],
                )
            except CredentialError as error:
                token_form.add_error("token_label", str(error))
            else:
                messages.success(request, _("The key on your signing token is registered."))
                return redirect("brief:certificate")
    elif request.method == "POST" and request.POST.get("action") == "remote" and remote_form:
        remote_form = RemoteCredentialForm(request.POST)
        if remote_form.is_valid():
            try:
                services.register_remote(request.user, remote_form.cleaned_data["credential_id"])
            except CredentialError as error:
                remote_form.add_error("credential_id", str(error))
            else:
                messages.success(request, _("Your key at the signing service is registered."))
                return redirect("brief:certificate")
    elif request.method == "POST":
        form = CertificateForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                services.register_certificate(
                    request.user, form.cleaned_data["certificate"], form.cleaned_data["passphrase"]
                )
            except CredentialError as error:
                form.add_error("certificate", str(error))
            else:
                messages.success(request, _("Your signing certificate is registered."))
                return redirect("brief:certificate")
    registered = SigningCertificate.objects.filter(user=request.user).first()
    refused = any(f is not None and f.errors for f in (form, token_form, remote_form))
    return render(
        request,
        "brief/certificate.html",
        {
            "form": form,
            "token_form": token_form,
            "remote_form": remote_form,
            "registered": registered,
        },
        status=400 if refused else 200,
    )


def _review_page(request, brief, form):
    """The brief's page with the review form as the approver filled it (their comment kept),
    its errors shown."""
    return render(
        request,
        "brief/detail.html",
        {"brief": brief, "glance": glance(brief), "can_review": True, "review_form": form},
        status=400,
    )


@approver_required
@sensitive_post_parameters("passphrase", "pin")
@require_POST
def review(request, pk):
    brief = brief_for(request.user, pk)
    form = ReviewForm(
        request.POST,
        open_vetoes=len(open_vetoes(brief.snapshot)),
        key_source=key_source(request.user),
    )
    if not form.is_valid():
        return _review_page(request, brief, form)
    try:
        if form.cleaned_data["decision"] == ReviewForm.APPROVE:
            services.approve(
                brief,
                request.user,
                comment=form.cleaned_data["comment"],
                acknowledged=form.cleaned_data.get("acknowledge_vetoes", False),
                passphrase=form.secret(),
                otp=form.code(),
            )
            messages.success(request, _("Brief %(number)s approved.") % {"number": brief.number})
        else:
            services.send_back(brief, request.user, form.cleaned_data["comment"])
            messages.success(request, _("Brief %(number)s sent back.") % {"number": brief.number})
    except services.KeyRefused as error:
        form.add_error(error.field if error.field in form.fields else None, str(error))
        return _review_page(request, brief, form)
    except services.BriefError as error:
        messages.error(request, str(error))
        return redirect("brief:detail", brief.pk)
    return redirect("brief:approvals")


def _verify_limited(request) -> bool:
    """Per client address (django-ratelimit, counted in the shared cache): POSTs only."""
    return is_ratelimited(
        request,
        group="brief-verify",
        key=client_ip,
        rate=settings.VERIFY_RATE_LIMIT,
        method="POST",
        increment=True,
    )


def _verify_refused(request, reason: str, *, status: int, retry_after: int):
    response = render(
        request,
        "brief/verify.html",
        {"form": VerifyUploadForm(), "verification": None, reason: True},
        status=status,
    )
    response["Retry-After"] = str(retry_after)
    return response


@require_http_methods(["GET", "POST"])
def verify(request):
    """Anyone with the link may check a PDF; only its signature and record status are shown.

    Bounded (docs/decisions/0019-verify-bounds.md): uploads are counted per client address, the
    file's size is checked before it is read, and the PDF is parsed in a child process with
    hard CPU, memory and time limits, at most ``VERIFY_SLOTS`` at once on this host: this
    worker waits at most ``VERIFY_BUDGET_S`` seconds.
    """
    posted = request.method == "POST"
    if posted and settings.VERIFY_RATE_LIMIT and _verify_limited(request):
        return _verify_refused(request, "rate_limited", status=429, retry_after=60)
    form = VerifyUploadForm(request.POST, request.FILES) if posted else VerifyUploadForm()
    verification = None
    if posted and form.is_valid():
        try:
            verification = verify_upload(
                form.cleaned_data["pdf"],
                wait_s=settings.VERIFY_QUEUE_S,
                owners=verify_owners(request),
            )
        except Busy:
            return _verify_refused(request, "busy", status=503, retry_after=Busy.retry_after)
        except NotAPdf as error:
            form.add_error(
                "pdf", UPLOAD_ERRORS[str(error)] % {"limit": MAX_PDF_BYTES // (1024 * 1024)}
            )
    if verification is not None:
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
