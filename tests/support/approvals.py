"""The people and the brief the approver tests start from: a buyer, an approver with a name and
an e-mail (the approval signature names them), and the first recommended option's brief, made
and awaiting approval."""

from __future__ import annotations

from advisor.assessments.answers import assessment_document
from advisor.brief import generation, services
from advisor.brief.models import Brief, BriefStatus
from advisor.recommendation.services import assessment_results
from advisor.roles import APPROVER, PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.users import make_user


def buyer_and_approver():
    buyer = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    boss = make_user(
        "boss",
        APPROVER,
        password="pw",
        email="boss@example.org",
        first_name="Fang",
        last_name="Wang",
    )
    return buyer, boss


def brief_awaiting_approval(buyer, language: str = "en") -> Brief:
    assessment = finished_assessment(buyer)
    option = assessment_results(assessment).recommendation.rankings["recommended"][0]
    issued = services.issue_brief(
        user=buyer,
        document=assessment_document(assessment),
        option_key=option.key,
        language=language,
        assessment=assessment,
    )
    issued = generation.generate(issued.pk)
    assert issued.status == BriefStatus.AWAITING_APPROVAL
    return issued
