"""What kind of publication a catalog source line is, and what that makes of a figure.

Pure Python (docs/decisions/0043-source-kinds.md). Every line of a catalog row's source names
one public document and starts with its kind in square brackets::

    [vendor] NVIDIA A100 Tensor Core GPU (product page). NVIDIA, n.d. https://www.nvidia.com/…
    [aggregator] GPU price index. Hugging Face dataset, undated. https://huggingface.co/…

The kinds, strongest first: an official document or price list, a vendor's or operator's own
publication, a dealer's quote, a press report, an aggregator (spec databases, reposts,
datasets, tables in someone's code) and a blog. A figure is as good as the strongest kind
among the sources that state it; a figure whose sources are all aggregators or blogs is low
confidence (the LOW flag), wherever it is shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

OFFICIAL = "official"
VENDOR = "vendor"
DEALER = "dealer"
PRESS = "press"
AGGREGATOR = "aggregator"
BLOG = "blog"

# Strongest first (vendors.choices.SourceKind mirrors these values; a unit test keeps them equal).
SOURCE_KINDS = (OFFICIAL, VENDOR, DEALER, PRESS, AGGREGATOR, BLOG)
LOW_QUALITY_KINDS = frozenset({AGGREGATOR, BLOG})
# The confidence flag a figure gets when its sources are all low quality (SourceFlag.LOW).
LOW_FLAG = "LOW"

_TAG = re.compile(r"^\[(?P<kind>[a-z]+)\]\s*")


def split_line(line: str) -> tuple[str, str]:
    """``"[press] Report …"`` → ``("press", "Report …")``; an untagged line → ``("", line)``.

    A tag that names no kind counts as no tag (``[Article reproducing …]`` is a title).
    """
    line = line.strip()
    match = _TAG.match(line)
    if match and match["kind"] in SOURCE_KINDS:
        return match["kind"], line[match.end() :]
    return "", line


def source_lines(text: str | None) -> list[tuple[str, str]]:
    """Every non-empty line of a source field as ``(kind, text)``."""
    return [split_line(line) for line in (text or "").splitlines() if line.strip()]


def untagged_lines(text: str | None) -> list[str]:
    """The lines of a source field that do not start with a kind."""
    return [line for kind, line in source_lines(text) if not kind]


def kinds_of(text: str | None) -> tuple[str, ...]:
    """The kinds of a source field's lines, in order, each once."""
    return tuple(dict.fromkeys(kind for kind, _ in source_lines(text) if kind))


def strongest(kinds: Iterable[str]) -> str:
    """The strongest of ``kinds`` (``""`` when there is none)."""
    known = [k for k in kinds if k in SOURCE_KINDS]
    return min(known, key=SOURCE_KINDS.index) if known else ""


def weakest(kinds: Iterable[str]) -> str:
    """The weakest of ``kinds`` (``""`` when there is none)."""
    known = [k for k in kinds if k in SOURCE_KINDS]
    return max(known, key=SOURCE_KINDS.index) if known else ""


def source_kind(text: str | None) -> str:
    """The kind a figure resting on the whole source field gets: its strongest line's."""
    return strongest(kinds_of(text))


def is_low_quality(kind: str) -> bool:
    return kind in LOW_QUALITY_KINDS


def figure_flag(kind: str, flag: str = "") -> str:
    """The confidence flag of a figure of ``kind``: LOW when its sources are all low quality,
    else the flag it was recorded with."""
    return LOW_FLAG if is_low_quality(kind) else flag


def plain_text(text: str | None) -> str:
    """A source field as a reader sees it: the documents without their kind tags."""
    return "\n".join(line for _, line in source_lines(text))
