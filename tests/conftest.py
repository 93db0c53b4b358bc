"""Suite-wide test settings.

Tests run in production mode (DJANGO_DEBUG unset), except that brief generation runs
immediately instead of through the database worker; tests of the worker switch it back.
"""

import pytest

IMMEDIATE_TASKS = {
    "default": {
        "BACKEND": "django.tasks.backends.immediate.ImmediateBackend",
        "QUEUES": ["default"],
    }
}


@pytest.fixture(autouse=True)
def immediate_tasks(settings):
    settings.TASKS = IMMEDIATE_TASKS
