"""The four roles, as Django groups, and the permissions each holds.

Views check permissions, never group names: a superuser holds every permission, and a
deployment may give a permission to another group. Model permissions say what a role may do;
which objects it may do it to is the views' business (a buyer's own assessments and briefs;
every submitted brief for an approver), see docs/decisions/0011-security.md.
"""

from functools import wraps

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

PROCUREMENT_STAFF = "procurement staff"
APPROVER = "approver"
CATALOG_ADMIN = "catalog admin"
# Connects other systems: registers the webhook endpoints told of brief events (decision 0143).
INTEGRATION = "integration"

ROLE_LABELS = {
    PROCUREMENT_STAFF: _("Procurement staff"),
    APPROVER: _("Approver"),
    CATALOG_ADMIN: _("Catalog admin"),
    INTEGRATION: _("Integration"),
}

# What the views check.
PREPARE = "assessments.add_assessment"  # the wizard, the options, one's own figures
ISSUE = "brief.add_brief"  # issuing a brief from one's own assessment
APPROVE = "brief.approve_brief"  # the approvals list, approving or sending back
MANAGE_WEBHOOKS = "webhooks.change_webhookendpoint"  # the webhooks page: endpoints, tests, log

ROLE_PERMISSIONS = {
    PROCUREMENT_STAFF: (
        "assessments.add_assessment",
        "assessments.change_assessment",
        "assessments.delete_assessment",
        "assessments.view_assessment",
        "brief.add_brief",
        "brief.view_brief",
    ),
    APPROVER: ("brief.approve_brief", "brief.view_brief"),
    CATALOG_ADMIN: (
        *(f"advisor.{action}_ruleparameter" for action in ("add", "change", "delete", "view")),
        # Vendors' answer sheets: seen, and their declared facts promoted into the catalog.
        "questionnaire.view_answersheet",
    ),
    INTEGRATION: (
        "webhooks.add_webhookendpoint",
        "webhooks.change_webhookendpoint",
        "webhooks.view_webhookendpoint",
        "webhooks.view_webhookmessage",
    ),
}
# Apps whose every model permission the catalog admin holds (on top of the above).
CATALOG_APPS = ("vendors",)


def _permissions(names) -> Q:
    query = Q(pk__in=[])
    for name in names:
        app_label, codename = name.split(".")
        query |= Q(content_type__app_label=app_label, codename=codename)
    return query


def ensure_roles() -> dict[str, Group]:
    """Create the role groups (idempotent) and set each one's permissions."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLE_LABELS}
    for role, names in ROLE_PERMISSIONS.items():
        query = _permissions(names)
        if role == CATALOG_ADMIN:
            query |= Q(content_type__app_label__in=CATALOG_APPS)
        groups[role].permissions.set(Permission.objects.filter(query))
    return groups


class PermissionsBackend(ModelBackend):
    """Reads a user's own and their groups' permissions in one query, where Django's
    ModelBackend makes two; every page's role check and navigation read them (decision 0058).

    Listed before ModelBackend, which still checks passwords and which sessions name: this one
    authenticates no one. Both keep the permissions read on the user object for the request.
    """

    def authenticate(self, request, **credentials):
        return None

    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):  # ModelBackend's name: it reads them too
            user_obj._perm_cache = _read_permissions(user_obj)
        return user_obj._perm_cache


def _read_permissions(user) -> set[str]:
    """``app_label.codename`` of every permission the user holds, their own and their groups'
    (a superuser: every permission), in one query: Django's own query shape, as NetBox's."""
    found = Permission.objects.all()
    if not user.is_superuser:
        found = found.filter(Q(user=user) | Q(group__user=user))
    rows = found.order_by().values_list("content_type__app_label", "codename")
    return {f"{app_label}.{codename}" for app_label, codename in rows}


def has_role(user, role: str) -> bool:
    return bool(
        user.is_authenticated and (user.is_superuser or user.groups.filter(name=role).exists())
    )


def is_approver(user) -> bool:
    return bool(user.is_authenticated and user.has_perm(APPROVE))


def can_prepare(user) -> bool:
    return bool(user.is_authenticated and user.has_perm(PREPARE))


def permission_required(permission: str):
    """Signed in (else the sign-in page) and holding ``permission`` (else 403)."""

    def decorator(view):
        @wraps(view)
        def checked(request, *args, **kwargs):
            if not request.user.has_perm(permission):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return login_required(checked)

    return decorator


procurement_required = permission_required(PREPARE)
approver_required = permission_required(APPROVE)
integration_required = permission_required(MANAGE_WEBHOOKS)


def manages_webhooks(user) -> bool:
    return bool(user.is_authenticated and user.has_perm(MANAGE_WEBHOOKS))
