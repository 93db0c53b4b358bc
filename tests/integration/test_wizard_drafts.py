"""Drafts: list, create, rename, duplicate, delete, ownership and the version check."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from advisor.assessments import services
from advisor.assessments.models import Assessment
from advisor.roles import PROCUREMENT_STAFF
from tests.support.users import make_user

# Both stages (marker `database`): answers stored as JSON, the version check.
pytestmark = [pytest.mark.django_db, pytest.mark.database]


@pytest.fixture
def buyer(client):
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


@pytest.fixture
def other_users_draft():
    other = make_user("someone-else", PROCUREMENT_STAFF, password="pw")
    return services.create_assessment(other, "Their secret plan")


def test_every_wizard_page_requires_login(client):
    draft = services.create_assessment(User.objects.create_user("u", password="pw"), "x")
    for url in (
        reverse("wizard:task_list", args=[draft.pk]),
        reverse("wizard:step", args=[draft.pk, "model"]),
        reverse("wizard:check", args=[draft.pk]),
        reverse("wizard:rename", args=[draft.pk]),
        reverse("wizard:delete", args=[draft.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 302
        assert reverse("login") in response["Location"]
    assert client.post(reverse("wizard:create")).status_code == 302
    assert not Assessment.objects.exclude(pk=draft.pk).exists()


def test_home_lists_only_my_assessments_with_status(client, buyer, other_users_draft):
    mine = services.create_assessment(buyer, "Qwen LoRA for support bot")
    response = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en")
    html = response.content.decode()
    assert mine.title in html
    assert "Their secret plan" not in html
    assert "Draft" in html
    assert reverse("wizard:task_list", args=[mine.pk]) in html


def test_home_in_chinese_shows_status_and_date(client, buyer):
    services.create_assessment(buyer, "评估一")
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "草稿" in html
    assert "年" in html  # the date is written the Chinese way


def test_create_starts_a_draft_and_opens_its_task_list(client, buyer):
    response = client.post(reverse("wizard:create"))
    draft = Assessment.objects.get(owner=buyer)
    assert response.status_code == 302
    assert response["Location"] == reverse("wizard:task_list", args=[draft.pk])
    assert draft.status == Assessment.Status.DRAFT
    assert draft.version == 1
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Model and method" in page
    assert "Not started" in page


def test_create_refuses_get(client, buyer):
    assert client.get(reverse("wizard:create")).status_code == 405


@pytest.mark.parametrize("name", ["task_list", "rename", "delete", "check"])
def test_other_users_drafts_are_404(client, buyer, other_users_draft, name):
    response = client.get(reverse(f"wizard:{name}", args=[other_users_draft.pk]))
    assert response.status_code == 404


def test_other_users_drafts_cannot_be_changed(client, buyer, other_users_draft):
    pk = other_users_draft.pk
    assert client.get(reverse("wizard:step", args=[pk, "model"])).status_code == 404
    assert client.post(reverse("wizard:duplicate", args=[pk])).status_code == 404
    assert client.post(reverse("wizard:delete", args=[pk])).status_code == 404
    response = client.post(reverse("wizard:rename", args=[pk]), {"title": "mine now", "version": 1})
    assert response.status_code == 404
    other_users_draft.refresh_from_db()
    assert other_users_draft.title == "Their secret plan"
    assert Assessment.objects.filter(owner=buyer).count() == 0


def test_unknown_step_is_404(client, buyer):
    draft = services.create_assessment(buyer, "x")
    assert client.get(reverse("wizard:step", args=[draft.pk, "nope"])).status_code == 404


def test_rename(client, buyer):
    draft = services.create_assessment(buyer, "Old name")
    url = reverse("wizard:rename", args=[draft.pk])
    assert 'value="Old name"' in client.get(url).content.decode()
    response = client.post(url, {"title": "  New name  ", "version": draft.version})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.title == "New name"
    assert draft.version == 2


def test_rename_rejects_empty_and_keeps_the_form(client, buyer):
    draft = services.create_assessment(buyer, "Old name")
    response = client.post(
        reverse("wizard:rename", args=[draft.pk]),
        {"title": "   ", "version": draft.version},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert "There is a problem" in response.content.decode()
    draft.refresh_from_db()
    assert draft.title == "Old name"


def test_rename_from_a_stale_page_is_refused_and_keeps_the_typed_name(client, buyer):
    draft = services.create_assessment(buyer, "Old name")
    services.rename_assessment(draft, "Renamed in another tab", draft.version)
    response = client.post(
        reverse("wizard:rename", args=[draft.pk]),
        {"title": "My typed name", "version": 1},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed in another tab or window" in html
    assert 'value="My typed name"' in html
    assert 'name="version" value="2"' in html  # saving again now goes through
    draft.refresh_from_db()
    assert draft.title == "Renamed in another tab"


def test_duplicate_copies_answers_as_a_new_draft(client, buyer):
    draft = services.create_assessment(buyer, "Original")
    services.save_step(draft, "procurement", {"mode": "buy"}, draft.version)
    services.confirm_answers(draft, draft.version)
    response = client.post(reverse("wizard:duplicate", args=[draft.pk]))
    assert response.status_code == 302
    copy = Assessment.objects.exclude(pk=draft.pk).get()
    assert copy.owner == buyer
    assert copy.answers == {"procurement": {"mode": "buy"}}
    assert copy.status == Assessment.Status.DRAFT
    assert "Original" in copy.title


def test_delete_asks_for_confirmation_first(client, buyer):
    draft = services.create_assessment(buyer, "Doomed")
    url = reverse("wizard:delete", args=[draft.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Delete “Doomed”?" in page
    assert Assessment.objects.filter(pk=draft.pk).exists()
    response = client.post(url)
    assert response.status_code == 302
    assert not Assessment.objects.filter(pk=draft.pk).exists()


def test_save_step_refuses_a_stale_version():
    user = User.objects.create_user("u", password="pw")
    draft = services.create_assessment(user, "x")
    services.save_step(draft, "site", {"mode": "catalog"}, 1)
    with pytest.raises(services.StaleDraft):
        services.save_step(draft, "site", {"mode": "own"}, 1)
    draft.refresh_from_db()
    assert draft.answers == {"site": {"mode": "catalog"}}
    assert draft.version == 2


def test_changing_an_answer_reopens_a_confirmed_assessment():
    user = User.objects.create_user("u", password="pw")
    draft = services.create_assessment(user, "x")
    services.save_step(draft, "site", {"mode": "catalog"}, draft.version)
    services.confirm_answers(draft, draft.version)
    services.save_step(draft, "site", {"mode": "catalog"}, draft.version)  # unchanged
    assert draft.status == Assessment.Status.COMPLETE
    services.save_step(draft, "site", {"mode": "own"}, draft.version)
    assert draft.status == Assessment.Status.DRAFT


@pytest.mark.parametrize(
    ("created_in", "read_in", "expected", "absent"),
    [
        ("en", "zh-hans", "的评估", "Assessment of"),
        ("zh-hans", "en", "Assessment of", "的评估"),
    ],
)
def test_default_name_is_shown_in_the_readers_language(
    client, buyer, created_in, read_in, expected, absent
):
    client.force_login(buyer)
    client.post(reverse("wizard:create"), HTTP_ACCEPT_LANGUAGE=created_in)
    draft = Assessment.objects.get(owner=buyer)
    assert draft.title == "", "no language-specific default text is stored"
    html = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE=read_in).content.decode()
    assert expected in html and absent not in html
    page = client.get(reverse("wizard:task_list", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE=read_in)
    assert expected in page.content.decode()
