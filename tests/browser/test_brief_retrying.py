"""The buyer sees "retrying" while a brief whose worker died is generated again, then the brief."""

from datetime import timedelta

import pytest
from django.utils import timezone

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

RETRYING = {"en": "retrying", "zh-hans": "正在重试"}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_retrying_then_the_brief(page, live_server, login, screenshot, world, language):  # noqa: F811
    from advisor.assessments.answers import assessment_document
    from advisor.brief import recovery, services
    from advisor.brief.models import Brief, BriefStatus

    brief = services.issue_brief(
        user=world.owner, document=assessment_document(world), language="en", assessment=world
    )
    # Its worker took the lease and died: the lease has run out.
    Brief.objects.filter(pk=brief.pk).update(
        status=BriefStatus.GENERATING,
        generation_attempts=1,
        lease_until=timezone.now() - timedelta(seconds=5),
    )
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", "pw-buyer-1")
    page.wait_for_url(f"{live_server.url}/")
    page.goto(f"{live_server.url}/brief/{brief.pk}/")
    page.wait_for_selector(f"text={RETRYING[language]}")
    screenshot(f"brief-retrying-{language}")
    recovery.recover_stalled()  # what any brief worker's watchdog does (immediate tasks here)
    page.wait_for_selector("a.button[href$='/download/']", timeout=15_000)
    assert RETRYING[language] not in page.locator("#brief-status").inner_text()
