"""Compliance service: site, hosting-vendor and hardware rules, each with its citation.

Entry points: :func:`advisor.domain.compliance.engine.evaluate` (one option's findings and
verdict) and :func:`advisor.domain.compliance.comparison.compare_vendors` (the V4 table).
See docs/compliance.md and docs/decisions/0006-compliance-rules.md.
"""
