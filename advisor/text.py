"""User text made safe to store, search and print: no NUL bytes, no bidirectional controls.

A NUL byte cannot be stored or searched in PostgreSQL text (a 500 where it reached a query),
and bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C) in a room or model name
reorder the system's own text around it, in pages and in the signed PDF. Both are removed
from what people type (forms, search). Where a name someone typed is printed beside the
system's text (the brief PDF), it is also wrapped in Unicode isolates (FSI ... PDI), so that
right-to-left letters in it stay inside it.
"""

from __future__ import annotations

import re

from django import forms

_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FSI, PDI = "\u2068", "\u2069"


def clean_text(value):
    """``value`` without NUL, other C0 controls (tab and line breaks kept) and bidi controls."""
    if not isinstance(value, str):
        return value
    return _UNSAFE.sub("", value)


def isolate(value) -> str:
    """A name someone typed, cleaned and isolated from the text around it (FSI ... PDI)."""
    text = clean_text("" if value is None else str(value))
    return f"{FSI}{text}{PDI}" if text else ""


class UserTextField(forms.CharField):
    """A CharField whose value has NUL bytes and bidi controls removed before validation."""

    def to_python(self, value):
        return super().to_python(clean_text(value))
