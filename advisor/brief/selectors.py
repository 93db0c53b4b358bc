"""Which briefs a person may see: the pages and the API read them through here."""

from django.db.models import Q
from django.http import Http404

from advisor.brief.models import Brief, BriefStatus
from advisor.roles import is_approver


def brief_for(user, pk) -> Brief:
    """A brief its preparer or an approver may see; 404 for anyone else (no leak)."""
    visible = Q(prepared_by=user)
    if is_approver(user):
        visible |= ~Q(status=BriefStatus.GENERATING)
    try:
        return Brief.objects.select_related("prepared_by", "approved_by").get(visible, pk=pk)
    except (Brief.DoesNotExist, ValueError, TypeError):
        raise Http404 from None


def briefs_prepared_by(user):
    return Brief.objects.filter(prepared_by=user).select_related("approved_by")
