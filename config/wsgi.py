import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Views imported, templates compiled, catalogs read before the first request; with gunicorn's
# --preload once, in the master, for every worker it forks (advisor/warmup.py).
from advisor.warmup import freeze_what_start_made, warm_up  # noqa: E402

warm_up()
freeze_what_start_made()
