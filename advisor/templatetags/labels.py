"""``{% load labels %}``: the words for the scenario's and options' codes (advisor.presentation.labels)."""

from django import template

from advisor.presentation import labels
from advisor.presentation.numbers import plain_number

register = template.Library()


@register.filter
def method_label(method, lora=None):
    return labels.method_label(method, lora)


@register.filter
def precision_label(code):
    return labels.label(labels.PRECISION_LABELS, code)


@register.filter
def optimizer_label(code):
    return labels.label(labels.OPTIMIZER_LABELS, code)


@register.filter
def offload_label(code):
    return labels.label(labels.OFFLOAD_LABELS, code)


@register.filter
def mode_label(code):
    return labels.label(labels.MODE_LABELS, code)


@register.filter
def memory_label(code):
    return labels.label(labels.MEMORY_COMPONENT_LABELS, code)


@register.filter
def parallelism(strategy, tensor_parallel=1):
    return labels.parallelism_label(strategy, tensor_parallel)


@register.filter
def requirement(code):
    return labels.requirement(code)


@register.filter
def unit_label(code):
    return labels.word("unit", code)


@register.filter
def unit_count(quantity, code):
    """``{{ line.quantity|unit_count:line.unit }}``: "51.2 card-hours", "1 server", "36 个月"."""
    return labels.unit_count(plain_number(quantity), quantity, code)


@register.filter
def cost_label(code):
    return labels.word("cost", code)


@register.filter
def usage_label(code):
    return labels.word("usage", code)


@register.filter
def figure_label(code):
    return labels.word("figure", code)
