"""Assessments for tests: the standard job, answered as the wizard stores it, with overrides.

The standard job's answers live in :mod:`tests.support.scenarios` (the benches use them too).
"""

from advisor.assessments.services import create_answered_assessment
from advisor.wizard import steps
from tests.support.scenarios import PROCUREMENT, SITE, TRAINING, answers

__all__ = ["PROCUREMENT", "SITE", "TRAINING", "finished_assessment"]


def finished_assessment(owner, *, site=None, title="Qwen2.5 7B LoRA", **steps_over):
    """A draft of ``owner`` with every step answered (the standard job); ``site`` or any step
    given by slug (``training={...}``) replaces that step's answers."""
    values = {**answers(site), **steps_over}
    draft = create_answered_assessment(owner=owner, answers=values, title=title)
    assert steps.all_complete(draft.answers)
    return draft
