"""Vendor questionnaire: export (XLSX, PDF), upload, preview and apply the vendor's answers.

The pure part (which facts to ask, checking answers, the ``declared`` section) is in
``advisor/domain/questionnaire``; this package reads the catalog, writes and reads files.
"""
