"""The three roles, as Django groups, and the permissions each holds."""

from django.contrib.auth.models import Group, Permission
from django.utils.translation import gettext_lazy as _

PROCUREMENT_STAFF = "procurement staff"
APPROVER = "approver"
CATALOG_ADMIN = "catalog admin"

ROLE_LABELS = {
    PROCUREMENT_STAFF: _("Procurement staff"),
    APPROVER: _("Approver"),
    CATALOG_ADMIN: _("Catalog admin"),
}

# Apps whose every model permission the catalog admin holds.
CATALOG_APPS = ("vendors",)


def ensure_roles() -> dict[str, Group]:
    """Create the role groups (idempotent) and give the catalog admin the catalog's permissions."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLE_LABELS}
    catalog_perms = Permission.objects.filter(content_type__app_label__in=CATALOG_APPS)
    groups[CATALOG_ADMIN].permissions.set(catalog_perms)
    return groups


def has_role(user, role: str) -> bool:
    return bool(
        user.is_authenticated and (user.is_superuser or user.groups.filter(name=role).exists())
    )


def is_approver(user) -> bool:
    return has_role(user, APPROVER)
