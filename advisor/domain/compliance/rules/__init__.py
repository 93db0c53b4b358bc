"""Compliance rules by area; each module exposes ``RULES``."""
