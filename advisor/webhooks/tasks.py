"""Webhook delivery as a task (django.tasks; the database worker runs it in production).

Deliveries have a queue of their own, ``webhooks``, run by a worker of their own
(``scripts/serve-production webhooks``): brief workers take only the ``default`` queue, so a
brief never waits behind a receiver (docs/decisions/0123-webhooks-own-lane.md).
"""

from django.tasks import task

from advisor.webhooks.delivery import deliver
from advisor.webhooks.models import DeliveryStatus

QUEUE = "webhooks"


@task(queue_name=QUEUE)
def deliver_webhook(message_id: int) -> str:
    """One attempt; a failed one queues the next at its time (the immediate backend of
    development and tests has no "later": it tries again at once)."""
    message = deliver(message_id)
    if message is None:
        return "gone"  # delivered, stopped, or held by another worker
    if message.status == DeliveryStatus.RETRYING:
        queue(message.pk, message.next_attempt_at)
    return message.status


def queue(message_id: int, at=None) -> None:
    """Queue a delivery, at ``at`` where the backend can wait (the database worker)."""
    backend = deliver_webhook.get_backend()
    later = (
        deliver_webhook.using(run_after=at)
        if at is not None and backend.supports_defer
        else deliver_webhook
    )
    later.enqueue(message_id)
