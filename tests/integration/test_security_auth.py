"""Sign-in lockout (django-axes), the audit log of sign-ins and catalog edits, and the roles."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.hashers import Argon2PasswordHasher, check_password, make_password
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from advisor.brief.models import AuditAction, AuditEvent
from advisor.models import RuleParameter
from advisor.roles import (
    APPROVER,
    CATALOG_ADMIN,
    PROCUREMENT_STAFF,
    can_prepare,
    ensure_roles,
    is_approver,
)
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery-9"


@pytest.fixture
def buyer():
    return make_user("buyer", PROCUREMENT_STAFF, password=PASSWORD)


def sign_in(client, username, password, *, path="login", address="192.0.2.10", language="en"):
    url = reverse(path) if path == "login" else path
    return client.post(
        url,
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        HTTP_ACCEPT_LANGUAGE=language,
    )


def lock_out(client, username, *, address="192.0.2.10", path="login"):
    for attempt in range(5):
        response = sign_in(client, username, f"wrong-{attempt}", address=address, path=path)
    return response


# --- Lockout --------------------------------------------------------------------------------


def test_five_failed_sign_ins_lock_the_name_at_that_address(client, buyer):
    for attempt in range(4):
        assert sign_in(client, "buyer", f"wrong-{attempt}").status_code == 200  # form again
    locked = sign_in(client, "buyer", "wrong-4")
    assert locked.status_code == 429
    assert "Sign-in locked" in locked.content.decode()
    # The right password does not help while locked ...
    again = sign_in(client, "buyer", PASSWORD)
    assert again.status_code == 429 and "_auth_user_id" not in client.session
    # ... but the same person elsewhere (another address) is not locked out by a guesser.
    elsewhere = sign_in(Client(), "buyer", PASSWORD, address="198.51.100.7")
    assert elsewhere.status_code == 302


def test_lockout_page_is_translated_and_names_the_wait(client, buyer):
    lock_out(client, "buyer")
    page = sign_in(client, "buyer", PASSWORD, language="zh-hans").content.decode()
    assert "登录已锁定" in page and "30 分钟" in page
    english = sign_in(client, "buyer", PASSWORD, language="en").content.decode()
    assert "failed 5 times" in english and "Try again in 30 minutes" in english


def test_a_success_before_the_limit_starts_the_count_again(client, buyer):
    for attempt in range(4):
        sign_in(client, "buyer", f"wrong-{attempt}")
    assert sign_in(client, "buyer", PASSWORD).status_code == 302
    client.post(reverse("logout"))
    for attempt in range(4):
        assert sign_in(client, "buyer", f"wrong-again-{attempt}").status_code == 200


# --- Password spraying: many names, one guess each, from one address ------------------------


def test_fifteen_names_with_one_wrong_password_each_get_a_429_before_the_fifteenth(
    client, buyer, settings
):
    statuses = [
        sign_in(client, f"staff{number:02d}", "Spring2026!").status_code for number in range(15)
    ]
    assert 429 in statuses[:14], statuses
    first = statuses.index(429)
    assert first == settings.SIGN_IN_ADDRESS_LIMIT  # every name before it got the form again
    assert statuses[first:] == [429] * (15 - first)  # and it stays refused
    # While it lasts, the right password from that address is refused as well ...
    refused = sign_in(client, "buyer", PASSWORD)
    assert refused.status_code == 429 and "_auth_user_id" not in client.session
    assert refused["Retry-After"] == str(settings.SIGN_IN_ADDRESS_MINUTES * 60)
    # ... but the same person from another address signs in.
    assert sign_in(Client(), "buyer", PASSWORD, address="198.51.100.7").status_code == 302


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "Signing in from your address failed 10 times"), ("zh-hans", "登录已暂停")],
)
def test_the_address_page_is_translated_and_names_the_wait(client, language, expected):
    for number in range(10):
        sign_in(client, f"name{number}", "guess")
    page = sign_in(client, "name-x", "guess", language=language)
    assert page.status_code == 429
    html = page.content.decode()
    assert expected in html
    assert ("15 minutes" if language == "en" else "15 分钟") in html


def test_the_address_is_free_again_once_its_failures_are_older_than_the_window(
    client, buyer, settings
):
    from datetime import timedelta

    from django.utils import timezone

    for number in range(settings.SIGN_IN_ADDRESS_LIMIT):
        sign_in(client, f"name{number}", "guess")
    assert sign_in(client, "buyer", PASSWORD).status_code == 429
    window = timedelta(minutes=settings.SIGN_IN_ADDRESS_MINUTES, seconds=1)
    AccessAttempt.objects.update(attempt_time=timezone.now() - window)
    assert sign_in(client, "buyer", PASSWORD).status_code == 302


def test_the_admin_sign_in_is_throttled_by_address_too(client):
    make_user("editor", CATALOG_ADMIN, password=PASSWORD, is_staff=True)
    admin_login = reverse("admin:login")
    for number in range(10):
        sign_in(client, f"name{number}", "guess", path=admin_login)
    assert sign_in(client, "editor", PASSWORD, path=admin_login).status_code == 429


def test_django_admin_sign_in_is_locked_too(client):
    make_user("editor", CATALOG_ADMIN, password=PASSWORD, is_staff=True)
    admin_login = reverse("admin:login")
    locked = lock_out(client, "editor", path=admin_login)
    assert locked.status_code == 429
    assert sign_in(client, "editor", PASSWORD, path=admin_login).status_code == 429


def test_an_admin_unlocks_in_django_admin(client, buyer):
    lock_out(client, "buyer")
    assert AccessAttempt.objects.filter(username="buyer").exists()
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", "root@example.cn", "x"))
    changelist = reverse("admin:axes_accessattempt_changelist")
    assert "buyer" in admin.get(changelist).content.decode()
    attempt = AccessAttempt.objects.get(username="buyer")
    response = admin.post(
        changelist,
        {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert sign_in(client, "buyer", PASSWORD).status_code == 302


def test_an_admin_unlocks_from_the_command_line(client, buyer):
    lock_out(client, "buyer")
    call_command("axes_reset_username", "buyer", verbosity=0)
    assert sign_in(client, "buyer", PASSWORD).status_code == 302


def test_a_catalog_admin_cannot_unlock_accounts(client):
    editor = make_user("editor", CATALOG_ADMIN, is_staff=True)
    client.force_login(editor)
    assert client.get(reverse("admin:axes_accessattempt_changelist")).status_code == 403


# --- Audit log ------------------------------------------------------------------------------


def test_sign_in_is_audited_with_the_address(client, buyer):
    sign_in(client, "buyer", PASSWORD)
    event = AuditEvent.objects.get(action=AuditAction.SIGN_IN)
    assert event.actor == buyer and event.actor_username == "buyer"
    assert event.detail == {"ip": "192.0.2.10", "path": reverse("login")}


def test_failed_sign_in_keeps_the_name_never_the_password(client, buyer):
    sign_in(client, "nobody", "hunter2-secret")
    event = AuditEvent.objects.get(action=AuditAction.SIGN_IN_FAILED)
    assert event.actor is None and event.actor_username == "nobody"
    assert "hunter2" not in str(event.detail) and "password" not in event.detail
    assert event.detail["ip"] == "192.0.2.10"


def test_failures_during_a_lockout_are_audited_as_locked(client, buyer):
    lock_out(client, "buyer")
    sign_in(client, "buyer", PASSWORD)
    failures = AuditEvent.objects.filter(action=AuditAction.SIGN_IN_FAILED).order_by("pk")
    assert failures.count() == 6
    assert failures.last().detail.get("locked_out") is True
    assert not AuditEvent.objects.filter(action=AuditAction.SIGN_IN).exists()


def test_admin_sign_in_is_audited_too(client):
    make_user("editor", CATALOG_ADMIN, password=PASSWORD, is_staff=True)
    sign_in(client, "editor", PASSWORD, path=reverse("admin:login"))
    event = AuditEvent.objects.get(action=AuditAction.SIGN_IN)
    assert event.actor_username == "editor" and event.detail["path"] == reverse("admin:login")


def test_catalog_edits_in_admin_are_audited(client):
    editor = make_user("editor", CATALOG_ADMIN, is_staff=True)
    client.force_login(editor)
    response = client.post(
        reverse("admin:advisor_ruleparameter_add"),
        {"key": "site.ups_backup_target_min", "value": "45", "reason": "Our standard"},
    )
    assert response.status_code == 302, response.content.decode()[:500]
    row = RuleParameter.objects.get()
    client.post(reverse("admin:advisor_ruleparameter_delete", args=[row.pk]), {"post": "yes"})
    events = AuditEvent.objects.filter(action=AuditAction.CATALOG_EDITED).order_by("pk")
    assert [(e.actor, e.detail["model"], e.detail["change"]) for e in events] == [
        (editor, "advisor.ruleparameter", "created"),
        (editor, "advisor.ruleparameter", "deleted"),
    ]
    assert events[0].detail["object_id"] == str(row.pk)


def test_catalog_loads_from_the_command_line_are_not_audited_as_edits():
    call_command("load_catalog")
    assert not AuditEvent.objects.filter(action=AuditAction.CATALOG_EDITED).exists()


# --- Roles ----------------------------------------------------------------------------------


def test_roles_hold_their_permissions():
    groups = ensure_roles()
    ensure_roles()  # idempotent
    perms = {
        role: {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}
        for role, group in groups.items()
    }
    assert {"assessments.add_assessment", "brief.add_brief"} <= perms[PROCUREMENT_STAFF]
    assert "brief.approve_brief" not in perms[PROCUREMENT_STAFF]
    assert perms[APPROVER] == {"brief.approve_brief", "brief.view_brief"}
    assert "vendors.change_accelerator" in perms[CATALOG_ADMIN]
    assert "advisor.change_ruleparameter" in perms[CATALOG_ADMIN]
    assert not any(
        p.startswith(("wizard.", "brief.", "auth.", "axes.")) for p in perms[CATALOG_ADMIN]
    )


def test_role_checks_follow_permissions_not_names():
    buyer = make_user("b", PROCUREMENT_STAFF)
    approver = make_user("a", APPROVER)
    editor = make_user("e", CATALOG_ADMIN, is_staff=True)
    root = User.objects.create_superuser("root", "root@example.cn", "x")
    assert [can_prepare(u) for u in (buyer, approver, editor, root)] == [True, False, False, True]
    assert [is_approver(u) for u in (buyer, approver, editor, root)] == [False, True, False, True]


def test_start_button_only_for_procurement_staff(client):
    client.force_login(make_user("a", APPROVER))
    home = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Start a new assessment" not in home
    client.force_login(make_user("b", PROCUREMENT_STAFF))
    home = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Start a new assessment" in home


@pytest.mark.database  # PostgreSQL refuses a name longer than the attempt record's column
def test_a_very_long_name_at_sign_in_is_a_failed_sign_in_not_an_error(client):
    name = "9" * 400
    response = client.post(reverse("login"), {"username": name, "password": "pw"})
    assert response.status_code == 200  # the form again, with its message
    attempt = AccessAttempt.objects.get()
    assert attempt.username == name[:255]


# --- Password hashing -----------------------------------------------------------------------


PRODUCTION_HASHERS = [
    "advisor.passwords.OwaspArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]


def test_a_pbkdf2_password_still_signs_in_and_is_stored_again_with_argon2(client, settings):
    """Passwords set before Argon2 (docs/decisions/0036) keep working and move over on use."""
    settings.PASSWORD_HASHERS = PRODUCTION_HASHERS
    user = make_user("older", PROCUREMENT_STAFF)
    user.password = make_password(PASSWORD, hasher="pbkdf2_sha256")
    user.save()
    assert sign_in(client, "older", PASSWORD).status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    assert check_password(PASSWORD, user.password)
    assert sign_in(Client(), "older", "not-the-password").status_code == 200  # refused


def test_an_argon2_password_with_django_defaults_signs_in_and_moves_to_owasp_parameters(
    client, settings
):
    """Hashes made before decision 0040 (Argon2id at Django's 100 MiB, t=2, p=8) still verify
    and are stored again with OWASP's parameters at the next sign-in."""
    settings.PASSWORD_HASHERS = PRODUCTION_HASHERS
    user = make_user("earlier", PROCUREMENT_STAFF)
    user.password = Argon2PasswordHasher().encode(PASSWORD, Argon2PasswordHasher().salt())
    user.save()
    assert user.password.startswith("argon2$argon2id$v=19$m=102400,t=2,p=8$")
    assert sign_in(client, "earlier", PASSWORD).status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    assert sign_in(Client(), "earlier", "not-the-password").status_code == 200  # refused
