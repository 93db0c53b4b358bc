"""A web process is warm before its first request (advisor/warmup.py, decision 0034)."""

import json
import re
import subprocess

from django.test import Client

from advisor.warmup import project_templates, warm_up
from tests.support.servers import PYTHON, ROOT, production_env

PROBE = """
import gc, json, sys
import config.wsgi
lazy = json.loads(sys.argv[1])
print(json.dumps({"views": "advisor.brief.views" in sys.modules,
                  "not loaded": [m for m in lazy if m not in sys.modules],
                  "frozen": gc.get_freeze_count(), "left": len(gc.get_objects())}))
"""
# A WeasyPrint or pyHanko import inside a function (decision 0037).
LAZY_IMPORT = re.compile(
    r"^[ \t]+(?:from[ \t]+((?:weasyprint|pyhanko)[\w.]*)[ \t]+import|import[ \t]+((?:weasyprint|pyhanko)[\w.]*))",
    re.MULTILINE,
)


def lazily_imported() -> list[str]:
    """Every module the product imports where it first uses WeasyPrint or pyHanko."""
    found = set()
    for path in (ROOT / "advisor").rglob("*.py"):
        for match in LAZY_IMPORT.finditer(path.read_text(encoding="utf-8")):
            found.add(match.group(1) or match.group(2))
    return sorted(found)


def test_every_project_template_compiles_and_no_database_is_touched():
    # No database marker: pytest-django refuses any query, so warm-up making one fails here.
    done = warm_up()
    names = project_templates()
    assert done["templates"] == len(names) > 40
    assert "base.html" in names and "wizard/step_base.html" in names
    assert done["languages"] == 2


def test_loading_the_wsgi_application_imports_the_views_without_a_database(tmp_path):
    database = tmp_path / "never.sqlite3"
    env = production_env(tmp_path, f"sqlite:///{database}")
    lazy = lazily_imported()
    assert "weasyprint" in lazy and "pyhanko.sign" in lazy
    result = subprocess.run(
        [str(PYTHON), "-c", PROBE, json.dumps(lazy)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    # The views, and every library a brief, a signature or a verification loads on first use.
    loaded = json.loads(result.stdout)
    assert {k: loaded[k] for k in ("views", "not loaded")} == {"views": True, "not loaded": []}
    # What start made is out of the collector's reach (decision 0078): ~200,000 objects that
    # full collections no longer walk, and forked workers no longer write to.
    assert loaded["frozen"] > 100_000 and loaded["left"] < loaded["frozen"] / 20
    assert not database.exists()  # no connection was opened before the fork


def test_the_production_web_start_forks_workers_from_a_warmed_master():
    script = (ROOT / "scripts" / "serve-production").read_text()
    web = script.split("web() {", 1)[1].split("\n}", 1)[0]
    assert "config.wsgi:application" in web and "--preload" in web
    assert '--threads "${GUNICORN_THREADS:-1}"' in web  # sync workers unless an operator asks


def test_pages_render_after_warm_up(db):
    warm_up()
    assert Client().get("/accounts/login/", secure=True).status_code == 200
