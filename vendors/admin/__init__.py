"""Django admin for the catalog: lists, search, filters, inlines, history, import/export.

Every catalog model uses :class:`CatalogAdmin`: django-simple-history's history view (who,
when, what changed), django-import-export's CSV/XLSX import with a dry-run preview and export,
and read-only audit timestamps. Editing and importing need the model's Django permissions, which
the "catalog admin" group holds (advisor/roles.py).
"""

# Importing the modules registers their ModelAdmins (one module per catalog area).
from vendors.admin import base, hardware, hosting, offers, presets, sites  # noqa: F401
