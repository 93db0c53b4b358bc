"""Office files (XLSX, DOCX) that are the same bytes for the same content.

openpyxl and python-docx stamp each zip entry and the document's properties with the moment of
writing; a document made from a brief's snapshot is then a different file each time, and its
hash in the audit trail proves nothing. :func:`stable_zip` rewrites the package with every
entry dated ``day`` (the snapshot's), in the order written, compressed the same way.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import date, datetime

# The earliest date a zip entry can carry.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
CORE_PROPERTIES = "docProps/core.xml"
# The created and modified stamps of the core properties (openpyxl sets "modified" on save).
_STAMP = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")


def document_moment(day: date | None) -> datetime:
    """The creation time written into a document's properties: midnight of ``day``."""
    if day is None:
        return datetime(*ZIP_EPOCH)
    return datetime(day.year, day.month, day.day)


def stable_zip(data: bytes, day: date | None) -> bytes:
    """``data`` (a zip package) with every entry dated ``day`` and no extra fields, and the
    document's created and modified properties set to ``day``."""
    moment = document_moment(day).timetuple()[:6]
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for entry in source.infolist():
            info = zipfile.ZipInfo(entry.filename, date_time=moment)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            content = source.read(entry.filename)
            if entry.filename == CORE_PROPERTIES:
                stamp = document_moment(day).strftime("%Y-%m-%dT%H:%M:%SZ").encode()
                content = _STAMP.sub(rb"\g<1>" + stamp + rb"\g<2>", content)
            target.writestr(info, content)
    return out.getvalue()
