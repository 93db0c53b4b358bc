"""Procurement options for a job: enumerate, size, check, price and rank (see options.py)."""

from advisor.domain.recommend.options import (
    OWN_ROOM_KEY,
    RANKING_LABELS,
    Capacity,
    CloudCandidate,
    HardwareCandidate,
    Option,
    Procurement,
    Recommendation,
    RecommendRun,
    SiteCandidate,
    option_facts,
    recommend,
    server_load,
    site_options,
    size_hardware,
)

__all__ = [
    "OWN_ROOM_KEY",
    "RANKING_LABELS",
    "Capacity",
    "CloudCandidate",
    "HardwareCandidate",
    "Option",
    "Procurement",
    "Recommendation",
    "RecommendRun",
    "SiteCandidate",
    "site_options",
    "option_facts",
    "recommend",
    "server_load",
    "size_hardware",
]
