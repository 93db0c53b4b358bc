import xml.etree.ElementTree as ET

import pytest

from advisor.presentation.charts import Segment, Series, line_chart, stacked_bar

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def bar_widths(root) -> list[float]:
    return [
        float(r.get("width")) for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None
    ]


def test_stacked_bar_widths_are_proportional_to_values():
    svg = stacked_bar(
        [Segment("weights", 10), Segment("activations", 30)],
        capacity=80,
        title="Memory per GPU",
        unit="GiB",
        capacity_label="usable",
    )
    widths = bar_widths(parse(svg))
    assert widths[1] == pytest.approx(3 * widths[0], rel=1e-3)


def test_capacity_marker_sits_beyond_a_bar_that_fits_and_inside_one_that_does_not():
    fits = parse(stacked_bar([Segment("a", 40)], 80, title="t", unit="GiB", capacity_label="c"))
    over = parse(stacked_bar([Segment("a", 160)], 80, title="t", unit="GiB", capacity_label="c"))
    for root, beyond in ((fits, True), (over, False)):
        bar_end = 10 + bar_widths(root)[0]
        marker_x = float(next(root.iter(f"{SVG}line")).get("x1"))
        assert (marker_x > bar_end) is beyond


def test_labels_are_escaped_and_zero_segments_are_left_out():
    svg = stacked_bar(
        [Segment("<script>", 5), Segment("empty", 0)],
        10,
        title="a&b",
        unit="GiB",
        capacity_label="c",
    )
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    root = parse(svg)
    assert len(bar_widths(root)) == 1
    assert "empty" not in svg


def test_line_chart_has_one_polyline_per_series_with_every_point():
    svg = line_chart(
        [Series("buy", (100, 110, 120)), Series("rent", (0, 50, 100))],
        title="Cumulative cost",
        x_label="month",
        y_label="CNY",
    )
    lines = list(parse(svg).iter(f"{SVG}polyline"))
    assert len(lines) == 2
    assert [len(line.get("points").split()) for line in lines] == [3, 3]
    # The highest value touches the top of the plot, zero the bottom.
    rent_points = [tuple(map(float, p.split(","))) for p in lines[1].get("points").split()]
    assert rent_points[0][1] > rent_points[-1][1]


def test_chinese_labels_survive():
    svg = line_chart([Series("购买", (1, 2))], title="累计成本", x_label="月", y_label="元")
    assert "购买" in svg and "累计成本" in svg
    parse(svg)


def test_bar_chart_scales_bars_to_the_largest_value():
    from advisor.presentation.charts import bar_chart

    root = parse(bar_chart([Segment("H100", 10), Segment("L40S", 25)], title="t", unit="h"))
    widths = bar_widths(root)
    assert widths[1] == pytest.approx(2.5 * widths[0], rel=1e-3)
    assert "25.0 h" in ET.tostring(root, encoding="unicode")
