"""``{% load fragments %}``: an option's title, capacity, cost figures and cost confidence, as
the results table's rows write them (:mod:`advisor.presentation.fragments`, decision 0085).

``{% option_title o %}``, ``{% capacity c server %}``, ``{% cost_figures o %}``,
``{% cost_confidence c %}``.
"""

from django import template
from django.utils.safestring import mark_safe

from advisor.presentation import fragments

register = template.Library()


@register.simple_tag
def option_title(o):
    return mark_safe(fragments.option_title(o))  # every value escaped by the fragment


@register.simple_tag
def capacity(c, server):
    return mark_safe(fragments.capacity(c, server))  # every value escaped by the fragment


@register.simple_tag
def cost_figures(o):
    return mark_safe(fragments.cost_figures(o))  # every value escaped by the fragment


@register.simple_tag
def cost_confidence(c):
    return mark_safe(fragments.cost_confidence(c))  # every value escaped by the fragment
