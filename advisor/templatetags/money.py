"""``{% load money %}``: ``{{ amount|cny }}`` and friends, from :mod:`advisor.presentation.numbers`."""

from django import template

from advisor.presentation import numbers

register = template.Library()

register.filter("cny", numbers.cny)
register.filter("decimal", numbers.decimal)
register.filter("unit_price", numbers.unit_price)
register.filter("percent", numbers.percent)
