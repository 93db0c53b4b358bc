"""Catalog free text (notes, sellers, sources) in a Chinese document (docs/catalog.md).

The catalog records its notes and sources in English, as their originals are cited. A Chinese
page shows a note in Chinese where the translation memory ``vendors/locale/zh_Hans/
catalog_text.json`` (``{"English as recorded": "中文"}``) has it; a note or source the memory
lacks, written mostly in Latin letters, is shown as what it is, the English original, labelled
so ("英文原文："), never passed off as Chinese. A source line's kind tag ("[vendor]") is worded
in the reader's language. A Chinese original keeps its own title.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.utils.translation import get_language, gettext

from advisor.presentation.labels import SOURCE_KIND_LABELS

MEMORY = Path(settings.BASE_DIR) / "vendors" / "locale" / "zh_Hans" / "catalog_text.json"
_KIND_TAG = re.compile(r"^\[(?P<kind>[a-z]+)\]\s*")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[A-Za-z]{2,}")
_URL = re.compile(r"https?://[\x21-\x7e]+")
_TITLE_END = re.compile(r"\. |, | \(")


@lru_cache(maxsize=1)
def memory() -> dict[str, str]:
    """The translation memory: the catalog's English text → its Chinese."""
    with MEMORY.open(encoding="utf-8") as handle:
        return json.load(handle)


def reads_chinese() -> bool:
    return (get_language() or "").lower().startswith("zh")


def translated(text: str) -> str:
    """``text`` in the reader's language where the memory has it (a Chinese reader)."""
    if not text or not reads_chinese():
        return text
    return memory().get(" ".join(text.split()), text)


def mostly_latin(text: str) -> bool:
    """Whether ``text`` is English prose: mostly Latin letters (a Han character counts three) in
    three words or more. A name or a code ("HBM3", "Hopper", "AutoDL") is not."""
    text = _URL.sub(" ", text)  # an address is no prose
    latin = len(_LATIN.findall(text))
    return latin > 3 * len(_HAN.findall(text)) and len(_WORD.findall(text)) >= 3


def catalog_text(text: str) -> tuple[str, str, bool]:
    """``(kind label, text, is the English original)`` of a catalog note or source line as the
    reader reads it. On a Chinese page: translated where the memory has it, else an English
    original is flagged to be labelled, and a source line's "[vendor]" tag is worded; on an
    English page, as recorded."""
    text = str(text or "")
    if not reads_chinese():  # the catalog's own language: as recorded
        return "", text, False
    tag = _KIND_TAG.match(text)
    if not (tag and tag.group("kind") in SOURCE_KIND_LABELS):  # a note
        text = translated(text)
        return "", text, mostly_latin(text)
    # A source line, "[kind] Title (what it says). Issuer, date. URL": judged by its title.
    kind = gettext(SOURCE_KIND_LABELS[tag.group("kind")])
    text = translated(text[tag.end() :])
    title = _TITLE_END.split(text, 1)[0]
    return kind, text, not _HAN.search(title) and mostly_latin(text)
