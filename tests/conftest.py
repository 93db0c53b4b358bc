"""Suite-wide test settings.

Tests run in production mode (DJANGO_DEBUG unset), except that brief generation runs
immediately instead of through the database worker; tests of the worker switch it back.
"""

import os

os.environ.setdefault("ADVISOR_TASKS_BACKEND", "immediate")
