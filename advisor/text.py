"""User text made safe to store, search and print: no NUL bytes, no bidirectional controls.

A NUL byte cannot be stored or searched in PostgreSQL text (a 500 where it reached a query),
and bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C) in a room or model name
reorder the system's own text around it, in pages and in the signed PDF. Both are removed
from what people type (forms, search) and, at every save, from every text a model of ours
stores (advisor.signals.clean_stored_text: catalog rows from admin and imports, answer sheets,
audit details). Where a name someone typed is printed beside the
system's text (the brief PDF), it is also wrapped in Unicode isolates (FSI ... PDI), so that
right-to-left letters in it stay inside it.
"""

from __future__ import annotations

from django import forms

from advisor.domain.text import clean_json, clean_text

__all__ = ["FSI", "PDI", "UserTextField", "clean_json", "clean_text", "isolate"]

FSI, PDI = "\u2068", "\u2069"


def isolate(value) -> str:
    """A name someone typed, cleaned and isolated from the text around it (FSI ... PDI)."""
    text = clean_text("" if value is None else str(value))
    return f"{FSI}{text}{PDI}" if text else ""


class UserTextField(forms.CharField):
    """A CharField whose value has NUL bytes and bidi controls removed before validation."""

    def to_python(self, value):
        return super().to_python(clean_text(value))
