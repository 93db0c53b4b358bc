"""Helpers for tests of the wizard's training-step questions (framework, sample lengths)."""

from datetime import datetime

from django.urls import reverse
from django.utils import timezone

from advisor.assessments import answers, services
from advisor.brief.models import BriefStatus
from advisor.brief.render import BriefMeta
from advisor.domain.scenario import load_scenario
from advisor.roles import PROCUREMENT_STAFF
from tests.integration.test_wizard_support import MODEL, make_catalog
from tests.support.users import make_user


def start_draft(client):
    """A signed-in buyer's draft with the model step answered."""
    make_catalog()
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    draft = services.create_assessment(user, "Support bot")
    return services.save_step(
        draft, "model", {k: v for k, v in MODEL.items() if k != "version"}, draft.version
    )


def post_step(client, draft, step, data, language="en"):
    """Post ``data`` to one wizard step at the draft's current version."""
    draft.refresh_from_db()
    return client.post(
        reverse("wizard:step", args=[draft.pk, step]),
        {**data, "version": draft.version},
        HTTP_ACCEPT_LANGUAGE=language,
    )


def post_training(client, draft, data, language="en"):
    return post_step(client, draft, "training", data, language)


def post_model(client, draft, data, language="en"):
    return post_step(client, draft, "model", data, language)


def check_page(client, draft, language="en") -> str:
    response = client.get(reverse("wizard:check", args=[draft.pk]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def scenario_of(draft):
    draft.refresh_from_db()
    return load_scenario(answers.scenario_document(draft.answers))


def brief_meta(language: str) -> BriefMeta:
    return BriefMeta(
        number="FT-2026-000001",
        language=language,
        status=BriefStatus.AWAITING_APPROVAL,
        status_label="Awaiting approval",
        approved=False,
        prepared_by="buyer",
        prepared_at=timezone.make_aware(datetime(2026, 11, 30, 9, 0)),
        approved_by=None,
        approved_at=None,
        verify_url="https://advisor.example.cn/brief/verify/",
        organisation="Example Co.",
    )
