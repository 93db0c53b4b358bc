"""Work a web process does once, before it serves anyone (docs/decisions/0034-warm-web-start.md).

A fresh process pays about a second of CPU on its first request: the URL configuration imports
every view and the domain; WeasyPrint and pyHanko are imported where they are first used
(decision 0037: a management command's system checks import the URL configuration, and need
neither); each template is compiled on its first use and each language's catalog read on its
first activation. ``warm_up`` does all of it at start. gunicorn runs it once, in the master
process (``--preload``), so every worker, also one started again after ``--max-requests``, is
forked warm and shares those pages of memory.

It touches no database: a connection opened here would be shared by the forked workers.
"""

from __future__ import annotations

import gc
from importlib import import_module
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import connections
from django.template import engines
from django.template.loader import get_template
from django.urls import get_resolver
from django.utils import translation

# What the brief pages, the verify page and the questionnaire letter import on first use.
PDF_LIBRARIES = (
    "weasyprint",
    "pyhanko.keys",
    "pyhanko.pdf_utils.font.opentype",  # the approval signature's visible stamp (decision 0118)
    "pyhanko.config.pkcs11",  # a signing key on a PKCS#11 token (decision 0137)
    "pyhanko.sign.pkcs11",
    "pyhanko.sign.signers.csc_signer",  # approvers' keys at a signing service (0150)
    "pyhanko.pdf_utils.incremental_writer",
    "pyhanko.pdf_utils.reader",
    "pyhanko.sign",
    "pyhanko.sign.validation",
    "pyhanko_certvalidator",
    # the verify page's child process is forked from the worker with these already imported
    "advisor.brief.verify_child",
)


def project_templates() -> list[str]:
    """Names of the project's own templates (settings ``DIRS`` and the advisor apps')."""
    own_apps = [c for c in apps.get_app_configs() if c.name.split(".")[0] == "advisor"]
    roots = [Path(d) for d in engines["django"].dirs]
    roots += [Path(c.path) / "templates" for c in own_apps]
    return sorted(
        {
            path.relative_to(root).as_posix()
            for root in roots
            if root.is_dir()
            for path in root.rglob("*")
            if path.is_file() and path.suffix in {".html", ".txt", ".xml"}
        }
    )


def warm_up() -> dict[str, int]:
    """Import the views and the PDF libraries, compile the templates, read the catalogs;
    returns what it did."""
    patterns = get_resolver().url_patterns
    for name in PDF_LIBRARIES:
        import_module(name)
    templates = project_templates()
    for name in templates:
        get_template(name)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Procurement advisor")
    connections.close_all()
    return {
        "url patterns": len(patterns),
        "libraries": len(PDF_LIBRARIES),
        "templates": len(templates),
        "languages": len(settings.LANGUAGES),
    }


def freeze_what_start_made() -> int:
    """Move every object made so far (modules, compiled templates, catalogs, the PDF libraries)
    out of the garbage collector's reach; returns how many (docs/decisions/0078).

    They live as long as the process, yet each full collection walked them all again (~200,000
    objects: a full collection cost ~140 ms of CPU, one every few dozen first views). Frozen in
    gunicorn's master before it forks, they are also never written by a worker's collector, so
    their memory pages stay shared between the workers (the Python documentation's advice for
    a process that forks without exec, ``gc.freeze``).
    """
    gc.collect()  # what start left as garbage is freed first, not kept for ever
    gc.freeze()
    return gc.get_freeze_count()
