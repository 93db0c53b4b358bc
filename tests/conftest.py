"""Suite-wide test settings.

Tests run in production mode (DJANGO_DEBUG unset), except that brief generation runs
immediately instead of through the database worker (tests of the worker switch it back), and
static files are named plainly, without the collected manifest that production serves from
(tests of the production start run collectstatic themselves). The test client and the live
server speak plain HTTP, so the redirect to HTTPS is off here (the security tests check it on,
and run `check --deploy` with the production environment in a subprocess).
"""

import pytest
from django.conf import settings as django_settings

IMMEDIATE_TASKS = {
    "default": {
        "BACKEND": "django.tasks.backends.immediate.ImmediateBackend",
        "QUEUES": ["default"],
    }
}


@pytest.fixture(autouse=True)
def immediate_tasks(settings):
    settings.TASKS = IMMEDIATE_TASKS


PLAIN_STATIC_FILES = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    settings.STORAGES = {**settings.STORAGES, "staticfiles": PLAIN_STATIC_FILES}


@pytest.fixture(scope="session", autouse=True)
def plain_http():
    """Session-wide (before the session's live server loads its middleware): no HTTPS redirect."""
    django_settings.SECURE_SSL_REDIRECT = False


@pytest.fixture(autouse=True)
def no_verify_rate_limit(settings):
    """Tests post to the verify page freely; tests of the per-client limit switch it back on."""
    settings.VERIFY_RATE_LIMIT = ""
