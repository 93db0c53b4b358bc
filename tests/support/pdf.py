"""A PDF's text as poppler's pdftotext reads it, for the tests that read what a brief or a
specification prints; and a stored brief's bytes."""

import shutil
import subprocess
from pathlib import Path


def pdf_bytes(brief) -> bytes:
    """The PDF a brief's generation stored."""
    return stored_bytes(brief.pdf)


def stored_bytes(stored) -> bytes:
    """The bytes of a stored file (a ``FileField``'s file)."""
    with stored.open("rb") as handle:
        return handle.read()


def pdf_text(pdf, tmp_path=None, *, first=None, last=None, layout=False, name="brief.pdf"):
    """pdftotext of ``pdf``: bytes (written to ``tmp_path/name``, where pdffonts can read it
    too), a path, or a stored file (a brief's ``pdf`` field). ``first``/``last`` limit the pages;
    ``layout`` keeps the columns (cost rows read across). Pages end at form feeds."""
    assert shutil.which("pdftotext"), "poppler-utils is missing: scripts/setup --test installs it"
    path = _path_of(pdf, tmp_path, name)
    pages = [*(["-f", str(first)] if first else []), *(["-l", str(last)] if last else [])]
    command = ["pdftotext", *(["-layout"] if layout else []), *pages, str(path), "-"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def _path_of(pdf, tmp_path, name) -> Path:
    if isinstance(pdf, (str, Path)):
        return Path(pdf)
    if not isinstance(pdf, bytes):  # a stored file
        pdf = stored_bytes(pdf)
    path = tmp_path / name
    path.write_bytes(pdf)
    return path
