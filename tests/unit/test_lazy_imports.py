"""No import inside a function dodges a cycle: the one-way structure holds in plain sight.

The only imports allowed inside a function are the PDF and signing libraries, loaded on first
use (docs/decisions/0037-pdf-libraries-on-first-use.md; python-docx too, decision 0046;
XlsxWriter, decision 0116; the SAML pages, decision 0054), and an app's ``ready()`` loading its
signal receivers (Django's way). Anything else belongs at the top of its module; where that
would make a cycle, the code is in the wrong layer (docs/decisions/0041).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ON_FIRST_USE = (
    "weasyprint",
    "pyhanko",
    "pyhanko_certvalidator",
    "cryptography",
    "asn1crypto",  # pyHanko's ASN.1 library (a PKCS#12's declared rounds, decision 0120)
    "docx",
    "xlsxwriter",
    "aiohttp",  # pyHanko's HTTP client, for an approver's remote signing service (decision 0150)
)
# Our modules whose only job is to load pyHanko (cryptography) before the verify (credential)
# child forks (decisions 0019, 0120).
LOADS_THE_PDF_LIBRARIES = ("advisor.brief.verify_child", "advisor.brief.credential_child")
# python3-saml and xmlsec, behind allauth's SAML pages: most sites never turn SAML on (0054).
SAML_ON_FIRST_USE = (
    "allauth.socialaccount.providers.saml",
    "onelogin.saml2.xmlparser",
    "lxml.etree",
)


def lazy_imports(source: str) -> list[tuple[str, int, str]]:
    """``(function, line, module)`` for every import inside a function of ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom):
                found.append((node.name, inner.lineno, inner.module or ""))
            elif isinstance(inner, ast.Import):
                found += [(node.name, inner.lineno, alias.name) for alias in inner.names]
    return found


def allowed(function: str, module: str) -> bool:
    return (
        module.split(".")[0] in ON_FIRST_USE
        or module in LOADS_THE_PDF_LIBRARIES
        or module in SAML_ON_FIRST_USE
        or function == "ready"
    )


def product_modules():
    for package in ("advisor", "vendors"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


@pytest.mark.parametrize("path", list(product_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_inside_functions_are_only_the_pdf_libraries(path):
    bad = [
        f"{path.relative_to(ROOT)}:{line} {function}() imports {module}"
        for function, line, module in lazy_imports(path.read_text(encoding="utf-8"))
        if not allowed(function, module)
    ]
    assert not bad, bad


def test_the_check_finds_a_cycle_dodged_inside_a_function():
    source = (
        "def view():\n    from advisor.results.services import shown\n"
        "def render():\n    import weasyprint\n"
        "class App:\n    def ready(self):\n        from advisor import signals\n"
    )
    found = [(f, m) for f, _, m in lazy_imports(source) if not allowed(f, m)]
    assert found == [("view", "advisor.results.services")]
