"""The role check reads a user's permissions in one query (advisor.roles.PermissionsBackend,
docs/decisions/0058, 0085): the same permissions as Django's ModelBackend."""

import pytest
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission, User

from advisor.roles import APPROVER, CATALOG_ADMIN, PREPARE, PROCUREMENT_STAFF, PermissionsBackend
from tests.support.users import make_user

# Each database engine answers the query the same way.
pytestmark = [pytest.mark.django_db, pytest.mark.database]


def fresh(user: User) -> User:
    """The user as a new request loads it: nothing read yet."""
    return User.objects.get(pk=user.pk)


@pytest.mark.parametrize(
    "roles", [(), (PROCUREMENT_STAFF,), (APPROVER,), (PROCUREMENT_STAFF, CATALOG_ADMIN)]
)
def test_the_permissions_are_those_of_the_users_groups_and_own(roles):
    user = make_user("someone", *roles)
    user.user_permissions.add(Permission.objects.get(codename="view_brief"))
    expected = ModelBackend().get_all_permissions(fresh(user))
    assert PermissionsBackend().get_all_permissions(fresh(user)) == expected
    assert "brief.view_brief" in expected


def test_a_superuser_holds_every_permission_and_an_inactive_user_none():
    admin = User.objects.create_superuser("admin", password="pw")
    assert PermissionsBackend().get_all_permissions(fresh(admin)) == (
        ModelBackend().get_all_permissions(fresh(admin))
    )
    inactive = make_user("gone", PROCUREMENT_STAFF, is_active=False)
    assert PermissionsBackend().get_all_permissions(fresh(inactive)) == set()
    assert not fresh(inactive).has_perm(PREPARE)


def test_the_role_checks_of_a_request_read_permissions_once(django_assert_num_queries):
    user = fresh(make_user("buyer", PROCUREMENT_STAFF))
    with django_assert_num_queries(1):
        assert user.has_perm(PREPARE)
        assert not user.has_perm("brief.approve_brief")


def test_it_signs_no_one_in():
    make_user("buyer", PROCUREMENT_STAFF, password="right-pass-phrase")
    backend = PermissionsBackend()
    assert backend.authenticate(None, username="buyer", password="right-pass-phrase") is None
