"""The advisor's settings, one module per concern; every value comes from the environment.

The variables, their defaults and what they change are documented once, in the README's
configuration tables; each module's comments say why a value is what it is.

- ``environment``: folders, debug or production, secret key, host names
- ``application``: apps, middleware, logging, templates, database, passwords, languages,
  static files, task queue, demo users
- ``briefs``: the signer, the site address, approval, brief workers, the verify page's limits
- ``serving``: static and stored files, cache, database connections, upload sizes
- ``security``: HTTPS, headers, Content Security Policy, sessions, sign-in throttling
"""

from config.settings.application import *  # noqa: F403
from config.settings.briefs import *  # noqa: F403
from config.settings.environment import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.serving import *  # noqa: F403
