import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse

from advisor.roles import APPROVER, CATALOG_ADMIN, INTEGRATION, PROCUREMENT_STAFF

pytestmark = pytest.mark.django_db


def test_home_requires_login(client):
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


@pytest.mark.parametrize(("language", "expected"), [("en", "Sign in"), ("zh-hans", "登录")])
def test_login_page_speaks_both_languages(client, language, expected):
    response = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    assert expected in response.content.decode()


def test_health_checks_the_database(client):
    response = client.get(reverse("health"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


@override_settings(PRODUCTION=False, DEMO_PASSWORD="pw-for-test")
def test_setup_demo_creates_the_roles_and_users(client):
    call_command("setup_demo")
    call_command("setup_demo")  # idempotent
    roles = {u.username: set(u.groups.values_list("name", flat=True)) for u in User.objects.all()}
    assert roles == {
        "buyer": {PROCUREMENT_STAFF},
        "approver": {APPROVER},
        "admin": {CATALOG_ADMIN},
        "integration": {INTEGRATION},  # the demo integration user (webhook endpoints)
    }
    admin = User.objects.get(username="admin")
    # The catalog admin the README describes: staff with the role's permissions, not a superuser.
    assert admin.is_staff and not admin.is_superuser
    assert admin.has_perm("vendors.change_datacenter") and admin.has_perm(
        "advisor.change_ruleparameter"
    )
    assert not admin.has_perm("auth.change_user") and not admin.has_perm(
        "axes.delete_accessattempt"
    )
    assert not User.objects.get(username="buyer").is_staff
    signed_in = client.post(reverse("login"), {"username": "buyer", "password": "pw-for-test"})
    assert signed_in.status_code == 302 and signed_in["Location"] == reverse("home")
    assert client.get(reverse("home")).status_code == 200


@override_settings(PRODUCTION=True)
def test_demo_users_are_never_created_in_production():
    with pytest.raises(CommandError):
        call_command("setup_demo")
    assert not User.objects.exists()


def test_favicon_is_served_at_the_root_and_linked_from_every_page(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"  # an ICO header
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'rel="icon"' in page and "favicon.svg" in page
