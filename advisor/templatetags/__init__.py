"""Template tags of the advisor app (``{% load money %}`` for CNY amounts)."""
