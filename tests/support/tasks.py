"""Task settings for tests: tasks run at once, in the caller (the suite's default,
tests/conftest.py ``immediate_tasks``; the shared briefs use it too)."""

IMMEDIATE_TASKS = {
    "default": {
        "BACKEND": "django.tasks.backends.immediate.ImmediateBackend",
        "QUEUES": ["default", "webhooks"],
    }
}
