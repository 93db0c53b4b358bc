"""Test data: the standard job (advisor/demo_scenarios.py, which the benches share) and the
builders that vary it. Each builder returns a copy of its own, so a test that changes its
document never changes the one another test reads."""

from __future__ import annotations

import copy

from advisor.demo_scenarios import (
    COMPARED_SITES,
    MODEL,
    PROCUREMENT,
    QWEN_7B_LORA,
    QWEN_7B_LORA_COMPARED,
    QWEN_32B_LORA,
    SITE,
    STEP_VALUES,
    TRAINING,
)
from advisor.demo_scenarios import answers as standard_answers

__all__ = [
    "COMPARED_SITES",
    "MODEL",
    "PROCUREMENT",
    "QWEN_7B_LORA",
    "QWEN_7B_LORA_COMPARED",
    "QWEN_32B_LORA",
    "SITE",
    "STEP_VALUES",
    "TRAINING",
    "answers",
    "scenario",
]


def scenario(base: dict | None = None, **sections) -> dict:
    """A scenario document of its own (a deep copy): ``base`` (default: the standard 7B job)
    with the given top-level sections replaced.
    ``scenario(QWEN_32B_LORA, site={"data_centers": ["example-guian"]})``."""
    document = copy.deepcopy(QWEN_7B_LORA if base is None else base)
    document.update(copy.deepcopy(sections))
    return document


def answers(site: dict | None = None, **steps) -> dict:
    """The standard job's answers, step by step, as the wizard stores them; a step given by
    name merges into the standard one: ``answers(procurement={"mode": "cloud"})``."""
    stored = standard_answers(site)
    for name, values in steps.items():
        stored[name] = {**stored[name], **values}
    return copy.deepcopy(stored)
