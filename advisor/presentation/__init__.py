"""What people read: the words for codes, names, numbers and units, rendered messages, charts.

Pages (through thin template tags), PDF briefs and command-line tools all use this package, so
a code reads the same everywhere. It depends only on the domain and Django (translation,
formatting; the form renderer, :mod:`advisor.presentation.widgets`, writes form widgets).
"""
