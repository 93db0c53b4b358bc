"""Background work for briefs (django.tasks; the database worker runs it in production)."""

from django.tasks import task

from advisor.brief.generation import generate


@task
def generate_brief(brief_id: int) -> str:
    """Render, sign and store a brief's PDF; returns the brief's status afterwards."""
    return generate(brief_id).status
