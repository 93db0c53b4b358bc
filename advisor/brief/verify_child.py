"""What runs in the child process that checks an uploaded PDF (advisor.brief.sandbox).

Imports pyHanko at the top: the parent imports this module before it forks (a warmed web
worker already holds the libraries, decision 0034), and a spawned child imports it before its
limits start counting. Payload: a JSON header line (the trust roots' PEM paths), then the PDF.
Result: one JSON object, ``{"report": ...}`` or ``{"refused": "too-complex", "why": ...}``.
"""

from __future__ import annotations

import json

from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.reader import PdfFileReader  # noqa: F401 - imported before the fork
from pyhanko.sign.validation import validate_pdf_signature  # noqa: F401
from pyhanko_certvalidator import ValidationContext  # noqa: F401

from advisor.brief.verify import TooComplex, report_to_json, verify_pdf

TARGET = "advisor.brief.verify_child:check"


def payload(pdf: bytes, trust_roots: list[str]) -> bytes:
    return json.dumps({"trust_roots": trust_roots}).encode() + b"\n" + pdf


def check(data: bytes) -> bytes:
    header, _, pdf = data.partition(b"\n")
    roots = [load_cert_from_pemder(path) for path in json.loads(header)["trust_roots"]]
    try:
        report = verify_pdf(pdf, roots)
    except TooComplex as error:
        return json.dumps({"refused": "too-complex", "why": str(error)}).encode()
    return json.dumps({"report": report_to_json(report)}).encode()
