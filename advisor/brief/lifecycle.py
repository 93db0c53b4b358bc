"""What a brief says now: its decision in one glance, and whether it still holds.

A brief is frozen when issued; the vendor's answers or the catalog may change its option's
verdict afterwards. Its page and the approvals queue then mark it "superseded — re-issue"
(the stored recommendation is read, never computed again).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from advisor.brief.models import Brief, open_vetoes
from advisor.recommendation.services import latest_option_at


@dataclass(frozen=True)
class Glance:
    brief: Brief
    chosen: dict  # the snapshot's chosen option
    cost: dict | None  # its cost record (cash out, net), when priced
    open_vetoes: list[dict]
    superseded: bool  # the option's verdict or cost changed since issue, or it is gone
    now_verdict: str | None  # the verdict the option has now
    since: datetime | None = None  # when the result that supersedes it was computed

    @property
    def then_verdict(self) -> str | None:
        """The option's verdict when the brief was issued."""
        return (self.chosen.get("compliance") or {}).get("verdict")


def glance(brief: Brief) -> Glance:
    options = (brief.snapshot or {}).get("options") or [{}]
    chosen = options[0]
    memo = (brief.snapshot or {}).get("memo") or {}
    current, computed_at = (
        latest_option_at(brief.assessment_id, chosen.get("key", "")) if chosen else (None, None)
    )
    then = (chosen.get("compliance") or {}).get("verdict")
    now = str(current.compliance.verdict) if current is not None else None
    superseded = (
        brief.assessment_id is not None and bool(chosen) and (current is None or now != then)
    )
    since = computed_at if superseded else None
    return Glance(
        brief, chosen, memo.get("cost"), open_vetoes(brief.snapshot), superseded, now, since
    )
