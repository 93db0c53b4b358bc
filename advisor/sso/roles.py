"""Roles from the identity provider's groups (OpenID Connect claims, SAML attributes, DingTalk
and Feishu departments): the mapping comes from settings (one company's group names, no code),
and the three role groups follow it at every company sign-in."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group

from advisor.roles import CATALOG_ADMIN, ROLE_LABELS, ensure_roles


def claimed_groups(provider: str, extra_data: dict) -> list[str]:
    """The groups the provider names: a SAML attribute's values, or an OpenID Connect claim
    from the user info or else the ID token."""
    if provider == "saml":
        return strings(extra_data.get(settings.COMPANY_SIGN_IN["SAML_GROUPS_ATTRIBUTE"]))
    claim = settings.COMPANY_SIGN_IN["GROUPS_CLAIM"]
    for source in ("userinfo", "id_token"):
        value = (extra_data.get(source) or {}).get(claim)
        if value is not None:
            return strings(value)
    return []


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [g for g in value if isinstance(g, str)]
    return []


# Which mapping in settings.COMPANY_SIGN_IN each provider's groups go through.
MAPPING_OF = {"saml": "SAML_ROLES", "dingtalk": "DINGTALK_ROLES", "feishu": "FEISHU_ROLES"}


def role_mapping(provider: str) -> dict:
    return settings.COMPANY_SIGN_IN.get(MAPPING_OF.get(provider, "ROLES")) or {}


def roles_for(groups: list[str], provider: str = "openid_connect") -> set[str]:
    mapping = role_mapping(provider)
    return {mapping[g] for g in groups if mapping.get(g) in ROLE_LABELS}


def apply_roles(user, groups: list[str], provider: str = "openid_connect") -> set[str]:
    """Give ``user`` exactly the roles its provider groups map to (other groups are kept); a
    catalog admin is staff (the admin site), and stops being staff without the role."""
    roles = roles_for(groups, provider)
    role_groups = ensure_roles()
    user.groups.remove(*Group.objects.filter(name__in=set(ROLE_LABELS) - roles))
    user.groups.add(*(role_groups[role] for role in roles))
    staff = CATALOG_ADMIN in roles or user.is_superuser
    if user.is_staff != staff:
        user.is_staff = staff
        user.save(update_fields=["is_staff"])
    return roles
