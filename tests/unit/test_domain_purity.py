"""The domain core must stay pure Python: no Django, no database, no settings."""

import ast
from pathlib import Path

import pytest

DOMAIN = Path(__file__).resolve().parents[2] / "advisor" / "domain"
FORBIDDEN_ROOTS = {"django", "vendors", "simple_history", "import_export", "django_htmx"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
            if node.module.startswith("advisor.") and not node.module.startswith("advisor.domain"):
                roots.add("advisor-outside-domain")
    return roots


DOMAIN_FILES = sorted(DOMAIN.rglob("*.py"))


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: str(p.relative_to(DOMAIN)))
def test_domain_module_imports_nothing_from_django(path):
    bad = imported_roots(path) & (FORBIDDEN_ROOTS | {"advisor-outside-domain"})
    assert not bad, f"{path} imports {sorted(bad)}"


def test_checker_catches_a_django_import(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("from django.db import models\nimport advisor.views\n")
    assert "django" in imported_roots(sample)
