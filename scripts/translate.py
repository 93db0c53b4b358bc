"""Fill Simplified Chinese translations into a .po file from a JSON mapping.

Usage: .venv/bin/python scripts/translate.py PO_FILE MAPPING.json
The mapping is {"English msgid": "中文"}; entries whose msgid is in the mapping get the
translation (the single Chinese form for plural entries) and lose the fuzzy flag. Prints
the msgids still untranslated.
"""

import json
import sys

import polib


def main(po_path: str, mapping_path: str) -> int:
    po = polib.pofile(po_path)
    with open(mapping_path, encoding="utf-8") as handle:
        mapping = json.load(handle)
    for entry in po:
        if entry.msgid in mapping:
            if entry.msgid_plural:  # Chinese has one plural form (nplurals=1)
                entry.msgstr_plural = {0: mapping[entry.msgid]}
            else:
                entry.msgstr = mapping[entry.msgid]
            if "fuzzy" in entry.flags:
                entry.flags.remove("fuzzy")
    po.save()
    missing = [
        e.msgid
        for e in po
        if not e.obsolete
        and ((not e.msgstr and not any(e.msgstr_plural.values())) or "fuzzy" in e.flags)
    ]
    for msgid in missing:
        print(f"untranslated: {msgid!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
