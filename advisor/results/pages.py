"""The results page's words, rendered once per stored result and kept (docs/decisions/0051).

Below its heading the results page shows only what the stored recommendation, the reader's
language and the view asked for (ranking, sort, all choices or the best of each) decide: it holds
nothing of the request (no form token, no user). That part is rendered once and kept in the
cache under a key made of those, so a buyer coming back to the page, or another worker serving
them, neither decodes the stored options nor renders the table again. A new stored result (the
answers, own figures or catalog changed and the options were computed again) has a new token,
hence a new key; the code stamp changes with any template, translation or code of this
deployment, so what an earlier release rendered is never served.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

CACHE_SECONDS = 7 * 24 * 3600
# What the kept words are made from: templates, translations and the code that words values.
_WORDING_ROOTS = ("templates", "locale", "advisor", "vendors")
_WORDING_SUFFIXES = (".html", ".mo", ".py")
_code_stamp: str | None = None


def code_stamp() -> str:
    """A digest of the name, size and time of every template, translation and source file of
    this deployment; made once per process."""
    global _code_stamp
    if _code_stamp is None:
        digest = hashlib.sha256()
        base = Path(settings.BASE_DIR)
        for root in _WORDING_ROOTS:
            for folder, dirs, files in os.walk(base / root):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(_WORDING_SUFFIXES):
                        status = os.stat(os.path.join(folder, name))
                        digest.update(
                            f"{folder}/{name}:{status.st_size}:{status.st_mtime_ns};".encode()
                        )
        _code_stamp = digest.hexdigest()[:16]
    return _code_stamp


def cached_body(request, shown, view: dict, context) -> SafeString:
    """The results page below its heading for ``shown`` as ``view`` asks (ranking, sort, all
    choices), in the active language: from the cache, or rendered from ``context()`` and cached."""
    parts = [code_stamp(), str(shown.stored.token), get_language() or ""]
    parts += [f"{name}={view[name]}" for name in sorted(view)]
    key = "results-body:" + hashlib.sha256("|".join(parts).encode()).hexdigest()
    body = None if shown.computed else cache.get(key)  # a new result: nothing kept yet
    if body is None:
        body = str(render_to_string("results/results_body.html", context(), request=request))
        cache.set(key, body, CACHE_SECONDS)
    return mark_safe(body)  # rendered by us, with autoescaping, from the stored result
