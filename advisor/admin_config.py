"""Django's admin, with its ``admin.py`` modules imported with the URL configuration.

docs/decisions/0038-admin-modules-with-the-urls.md: the catalog admin pulls in
django-import-export, which loads openpyxl, PyYAML and psycopg when imported (~0.35 s of CPU).
A command that serves no page (``shell``, ``createcachetable``, ``collectstatic``, the shell
calls of scripts/backup and scripts/restore) does not need it. ``config/urls.py`` imports the
admin modules, and so does the admin system check, so ``manage.py check`` still checks every
registered ModelAdmin.

Its own module: Django picks an app's configuration from its ``apps`` module only when that
holds one ``AppConfig`` (or one marked ``default``).
"""

from django.contrib import admin
from django.contrib.admin.apps import SimpleAdminConfig
from django.contrib.admin.checks import check_admin_app, check_dependencies
from django.core import checks


class AdminConfig(SimpleAdminConfig):
    """``django.contrib.admin`` without the import of every ``admin.py`` at start-up."""

    def ready(self):
        checks.register(check_dependencies, checks.Tags.admin)
        checks.register(check_admin_modules, checks.Tags.admin)


def check_admin_modules(app_configs=None, **kwargs):
    """The admin's check of every registered ModelAdmin, after registering them (checks run in
    no set order, so this one cannot count on the URL check having imported them)."""
    admin.autodiscover()
    return check_admin_app(app_configs, **kwargs)
