"""Build the brief's own font, Brief Sans: Noto Sans CJK SC cut down to the characters the
product itself prints (docs/decisions/0066-brief-font-subset.md).

Usage: .venv/bin/python scripts/build_brief_fonts.py [NOTO_DIR]

Reads Noto Sans CJK SC Regular and Bold from the Debian package fonts-noto-cjk (source:
https://github.com/notofonts/noto-cjk, SIL Open Font License 1.1) and writes
advisor/brief/fonts/BriefSans-Regular.otf and BriefSans-Bold.otf: the same outlines, metrics
and layout features, renamed (a modified OFL font carries its own name), holding every
character of the translation catalogues, the templates, the Python sources, the catalog
fixtures, and Latin, punctuation and full-width forms. Run it again after adding text in
new characters; a character outside the subset (a name someone typed) still prints, from the
full Noto Sans CJK SC that follows Brief Sans in the brief's font list.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parents[1]
NOTO_DIR = Path("/usr/share/fonts/opentype/noto")
OUTPUT = ROOT / "advisor" / "brief" / "fonts"
FAMILY = "Noto Sans CJK SC"
NEW_FAMILY = "Brief Sans"
# Where the product's own text lives.
TEXT_GLOBS = ("locale/**/*.po", "advisor/**/*.po", "advisor/**/*.html", "advisor/**/*.py")
TEXT_GLOBS += ("advisor/**/*.css", "vendors/**/*.py", "fixtures/**/*.json")
# Always kept: ASCII and Latin-1, general punctuation, super- and subscripts, letterlike
# symbols, arrows, mathematical operators, CJK punctuation, full-width forms.
RANGES = ((0x20, 0x17F), (0x2000, 0x209F), (0x2100, 0x21FF), (0x2200, 0x22FF))
RANGES += ((0x3000, 0x303F), (0xFF00, 0xFFEF))


def product_characters() -> set[int]:
    codes = {code for low, high in RANGES for code in range(low, high + 1)}
    for pattern in TEXT_GLOBS:
        for path in sorted(ROOT.glob(pattern)):
            if ".venv" not in path.parts:
                codes |= {ord(char) for char in path.read_text(encoding="utf-8")}
    return codes


def noto_face(weight: str, noto_dir: Path):
    collection = TTCollection(noto_dir / f"NotoSansCJK-{weight}.ttc")
    for font in collection.fonts:
        if font["name"].getDebugName(1) == FAMILY:
            return font
    raise SystemExit(f"{FAMILY} not in {noto_dir}/NotoSansCJK-{weight}.ttc")


def renamed(font, weight: str):
    """The family and full names say Brief Sans; the copyright and licence records stay."""
    names = {1: NEW_FAMILY, 3: f"{NEW_FAMILY} {weight}", 4: f"{NEW_FAMILY} {weight}"}
    names |= {6: f"BriefSans-{weight}", 16: NEW_FAMILY, 17: weight}
    for record in font["name"].names:
        if record.nameID in names:
            record.string = names[record.nameID]
    font["CFF "].cff.fontNames = [f"BriefSans-{weight}"]
    return font


def build(weight: str, codes: set[int], noto_dir: Path) -> Path:
    font = noto_face(weight, noto_dir)
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.hinting = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codes))
    subsetter.subset(font)
    path = OUTPUT / f"BriefSans-{weight}.otf"
    renamed(font, weight).save(path)
    return path


def main() -> None:
    noto_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else NOTO_DIR
    codes = product_characters()
    OUTPUT.mkdir(exist_ok=True)
    for weight in ("Regular", "Bold"):
        path = build(weight, codes, noto_dir)
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
