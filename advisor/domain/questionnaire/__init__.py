"""Vendor due diligence: the facts each compliance rule needs, asked of the vendor.

``specs`` declares, per rule, the catalog facts that settle it (type, range, unit and the
question's wording); ``questions`` turns an option's unknown or stale findings into
questionnaire rows; ``answers`` parses and validates the vendor's answers into a
``declared`` section; ``declared`` validates that section and lays it over the catalog.
Pure Python (docs/decisions/0023-questionnaire-vendor-answers.md).
"""
