"""The domain core: sizing, compliance and economics in pure Python.

Nothing in this package may import Django (tests/unit/test_domain_purity.py enforces it).
User-facing strings are marked with :func:`advisor.domain.i18n.N_` so that
``makemessages`` extracts them; the presentation layer translates them at render time.
"""
