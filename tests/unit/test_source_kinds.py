"""A source line's kind, and the confidence a figure gets from its sources' kinds."""

import pytest

from advisor.domain import sources

TEXT = (
    "[aggregator] GPU price index. Hugging Face dataset, undated. https://example.org/a\n"
    "\n"
    "[press] Report. Paper, 2024. https://example.org/b\n"
)


def test_lines_split_into_kind_and_text():
    assert sources.source_lines(TEXT) == [
        ("aggregator", "GPU price index. Hugging Face dataset, undated. https://example.org/a"),
        ("press", "Report. Paper, 2024. https://example.org/b"),
    ]


def test_a_bracketed_title_is_not_a_kind():
    assert sources.split_line("[Article reproducing a table]. site, n.d.") == (
        "",
        "[Article reproducing a table]. site, n.d.",
    )
    assert sources.split_line("[vendor] [Article reproducing a table]. site") == (
        "vendor",
        "[Article reproducing a table]. site",
    )


@pytest.mark.parametrize(
    ("kinds", "strongest", "weakest"),
    [
        (("blog", "official", "press"), "official", "blog"),
        (("aggregator", "blog"), "aggregator", "blog"),
        (("dealer", "press"), "dealer", "press"),
        (("vendor",), "vendor", "vendor"),
        ((), "", ""),
    ],
)
def test_strongest_and_weakest(kinds, strongest, weakest):
    assert sources.strongest(kinds) == strongest
    assert sources.weakest(kinds) == weakest


@pytest.mark.parametrize(
    ("text", "kind", "flag"),
    [
        (TEXT, "press", "PRESS"),  # a press report states it: its own flag stands
        ("[aggregator] a\n[blog] b", "aggregator", "LOW"),  # only low-quality sources
        ("[blog] b", "blog", "LOW"),
        ("[official] table", "official", "PRESS"),
        ("", "", "PRESS"),  # no kind recorded: the flag as recorded
    ],
)
def test_a_figure_on_low_quality_sources_only_is_low(text, kind, flag):
    assert sources.source_kind(text) == kind
    assert sources.figure_flag(kind, "PRESS") == flag


def test_plain_text_drops_the_tags_for_readers():
    assert sources.plain_text(TEXT) == (
        "GPU price index. Hugging Face dataset, undated. https://example.org/a\n"
        "Report. Paper, 2024. https://example.org/b"
    )


def test_kinds_are_listed_strongest_first():
    assert sources.SOURCE_KINDS == ("official", "vendor", "dealer", "press", "aggregator", "blog")
    assert sorted(sources.LOW_QUALITY_KINDS) == ["aggregator", "blog"]
