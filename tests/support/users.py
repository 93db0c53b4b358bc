"""Users with roles (advisor/roles.py), as the views expect them."""

from django.contrib.auth.models import User

from advisor.roles import ensure_roles


def make_user(username: str, *roles: str, **fields) -> User:
    """A user in the given role groups (created with their permissions by ``ensure_roles``)."""
    user = User.objects.create_user(username, **fields)
    if roles:
        groups = ensure_roles()
        user.groups.add(*(groups[role] for role in roles))
    return user
