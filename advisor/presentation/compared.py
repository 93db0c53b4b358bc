"""How many options a ranking compared and how many it could not, in the active language
("Cheapest of 4 priced options that qualify. 9 more meet the requirements but are unpriced and
could not be compared, among them Atlas 800T A2."): the recommend command's table and the
recommendation's JSON say it alike (docs/decisions/0095)."""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext, ngettext

from advisor.domain.recommend.decision import unpriced_examples
from advisor.presentation.text import local_name


def comparison_text(recommendation) -> str:
    qualifying = len(recommendation.rankings["recommended"])
    unpriced = recommendation.unpriced
    if qualifying:
        text = ngettext(
            "Cheapest of %(n)d priced option that qualifies.",
            "Cheapest of %(n)d priced options that qualify.",
            qualifying,
        ) % {"n": qualifying}
    else:  # nothing was compared: no "cheapest of 0"
        text = gettext("No priced option qualifies, so none is the cheapest.")
    if unpriced:
        examples = unpriced_examples(unpriced)
        separator = "、" if (translation.get_language() or "").startswith("zh") else ", "
        names = separator.join(local_name(o.hardware.server) for o in examples)
        text += " " + ngettext(
            "%(n)d more meets the requirements but is unpriced and could not be compared: "
            "%(names)s.",
            "%(n)d more meet the requirements but are unpriced and could not be compared, "
            "among them %(names)s.",
            len(unpriced),
        ) % {"n": len(unpriced), "names": names}
    return text
