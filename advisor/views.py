from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import redirect, render

from advisor.assessments.selectors import assessments_for
from advisor.roles import PREPARE, is_approver, manages_webhooks


@login_required
def home(request):
    """The user's assessments, drafts and confirmed ones, most recently changed first; an
    approver who prepares nothing lands on the approvals queue, an integration user who
    prepares nothing on the webhooks page."""
    if is_approver(request.user) and not request.user.has_perm(PREPARE):
        return redirect("brief:approvals")
    if manages_webhooks(request.user) and not request.user.has_perm(PREPARE):
        return redirect("webhooks:list")
    return render(request, "advisor/home.html", {"assessments": assessments_for(request.user)})


def health(request):
    """Liveness and database check for load balancers."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:  # noqa: BLE001 - any database failure means unhealthy
        return JsonResponse({"status": "error", "database": "unreachable"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})
