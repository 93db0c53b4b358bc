"""What a Django start loads (decisions 0037 and 0038): commands that serve no page or render no
PDF do not pay for WeasyPrint, pyHanko or the admin's import/export libraries."""

import json
import subprocess

from django.contrib import admin

from advisor.admin_config import check_admin_modules
from tests.support.servers import PYTHON, ROOT, production_env

PROBE = """
import json, os, sys
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
loaded = lambda: sorted(m for m in {WATCHED} if m in sys.modules)
started = loaded()
if {URLS}:
    from django.urls import get_resolver
    get_resolver().url_patterns
from django.contrib import admin
print(json.dumps({{"started": started, "after": loaded(), "admin models": len(admin.site._registry)}}))
"""
WATCHED = ("weasyprint", "pyhanko.sign", "import_export.admin", "openpyxl")


def probe(tmp_path, urls: bool) -> dict:
    env = production_env(tmp_path, f"sqlite:///{tmp_path / 'never.sqlite3'}")
    code = PROBE.format(WATCHED=WATCHED, URLS=urls)
    result = subprocess.run(
        [str(PYTHON), "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_a_django_start_loads_no_pdf_or_spreadsheet_library_and_no_admin_module(tmp_path):
    loaded = probe(tmp_path, urls=False)
    assert loaded == {"started": [], "after": [], "admin models": 0}


def test_the_url_configuration_registers_the_admin_but_loads_no_pdf_library(tmp_path):
    loaded = probe(tmp_path, urls=True)
    assert loaded["after"] == ["import_export.admin", "openpyxl"]
    assert loaded["admin models"] > 10


def test_the_admin_check_registers_and_checks_every_model_admin():
    assert check_admin_modules() == []
    registered = {model._meta.label_lower for model in admin.site._registry}
    assert {"vendors.accelerator", "vendors.datacenter", "brief.brief"} <= registered
