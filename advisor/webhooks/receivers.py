"""Brief events become webhook messages: issued once its signed PDF is stored (a receiver told
can download it), approved and sent back from the audit trail, superseded from a new stored
recommendation (a brief whose option's verdict changed)."""

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from advisor.brief.lifecycle import glance
from advisor.brief.models import AuditAction, AuditEvent, Brief, BriefStatus
from advisor.brief.signals import brief_generated
from advisor.recommendation.models import StoredRecommendation
from advisor.webhooks import events
from advisor.webhooks.models import EventType

FROM_AUDIT = {
    AuditAction.BRIEF_APPROVED: EventType.APPROVED,
    AuditAction.BRIEF_SENT_BACK: EventType.SENT_BACK,
}
# A brief still in play can be superseded; one being made or whose generation failed cannot.
DECIDABLE = (
    BriefStatus.AWAITING_APPROVAL,
    BriefStatus.APPROVED,
    BriefStatus.ISSUED,
    BriefStatus.SENT_BACK,
)


@receiver(post_save, sender=AuditEvent, dispatch_uid="webhooks-brief-events")
def brief_event(sender, instance, created, **kwargs):
    event_type = FROM_AUDIT.get(instance.action)
    if created and event_type and instance.brief_id:
        events.emit(event_type, instance.brief)


@receiver(brief_generated, dispatch_uid="webhooks-brief-issued")
def issued(sender, brief, **kwargs):
    events.emit(EventType.ISSUED, brief)


@receiver(post_save, sender=StoredRecommendation, dispatch_uid="webhooks-superseded")
def recomputed(sender, instance, created, **kwargs):
    if created:
        assessment_id = instance.assessment_id
        transaction.on_commit(lambda: superseded_briefs(assessment_id))


def superseded_briefs(assessment_id: int) -> None:
    """Tell once about each brief of the assessment that the new result supersedes.

    Most results are stored for an assessment without a brief in play: one plain query says
    so (a third of the CPU of the joined one that reads the briefs with their people)."""
    briefs = Brief.objects.filter(assessment_id=assessment_id, status__in=DECIDABLE)
    if not briefs.exists():
        return
    for brief in briefs.select_related("prepared_by", "approved_by"):
        if glance(brief).superseded and not events.already_superseded(brief):
            with transaction.atomic():
                events.emit(EventType.SUPERSEDED, brief)
