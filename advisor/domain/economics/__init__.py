"""Economics: buy and host, rent, or cloud, as cost lines; electricity by site; payback.

Entry points: :func:`evaluate` (one option at one site) and :func:`compare_sites` (the
same option at several sites). Inputs are plain dataclasses (:mod:`.inputs`); see
docs/economics.md and docs/decisions/0007-economics-model.md.
"""

from advisor.domain.economics.compare import (
    EconomicsResult,
    Payback,
    SiteComparison,
    SiteDifference,
    compare_sites,
    evaluate,
)
from advisor.domain.economics.costs import BUY, CLOUD, MODES, RENT, CostLine, ModeCost
from advisor.domain.economics.inputs import (
    Assumption,
    Assumptions,
    EconomicsInputError,
    EconomicsInputs,
    Overrides,
    Prices,
    Provenance,
    ServerLoad,
    Site,
)
from advisor.domain.economics.money import format_cny, round_cny

__all__ = [
    "BUY",
    "CLOUD",
    "MODES",
    "RENT",
    "Assumption",
    "Assumptions",
    "CostLine",
    "EconomicsInputError",
    "EconomicsInputs",
    "EconomicsResult",
    "ModeCost",
    "Overrides",
    "Payback",
    "Prices",
    "Provenance",
    "ServerLoad",
    "Site",
    "SiteComparison",
    "SiteDifference",
    "compare_sites",
    "evaluate",
    "format_cny",
    "round_cny",
]
