"""``{% load numbers %}``: the figure filters of :mod:`advisor.presentation.numbers`."""

from django import template

from advisor.presentation import numbers

register = template.Library()

register.filter("num", numbers.num)
register.filter("hours", numbers.hours)
register.filter("gib", numbers.gib)
register.filter("kw", numbers.kw)
register.filter("tokens_per_s", numbers.tokens_per_s)
register.filter("tokens", numbers.tokens)
register.filter("count", numbers.count)
register.filter("plain_number", numbers.plain_number)
