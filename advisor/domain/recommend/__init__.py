"""Procurement options for a job: enumerate, size, check, price and rank (see options.py)."""

from advisor.domain.recommend.options import (
    RANKING_LABELS,
    Capacity,
    CloudCandidate,
    HardwareCandidate,
    Option,
    Procurement,
    Recommendation,
    SiteCandidate,
    build_option,
    option_facts,
    recommend,
    server_load,
    size_hardware,
)

__all__ = [
    "RANKING_LABELS",
    "Capacity",
    "CloudCandidate",
    "HardwareCandidate",
    "Option",
    "Procurement",
    "Recommendation",
    "SiteCandidate",
    "build_option",
    "option_facts",
    "recommend",
    "server_load",
    "size_hardware",
]
