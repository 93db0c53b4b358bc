"""How far an option's cost can be trusted: the weakest of the figures it rests on.

Pure Python. Each site and price figure carries a :class:`Provenance` with a confidence flag
(official document, transcription of one, press, vendor claim, low …) and the level it was
found at (the site's own, its province's, a national figure, the buyer's). The cost of an
option is only as good as its weakest input; :func:`weakest` names that input, and the pages
and the brief show it next to the number, e.g. "indicative: province tariff, press report".
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.domain.economics.inputs import (
    BASIS_ASSUMPTION,
    BASIS_CATALOG,
    BASIS_CLAIM,
    BASIS_EXAMPLE,
    BASIS_MARKET,
    BASIS_OFFICIAL,
    BASIS_OVERRIDE,
    BASIS_QUOTE,
    BASIS_SIZING,
    LEVEL_ASSUMED,
    LEVEL_EQUIVALENT,
    LEVEL_NATIONAL,
    LEVEL_SITE,
    LEVEL_ZONE,
    Provenance,
)
from advisor.domain.i18n import N_

# Weakness of a confidence flag (higher is weaker).
# A listed company's filing (results it files with a stock exchange or regulator, its
# valuer's reply to the exchange) is accountable as a press report is, and is not a claim
# about a product.
FLAG_WEAKNESS = {
    "OFF": 0,
    "OFF-T": 1,
    "DER": 2,
    "MKT": 3,
    "PRESS": 3,
    "FILE": 3,
    "VEND": 4,
    "LOW": 5,
}
FLAG_LABELS = {
    "OFF": N_("official document"),
    "OFF-T": N_("transcription of an official table"),
    "DER": N_("derived figure"),
    "MKT": N_("market report"),
    "PRESS": N_("press report"),
    "FILE": N_("listed company's filing"),
    "VEND": N_("vendor claim"),
    "LOW": N_("low confidence"),
}
# Weakness of a basis when the figure has no flag.
BASIS_WEAKNESS = {
    BASIS_OVERRIDE: 0,
    BASIS_QUOTE: 0,
    BASIS_OFFICIAL: 1,
    BASIS_SIZING: 0,
    BASIS_CATALOG: 2,
    BASIS_MARKET: 3,
    BASIS_CLAIM: 4,
    BASIS_EXAMPLE: 4,
    BASIS_ASSUMPTION: 5,
}
BASIS_FLAG_LABELS = {
    BASIS_QUOTE: N_("vendor quote"),
    BASIS_OFFICIAL: N_("official document"),
    BASIS_CATALOG: N_("catalog figure"),
    BASIS_MARKET: N_("market report"),
    BASIS_CLAIM: N_("vendor claim"),
    BASIS_EXAMPLE: N_("example figure"),
    BASIS_ASSUMPTION: N_("assumption"),
    BASIS_SIZING: N_("from the sizing"),
    BASIS_OVERRIDE: N_("your figure"),
}
LEVEL_LABELS = {
    LEVEL_SITE: N_("the site's own figure"),
    LEVEL_ZONE: N_("province figure"),
    LEVEL_NATIONAL: N_("national figure"),
    LEVEL_ASSUMED: N_("assumed"),
    LEVEL_EQUIVALENT: N_("an equivalent server's price"),
}
LEVEL_WEAKNESS = {
    "": 0,
    LEVEL_SITE: 0,
    LEVEL_ZONE: 1,
    LEVEL_EQUIVALENT: 2,
    LEVEL_NATIONAL: 2,
    LEVEL_ASSUMED: 3,
}

# The figures an option's cost rests on, with the words for each level.
FIGURE_LABELS = {
    "tariff_cny_per_kwh": {
        LEVEL_SITE: N_("site's power price"),
        LEVEL_ZONE: N_("province tariff"),
        LEVEL_NATIONAL: N_("national tariff"),
        LEVEL_ASSUMED: N_("assumed tariff"),
    },
    "demand_charge_cny_per_kw_month": {
        LEVEL_SITE: N_("site's demand charge"),
        LEVEL_ZONE: N_("province demand charge"),
        LEVEL_NATIONAL: N_("national demand charge"),
        LEVEL_ASSUMED: N_("assumed demand charge"),
    },
    "rack_fee_cny_per_month": {
        LEVEL_SITE: N_("site's rack fee"),
        LEVEL_ZONE: N_("province rack fee"),
        LEVEL_NATIONAL: N_("national rack fee"),
        LEVEL_ASSUMED: N_("assumed rack fee"),
    },
    "pue": {
        LEVEL_SITE: N_("site's PUE"),
        LEVEL_ZONE: N_("province PUE"),
        LEVEL_NATIONAL: N_("national PUE"),
        LEVEL_ASSUMED: N_("assumed PUE"),
    },
    "rack_power_limit_kw": {
        LEVEL_SITE: N_("site's power per rack"),
        LEVEL_ZONE: N_("province power per rack"),
        LEVEL_NATIONAL: N_("national power per rack"),
        LEVEL_ASSUMED: N_("assumed power per rack (one server per rack)"),
    },
    "purchase_cny_per_server": {
        "": N_("purchase price"),
        LEVEL_EQUIVALENT: N_("an equivalent server's purchase price"),
    },
    "rent_cny_per_server_month": {
        "": N_("rent"),
        LEVEL_EQUIVALENT: N_("an equivalent server's rent"),
    },
    "cloud_cny_per_gpu_hour": {
        "": N_("cloud price"),
        LEVEL_EQUIVALENT: N_("an equivalent server's cloud price"),
    },
}
MODE_PRICE = {
    "buy": "purchase_cny_per_server",
    "rent": "rent_cny_per_server_month",
    "cloud": "cloud_cny_per_gpu_hour",
}
SITE_FIGURES = (
    "tariff_cny_per_kwh",
    "demand_charge_cny_per_kw_month",
    "pue",
    "rack_fee_cny_per_month",
    "rack_power_limit_kw",
)
INDICATIVE = N_("indicative")
SOURCED = N_("sourced")
YOURS = N_("your figures")


@dataclass(frozen=True)
class Confidence:
    """The weakest input of a cost: which figure, at which level, with which flag."""

    figure: str  # an Overrides field name
    level: str
    flag: str  # a SourceFlag value, or "" when the figure has only a basis
    basis: str
    weakness: int
    headline: str  # N_ text: "indicative", "sourced" or "your figures"
    figure_label: str  # N_ text, e.g. "province tariff"
    flag_label: str  # N_ text, e.g. "press report"

    @property
    def indicative(self) -> bool:
        return self.headline == INDICATIVE


def _weakness(provenance: Provenance) -> int:
    if provenance.basis == BASIS_OVERRIDE:
        return 0
    flag = FLAG_WEAKNESS.get(provenance.flag, BASIS_WEAKNESS.get(provenance.basis, 5))
    return flag * 10 + LEVEL_WEAKNESS.get(provenance.level, 0)


def weakest(provenance: dict[str, Provenance], mode: str | None) -> Confidence | None:
    """The weakest of the site figures and the ``mode``'s price in ``provenance``."""
    keys = [*SITE_FIGURES, *([MODE_PRICE[mode]] if mode in MODE_PRICE else [])]
    if mode in ("rent", "cloud"):  # rent and cloud include the site; only the price counts
        keys = [MODE_PRICE[mode]]
    candidates = [(k, provenance[k]) for k in keys if k in provenance]
    if not candidates:
        return None
    key, worst = max(candidates, key=lambda item: (_weakness(item[1]), -keys.index(item[0])))
    weakness = _weakness(worst)
    labels = FIGURE_LABELS[key]
    figure_label = labels.get(worst.level) or labels.get(LEVEL_SITE) or labels[""]
    flag_label = FLAG_LABELS.get(worst.flag) or BASIS_FLAG_LABELS.get(worst.basis, "")
    if all(p.basis == BASIS_OVERRIDE for _, p in candidates):
        headline = YOURS
    elif weakness < 20 and worst.level in ("", LEVEL_SITE):
        headline = SOURCED
    else:
        headline = INDICATIVE
    return Confidence(
        figure=key,
        level=worst.level,
        flag=worst.flag,
        basis=worst.basis,
        weakness=weakness,
        headline=headline,
        figure_label=figure_label,
        flag_label=flag_label,
    )
