"""The small pieces of an option that several pages show: its title, capacity, cost figures and
cost confidence (docs/decisions/0085), written once in Python for the results table's rows
(advisor/results/rows.py) and, through ``{% load fragments %}``, for the templates of the
option page, the comparison, the decision paragraph, the site comparison and the brief.

Each value goes through Django's ``localize`` and ``conditional_escape``, as ``{{ }}`` and
``{% blocktranslate %}`` do; the pieces return escaped HTML.
"""

from __future__ import annotations

import html

from django.conf import settings
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.text import slugify
from django.utils.translation import gettext, ngettext

from advisor.presentation.numbers import cny, num
from advisor.presentation.text import local_name, render_text


def esc(value) -> str:
    """A value as ``{{ value }}`` writes it: localized, then escaped unless marked safe."""
    if type(value) is str:  # plain text (most values): escaped as django.utils.html.escape does
        return html.escape(value)
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)  # localize writes an int as it is unless digits are grouped
    value = localize(value)
    if not isinstance(value, str):
        value = str(value)
    return conditional_escape(value)


def option_title(o) -> str:
    """The option's title: its GPUs and accelerator."""
    return f"{esc(num(o.obtained.gpus))} × {esc(local_name(o.hardware.accelerator))}\n"


def capacity(c, server) -> str:
    """What capacity ``c`` of ``server`` obtains: instances or servers, and GPUs idle."""
    if c.how == "cloud":
        text = ngettext(
            "%(n)s × %(k)s-GPU instance", "%(n)s × %(k)s-GPU instances", c.instances
        ) % {"k": esc(c.gpus_per_instance), "n": esc(c.instances)}
    else:
        maker = local_name(server, "maker")
        text = f"{esc(num(c.instances))} × {esc(local_name(server))}"
        if maker:
            text += f" · {esc(maker)}"
    if c.idle_gpus:
        idle = ngettext(
            "%(idle)s GPU idle, paid for", "%(idle)s GPUs idle, paid for", c.idle_gpus
        ) % {"idle": esc(c.idle_gpus)}
        text += f" · {idle}"
    return text


def cost_figures(o) -> str:
    """The option's cost: cash out, net of resale, per run or for this job."""
    c = o.cost
    if not c:
        return conditional_escape(gettext("not priced")) + "\n"
    text = f'<span class="cost-cash">{esc(cny(c.cash_out_cny))}</span>'
    if c.resale:
        net = gettext("%(net)s net of resale") % {"net": esc(cny(c.net_of_resale_cny))}
        text += f'<span class="hint">{net}</span>'
    if c.usage == "programme":
        per_run = ngettext(
            "over %(years)s year · %(per_run)s a run",
            "over %(years)s years · %(per_run)s a run",
            c.horizon_years,
        ) % {"per_run": esc(cny(c.per_run_cny)), "years": esc(c.horizon_years)}
        text += f'<span class="hint">{per_run}</span>'
    else:
        text += f'<span class="hint">{conditional_escape(gettext("for this job"))}</span>'
    return text + "\n"


def cost_confidence(c) -> str:
    """How sure confidence ``c`` is (a ``Confidence``, or its stored form in a brief's snapshot)."""
    if not c:
        return "\n"
    c = _fields(c)
    headline = render_text(c["headline"])
    figure = render_text(c["figure_label"])
    flag = render_text(c["flag_label"])
    if c["headline"] == "your figures":
        text = esc(headline)
    elif flag:
        text = gettext("%(headline)s: %(figure)s, %(flag)s") % {
            "headline": esc(headline),
            "figure": esc(figure),
            "flag": esc(flag),
        }
    else:
        text = gettext("%(headline)s: %(figure)s") % {
            "headline": esc(headline),
            "figure": esc(figure),
        }
    slug = esc(slugify(str(c["headline"])))
    return f'<span class="cost-confidence confidence-{slug}">{text}</span>\n'


def _fields(c) -> dict:
    """A confidence's fields, from the record or from its stored form."""
    if isinstance(c, dict):
        return {name: c.get(name) for name in ("headline", "figure_label", "flag_label")}
    return {name: getattr(c, name) for name in ("headline", "figure_label", "flag_label")}
