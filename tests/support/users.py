"""Users with roles (advisor/roles.py), as the views expect them."""

from importlib import import_module

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, load_backend
from django.contrib.auth.models import User
from django.test import Client

from advisor.roles import ensure_roles


def make_user(username: str, *roles: str, **fields) -> User:
    """A user in the given role groups (created with their permissions by ``ensure_roles``)."""
    user = User.objects.create_user(username, **fields)
    if roles:
        groups = ensure_roles()
        user.groups.add(*(groups[role] for role in roles))
    return user


def _session_backend() -> str:
    """The backend a session names: the first that can load users (as ``force_login`` picks)."""
    return next(
        path for path in settings.AUTHENTICATION_BACKENDS if hasattr(load_backend(path), "get_user")
    )


def signed_in_client(user: User, **defaults) -> Client:
    """A test client already signed in as ``user``, its session written directly.

    ``Client.force_login`` signs in as a person does: the ``user_logged_in`` receivers run
    (django-axes' access log, ``last_login``, the session key cycled), ~10 ms each. Tests of
    what a signed-in visitor may see, not of signing in, use this instead: the session holds
    what ``login()`` leaves in it (user id, backend, session hash), so the request's user is
    ``user`` exactly as after a sign-in. Each call makes a session of its own.
    """
    engine = import_module(settings.SESSION_ENGINE)
    session = engine.SessionStore()
    session[SESSION_KEY] = user._meta.pk.value_to_string(user)
    session[BACKEND_SESSION_KEY] = _session_backend()
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    client = Client(**defaults)
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    return client
