"""Crafted PDFs that attack the public verify page (issue 33), for its tests and bench.

Each is a well-formed PDF 1.5 file whose weight sits where a byte scan does not see it: form
field dictionaries packed into FlateDecode object streams behind a cross-reference stream, an
object stream whose ``/N`` hides behind a padding key, a ``/Kids`` chain thousands deep, and
thousands of signature dictionaries with contents to check. The benches' own module (a bench
never imports from ``tests/``); ``tests/`` loads it with ``tests.support.bench.load_bench``.
"""

from __future__ import annotations

import struct
import zlib

OBJECTS_PER_STREAM = 100


class _Pdf:
    """A minimal writer: direct objects, object streams, and one cross-reference stream."""

    def __init__(self) -> None:
        self.objects: dict[int, bytes] = {}  # number -> body, written as a top-level object
        self.packed: dict[int, bytes] = {}  # number -> body, packed into object streams
        self.next_number = 1

    def number(self) -> int:
        self.next_number += 1
        return self.next_number - 1

    def add(self, body: bytes, *, packed: bool = False) -> int:
        number = self.number()
        (self.packed if packed else self.objects)[number] = body
        return number

    def build(self, root: int, *, padding: int = 0) -> bytes:
        out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
        entries: dict[int, tuple[int, int, int]] = {}
        for number, body in self.objects.items():
            entries[number] = (1, len(out), 0)
            out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
        packed = list(self.packed.items())
        for start in range(0, len(packed), OBJECTS_PER_STREAM):
            chunk = packed[start : start + OBJECTS_PER_STREAM]
            stream_number = self.number()
            header, bodies = bytearray(), bytearray()
            for index, (number, body) in enumerate(chunk):
                header += b"%d %d " % (number, len(bodies))
                bodies += body + b"\n"
                entries[number] = (2, stream_number, index)
            data = zlib.compress(bytes(header) + bytes(bodies))
            # The padding key comes before /N, so that a scan of the raw dictionary with a
            # bounded look-ahead misses the count.
            pad = b"/Pad (%s) " % (b"x" * padding) if padding else b""
            entries[stream_number] = (1, len(out), 0)
            out += (
                b"%d 0 obj\n<< /Type /ObjStm %s/N %d /First %d /Filter /FlateDecode "
                b"/Length %d >>\nstream\n"
                % (stream_number, pad, len(chunk), len(header), len(data))
            )
            out += data + b"\nendstream\nendobj\n"
        xref_number = self.number()
        entries[xref_number] = (1, len(out), 0)
        size = xref_number + 1
        rows = bytearray(b"\x00\x00\x00\x00\xff\xff")  # object 0: free
        for number in range(1, size):
            kind, field2, field3 = entries.get(number, (0, 0, 0))
            rows += struct.pack(">BIB", kind, field2, field3)
        data = zlib.compress(bytes(rows))
        out += (
            b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 1] /Root %d 0 R /Filter /FlateDecode "
            b"/Length %d >>\nstream\n" % (xref_number, size, root, len(data))
        )
        out += data + b"\nendstream\nendobj\n"
        out += b"startxref\n%d\n%%%%EOF\n" % entries[xref_number][1]
        return bytes(out)


def _reserved() -> _Pdf:
    """A document whose page (1) and page tree (2) come first; fields are added after."""
    pdf = _Pdf()
    pdf.objects[1] = b"<< /Type /Page /MediaBox [0 0 595 842] /Parent 2 0 R >>"
    pdf.objects[2] = b"<< /Type /Pages /Kids [1 0 R] /Count 1 >>"
    pdf.next_number = 3
    return pdf


def _finish(pdf: _Pdf, fields: list[int], **build) -> bytes:
    refs = b" ".join(b"%d 0 R" % f for f in fields)
    acroform = pdf.add(b"<< /Fields [%s] /SigFlags 3 >>" % refs)
    root = pdf.add(b"<< /Type /Catalog /Pages 2 0 R /AcroForm %d 0 R >>" % acroform)
    return pdf.build(root, **build)


def fields_in_object_streams(count: int = 5_000) -> bytes:
    """``count`` empty signature fields ``<</FT/Sig/T(sN)>>``, all inside object streams."""
    pdf = _reserved()
    fields = [pdf.add(b"<</FT/Sig/T(s%d)>>" % i, packed=True) for i in range(count)]
    return _finish(pdf, fields)


def hidden_object_count(count: int = 20_000) -> bytes:
    """As above, each object stream's ``/N`` behind a 300-byte padding key."""
    pdf = _reserved()
    fields = [pdf.add(b"<</FT/Sig/T(s%d)>>" % i, packed=True) for i in range(count)]
    return _finish(pdf, fields, padding=300)


def deep_kids(depth: int = 5_000) -> bytes:
    """One field whose ``/Kids`` chain is ``depth`` fields deep (each in an object stream)."""
    pdf = _reserved()
    numbers = [pdf.number() for _ in range(depth)]
    for level, number in enumerate(numbers):
        kids = b"/Kids [%d 0 R] " % numbers[level + 1] if level + 1 < depth else b"/FT /Sig "
        parent = b"/Parent %d 0 R " % numbers[level - 1] if level else b""
        pdf.packed[number] = b"<< %s%s/T (k%d) >>" % (kids, parent, level)
    return _finish(pdf, [numbers[0]])


def signature_contents(signed_pdf: bytes) -> bytes:
    """The hex ``/Contents`` of the last signature in ``signed_pdf`` (a real CMS object)."""
    at = signed_pdf.rindex(b"/Contents")
    start = signed_pdf.index(b"<", at)
    return signed_pdf[start : signed_pdf.index(b">", start) + 1]


def many_signatures(count: int = 3_000, contents: bytes | None = None) -> bytes:
    """``count`` signature fields, each with a signature dictionary and bytes to check:
    ``contents`` (hex, e.g. :func:`signature_contents` of a real signed PDF) or, without it, a
    DER header that promises more than it holds."""
    pdf = _reserved()
    fields = []
    contents = contents or b"<" + b"30" * 512 + b">"
    for i in range(count):
        sig = pdf.add(
            b"<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached "
            b"/ByteRange [0 100 200 100] /Contents %s >>" % contents,
            packed=True,
        )
        fields.append(pdf.add(b"<< /FT /Sig /T (s%d) /V %d 0 R >>" % (i, sig), packed=True))
    return _finish(pdf, fields)


HOSTILE = {
    "fields-in-object-streams": fields_in_object_streams,
    "hidden-object-count": hidden_object_count,
    "deep-kids": deep_kids,
    "many-signatures": many_signatures,
}
