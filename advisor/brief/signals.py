"""What the brief feature tells others, without knowing who listens (the webhooks edge)."""

from django.dispatch import Signal

# Sent inside the transaction that stores a brief's signed PDF, once per brief: its PDF can be
# downloaded from the moment the transaction commits. Argument: ``brief``.
brief_generated = Signal()
