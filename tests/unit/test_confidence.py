"""The weakest input of a cost: which figure, at which level, with which flag."""

import pytest

from advisor.domain.economics.confidence import INDICATIVE, SOURCED, YOURS, weakest
from advisor.domain.economics.inputs import Provenance

SITE_OFFICIAL = Provenance("official", "table", flag="OFF", level="site")
ZONE_PRESS = Provenance("market", "press", flag="PRESS", level="zone")
ZONE_LOW = Provenance("market", "derived table", flag="LOW", level="zone")
NATIONAL_DERIVED = Provenance("catalog", "mean", flag="DER", level="national")
NATIONAL_VENDOR = Provenance("claim", "VNET", flag="VEND", level="national")
QUOTE = Provenance("quote", "a quote")
EXAMPLE = Provenance("example", "an example price")
YOUR = Provenance("override")
ASSUMED_RACK = Provenance("assumption", "one server per rack", level="assumed")


@pytest.mark.parametrize(
    ("provenance", "mode", "figure", "headline", "figure_label", "flag_label"),
    [
        # every site figure official at the site, a quote: sourced
        (
            {"tariff_cny_per_kwh": SITE_OFFICIAL, "purchase_cny_per_server": QUOTE},
            "buy",
            "tariff_cny_per_kwh",
            SOURCED,
            "site's power price",
            "official document",
        ),
        # a province tariff from the press is weaker than an official site PUE
        (
            {
                "tariff_cny_per_kwh": ZONE_PRESS,
                "pue": SITE_OFFICIAL,
                "purchase_cny_per_server": QUOTE,
            },
            "buy",
            "tariff_cny_per_kwh",
            INDICATIVE,
            "province tariff",
            "press report",
        ),
        # a vendor's national rack fee is weaker than a press province tariff
        (
            {
                "tariff_cny_per_kwh": ZONE_PRESS,
                "rack_fee_cny_per_month": NATIONAL_VENDOR,
                "purchase_cny_per_server": QUOTE,
            },
            "buy",
            "rack_fee_cny_per_month",
            INDICATIVE,
            "national rack fee",
            "vendor claim",
        ),
        # LOW beats everything else; at equal flags the lower level (national) is weaker
        (
            {"tariff_cny_per_kwh": ZONE_LOW, "rack_fee_cny_per_month": NATIONAL_VENDOR},
            "buy",
            "tariff_cny_per_kwh",
            INDICATIVE,
            "province tariff",
            "low confidence",
        ),
        (
            {
                "tariff_cny_per_kwh": NATIONAL_DERIVED,
                "pue": Provenance("market", flag="DER", level="zone"),
            },
            "buy",
            "tariff_cny_per_kwh",
            INDICATIVE,
            "national tariff",
            "derived figure",
        ),
        # an assumption (one server per rack) is the weakest of all
        (
            {"tariff_cny_per_kwh": ZONE_LOW, "rack_power_limit_kw": ASSUMED_RACK},
            "buy",
            "rack_power_limit_kw",
            INDICATIVE,
            "assumed power per rack (one server per rack)",
            "assumption",
        ),
        # rent and cloud include the site: only their price counts
        (
            {"tariff_cny_per_kwh": ZONE_LOW, "rent_cny_per_server_month": EXAMPLE},
            "rent",
            "rent_cny_per_server_month",
            INDICATIVE,
            "rent",
            "example figure",
        ),
        # the buyer's own figures throughout
        (
            {
                "tariff_cny_per_kwh": YOUR,
                "rack_fee_cny_per_month": YOUR,
                "purchase_cny_per_server": YOUR,
            },
            "buy",
            "tariff_cny_per_kwh",
            YOURS,
            "site's power price",
            "your figure",
        ),
        # the buyer's figure replaces the weak one: the next weakest shows
        (
            {"tariff_cny_per_kwh": YOUR, "rack_fee_cny_per_month": NATIONAL_VENDOR},
            "buy",
            "rack_fee_cny_per_month",
            INDICATIVE,
            "national rack fee",
            "vendor claim",
        ),
    ],
)
def test_weakest_input(provenance, mode, figure, headline, figure_label, flag_label):
    confidence = weakest(provenance, mode)
    assert confidence.figure == figure
    assert confidence.headline == headline
    assert confidence.figure_label == figure_label
    assert confidence.flag_label == flag_label
    assert confidence.indicative == (headline == INDICATIVE)


def test_nothing_to_judge():
    assert weakest({}, "buy") is None
    assert weakest({"pue": SITE_OFFICIAL}, "cloud") is None
