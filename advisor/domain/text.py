"""Text made safe to store and print (pure Python; advisor.text adds the form field).

NUL bytes cannot be stored or searched in PostgreSQL text, and bidirectional controls
(U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C) in a name or a vendor's evidence reorder the
system's own text around it, in pages and in the signed PDF ("Quote no. dilav 54321-CBA").
Both, and the other C0 controls except tab and line breaks, are removed from every text that is
stored: what people type, what vendors answer, what the catalog holds.
"""

from __future__ import annotations

import re

UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean_text(value):
    """``value`` without NUL, other C0 controls (tab and line breaks kept) and bidi controls;
    anything but text unchanged."""
    if not isinstance(value, str):
        return value
    return UNSAFE.sub("", value)


def clean_json(value):
    """Every text (keys too) in a JSON value, cleaned; the value itself when nothing changes."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_json(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(key): clean_json(item) for key, item in value.items()}
    return value
