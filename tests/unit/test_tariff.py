"""Effective price of a 24-hour load from time-of-use bands, against hand-worked examples.

Prices are copied from published tables (agency-purchase tables as transcribed; their sources
are cited in fixtures/catalog/35_tariffs.json); the arithmetic is written out in each case.
"""

from decimal import Decimal as D

import pytest

from advisor.domain.economics.tariff import (
    Band,
    TariffError,
    effective_price,
    parse_hours,
    parse_months,
)

# Guangdong, five Pearl River Delta cities, 1-10(20) kV two-part, 2025-02 table; hours of
# 粤发改价格〔2021〕331号: peak 10-12, 14-19; valley 0-8; flat the rest; sharp 11-12 and 15-17
# in July to September (carved out of peak).
GUANGDONG_PRD_2025_02 = [
    Band("sharp", D("1.49606875"), "11-12,15-17", months="7-9"),
    Band("peak", D("1.20236875"), "10-12,14-19"),
    Band("flat", D("0.71866875"), "8-10,12-14,19-24"),
    Band("valley", D("0.29026875"), "0-8"),
]
# Over a year the 3 sharp hours count for 3/12 of the days: 3 × 3/12 = 0.75 h a day;
# peak keeps 7 − 0.75 = 6.25 h; flat 9 h; valley 8 h (0.75 + 6.25 + 9 + 8 = 24).
# energy = (0.75 × 1.49606875 + 6.25 × 1.20236875 + 9 × 0.71866875 + 8 × 0.29026875) / 24
#        = (1.1220515625 + 7.5148046875 + 6.46801875 + 2.32215) / 24
#        = 17.427025 / 24 = 0.726126041666…
GUANGDONG_ENERGY = D("17.427025") / 24

# Beijing, 1-10 kV two-part, July 2024 (State Grid Beijing); hours of 京发改规〔2023〕11号:
# peak 10-13, 17-22; flat 7-10, 13-17, 22-23; valley 23-7; sharp in July and August 11-13
# (out of peak) and 16-17 (out of flat).
BEIJING_2024_07 = [
    Band("sharp", D("1.057777"), "11-13,16-17", months="7,8"),
    Band("peak", D("0.926841"), "10-13,17-22"),
    Band("flat", D("0.681335"), "7-10,13-17,22-23"),
    Band("valley", D("0.435829"), "23-7"),
]
# A year: sharp 3 h × 2/12 = 0.5 h; peak 8 − 2 × 2/12 = 7 2/3 h; flat 8 − 1 × 2/12 = 7 5/6 h;
# valley 8 h. energy = (0.5 × 1.057777 + 23/3 × 0.926841 + 47/6 × 0.681335 + 8 × 0.435829) / 24
BEIJING_ENERGY = (
    D("0.5") * D("1.057777")
    + D(23) / 3 * D("0.926841")
    + D(47) / 6 * D("0.681335")
    + 8 * D("0.435829")
) / 24

# Guizhou 10 kV two-part (derived band prices, 2025-12 base), hours of 黔发改价格〔2023〕481号:
# peak 10-13, 17-22 (8 h); flat 8-10, 13-17, 22-24 (8 h); valley 0-8 (8 h).
GUIZHOU = [
    Band("peak", D("0.884"), "10-13,17-22"),
    Band("flat", D("0.562"), "8-10,13-17,22-24"),
    Band("valley", D("0.240"), "0-8"),
]
# energy = (8 × 0.884 + 8 × 0.562 + 8 × 0.240) / 24 = 13.488 / 24 = 0.562


@pytest.mark.parametrize(
    ("bands", "demand", "load_factor", "energy", "demand_per_kwh"),
    [
        # demand 36.1 CNY/kW·month spread over 730 h × 1.0 = 36.1 / 730 = 0.0494520547…
        (GUANGDONG_PRD_2025_02, D("36.1"), D(1), GUANGDONG_ENERGY, D("36.1") / 730),
        # at a load factor of 0.8: 36.1 / (730 × 0.8) = 36.1 / 584 = 0.0618150684…
        (GUANGDONG_PRD_2025_02, D("36.1"), D("0.8"), GUANGDONG_ENERGY, D("36.1") / 584),
        # Beijing's energy-only table: no demand charge given, so no demand part
        (BEIJING_2024_07, None, D(1), BEIJING_ENERGY, D(0)),
        # Guizhou: 35 / (730 × 0.5) = 35 / 365 = 0.0958904…
        (GUIZHOU, D(35), D("0.5"), D("0.562"), D(35) / 365),
    ],
)
def test_effective_price_against_hand_worked_tables(
    bands, demand, load_factor, energy, demand_per_kwh
):
    price = effective_price(bands, demand, load_factor)
    assert price.energy_cny_per_kwh == pytest.approx(energy, abs=D("1e-12"))
    assert price.demand_cny_per_kwh == pytest.approx(demand_per_kwh, abs=D("1e-12"))
    assert price.total_cny_per_kwh == price.energy_cny_per_kwh + price.demand_cny_per_kwh
    assert sum(s.hours_per_day for s in price.bands) == 24
    assert sum(s.share for s in price.bands) == pytest.approx(D(1), abs=D("1e-20"))


def test_guangdong_breakdown_hours_and_rounded_figures():
    price = effective_price(GUANGDONG_PRD_2025_02, D("36.1"))
    hours = {s.name: s.hours_per_day for s in price.bands}
    assert hours == {"sharp": D("0.75"), "peak": D("6.25"), "flat": D(9), "valley": D(8)}
    assert [s.name for s in price.bands] == ["sharp", "peak", "flat", "valley"]
    assert round(price.energy_cny_per_kwh, 4) == D("0.7261")
    assert round(price.demand_cny_per_kwh, 4) == D("0.0495")
    assert round(price.total_cny_per_kwh, 4) == D("0.7756")
    valley = next(s for s in price.bands if s.name == "valley")
    assert valley.share == D(8) / 24
    assert valley.contribution_cny_per_kwh == D(8) / 24 * D("0.29026875")


def test_beijing_sharp_hours_come_out_of_peak_and_flat():
    hours = {s.name: s.hours_per_day for s in effective_price(BEIJING_2024_07).bands}
    assert hours["sharp"] == D("0.5")
    assert hours["peak"] == pytest.approx(D(23) / 3)
    assert hours["flat"] == pytest.approx(D(47) / 6)
    assert hours["valley"] == 8


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("0-8", set(range(0, 16))),
        ("22-6", {*range(44, 48), *range(0, 12)}),
        ("7:30-9", set(range(15, 18))),
        ("10:00-12:00，14:00-15:00", {*range(20, 24), *range(28, 30)}),
        ("", set()),
    ],
)
def test_parse_hours(text, slots):
    assert parse_hours(text) == slots


@pytest.mark.parametrize("text", ["8", "8-8", "25-3", "7:20-9", "a-b", "0-8,6-9"])
def test_parse_hours_refuses(text):
    with pytest.raises(TariffError):
        parse_hours(text)


@pytest.mark.parametrize(
    ("text", "months"), [("7-9", {7, 8, 9}), ("1,12", {1, 12}), ("", set()), ("7,7-8", {7, 8})]
)
def test_parse_months(text, months):
    assert parse_months(text) == months


@pytest.mark.parametrize(("text"), ["0", "13", "x", "9-7"])
def test_parse_months_refuses(text):
    with pytest.raises(TariffError):
        parse_months(text)


@pytest.mark.parametrize(
    ("bands", "load_factor", "message"),
    [
        ([], D(1), "no time-of-use bands"),
        ([Band("peak", D(1), "0-12")], D(1), "cover the 24 hours"),
        ([Band("peak", D(1), "0-13"), Band("flat", D(1), "12-24")], D(1), "overlap"),
        ([Band("peak", D(1), "0-12"), Band("peak", D(1), "12-24")], D(1), "listed twice"),
        ([Band("noon", D(1), "0-24")], D(1), "unknown band"),
        (GUIZHOU, D(0), "load factor"),
        (GUIZHOU, D("1.1"), "load factor"),
        (
            [*GUIZHOU, Band("sharp", D(1), "11-12", "7"), Band("deep-valley", D(1), "11-13", "2")],
            D(1),
            "overlap another seasonal band",
        ),
    ],
)
def test_tables_that_cannot_be_priced_say_why(bands, load_factor, message):
    with pytest.raises(TariffError, match=message):
        effective_price(bands, None, load_factor)
