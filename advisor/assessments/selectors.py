"""Read-only queries the wizard needs: the user's assessments and catalog choices.

Catalog models are imported inside the functions so the wizard keeps working (with empty
choices) while a catalog table is still empty.
"""

from __future__ import annotations

from django.http import Http404

from advisor.assessments.models import Assessment


def assessments_for(user):
    return Assessment.objects.filter(owner=user).order_by("-updated_at", "-pk")


def assessment_for(user, pk) -> Assessment:
    """The user's own assessment, or 404 (also for other users' assessments: no leak)."""
    try:
        return Assessment.objects.get(pk=pk, owner=user)
    except (Assessment.DoesNotExist, ValueError, TypeError):
        raise Http404 from None
