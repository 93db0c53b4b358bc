"""In Chromium: a waiting brief's page says how many briefs are ahead of it, and updates itself
as the queue moves (decision 0042), in both languages and on a 320 px screen."""

import pytest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("one_page_briefs")]

WORDS = {
    "en": ("2 briefs are ahead of it in the queue.", "It is next in the queue."),
    "zh-hans": ("队列中排在它前面的还有 2 份简报。", "它在队列中排在下一个。"),
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_queue_position_moves_as_briefs_ahead_are_made(
    page, live_server, login, screenshot, world, language
):
    from advisor.assessments.answers import assessment_document
    from advisor.brief import services
    from advisor.brief.models import Brief, BriefStatus

    document = assessment_document(world)
    briefs = [
        services.issue_brief(user=world.owner, document=document, language="en", assessment=world)
        for _ in range(3)
    ]
    # All three wait for a worker, none holds a lease (immediate tasks made them at issue here:
    # their PDFs are set aside).
    Brief.objects.filter(pk__in=[b.pk for b in briefs]).update(
        status=BriefStatus.GENERATING,
        lease_until=None,
        generation_attempts=0,
        pdf="",
        sha256="",
        unsigned_sha256="",
        draft_sha256="",
    )
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    login("buyer", "pw-buyer-1")
    page.wait_for_url(f"{live_server.url}/")
    page.set_viewport_size({"width": 320, "height": 800})
    page.goto(f"{live_server.url}/brief/{briefs[2].pk}/")
    two_ahead, next_one = WORDS[language]
    assert page.locator("#queue-position").inner_text() == two_ahead
    screenshot(f"brief-queue-position-{language}-320")

    # The two issued before it are made: the page, polling, says it is next.
    Brief.objects.filter(pk__in=[briefs[0].pk, briefs[1].pk]).update(
        status=BriefStatus.AWAITING_APPROVAL
    )
    page.wait_for_selector(f"#queue-position:has-text('{next_one}')", timeout=15_000)
    page.set_viewport_size({"width": 1280, "height": 900})
    screenshot(f"brief-queue-position-next-{language}")
