"""Simplified Chinese translations are complete and keep every placeholder."""

import re
import shutil
import subprocess
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parents[2]
PO_FILES = sorted(
    p
    for p in ROOT.rglob("zh_Hans/LC_MESSAGES/django.po")
    if not {".venv", "var"} & set(p.relative_to(ROOT).parts)
)
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w*\}|%[sd]")


def test_there_is_a_chinese_catalogue():
    assert PO_FILES, "no zh_Hans catalogue found"


@pytest.mark.parametrize("po_path", PO_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_catalogue_is_complete(po_path):
    po = polib.pofile(str(po_path))
    missing = [
        e.msgid
        for e in po
        if not e.obsolete
        and not (e.msgstr_plural and all(e.msgstr_plural.values()) if e.msgid_plural else e.msgstr)
    ]
    fuzzy = [e.msgid for e in po if "fuzzy" in e.flags and not e.obsolete]
    assert not missing, f"untranslated in {po_path}: {missing[:10]}"
    assert not fuzzy, f"fuzzy in {po_path}: {fuzzy[:10]}"


@pytest.mark.parametrize("po_path", PO_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_translations_keep_placeholders(po_path):
    po = polib.pofile(str(po_path))
    for entry in po:
        if entry.obsolete:
            continue
        if entry.msgid_plural:  # Chinese has one form: it keeps the plural's placeholders
            for form in (entry.msgid, entry.msgid_plural):
                for text in entry.msgstr_plural.values():
                    assert sorted(PLACEHOLDER.findall(form)) == sorted(PLACEHOLDER.findall(text)), (
                        f"placeholders differ for {form!r}"
                    )
            continue
        if not entry.msgstr:
            continue
        assert sorted(PLACEHOLDER.findall(entry.msgid)) == sorted(
            PLACEHOLDER.findall(entry.msgstr)
        ), f"placeholders differ for {entry.msgid!r}"


@pytest.mark.parametrize("po_path", PO_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_catalogue_compiles_cleanly(po_path, tmp_path):
    """msgfmt's format check is what `compilemessages` runs at setup: one bad entry stops setup."""
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "gettext's msgfmt is a runtime package (scripts/setup installs it)"
    result = subprocess.run(
        [msgfmt, "--check-format", "-o", str(tmp_path / "django.mo"), str(po_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_a_message_reads_the_same_in_every_catalogue():
    """Django looks a message up in the project's catalogue (LOCALE_PATHS) before an app's: a
    msgid translated two ways shows the project's words everywhere (an API token's "Scope" once
    renamed the brief memo's 采购范围). A word meant two ways needs a context (pgettext)."""
    first: dict[tuple, tuple] = {}
    clashes = []
    for path in PO_FILES:
        for entry in polib.pofile(str(path)):
            if entry.obsolete:
                continue
            key = (entry.msgctxt, entry.msgid, entry.msgid_plural)
            words = (entry.msgstr, tuple(sorted(entry.msgstr_plural.items())))
            earlier = first.setdefault(key, (path, words))
            if earlier[1] != words:
                clashes.append(f"{entry.msgid!r}: {earlier[0].parent.parent.parent} vs {path}")
    assert not clashes, clashes
