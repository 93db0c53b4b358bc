"""Who requires a figure, when it is not the rule's own standard (``Evidence.requirement``)."""

from __future__ import annotations

from advisor.domain.i18n import N_

BUYER_AT_MOST = N_("the buyer asks for at most {threshold}")
BUYER_AT_LEAST = N_("the buyer asks for at least {threshold}")
DC_ALLOWS = N_("the data center allows at most {threshold}")
