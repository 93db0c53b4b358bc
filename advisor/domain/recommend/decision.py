"""The decision on top of the ranked options: what to do, the runner-up, what is missing.

- :func:`fold` makes one row per distinct choice: options whose capacity, mode, time, memory and
  cost are the same (the same servers from four makers, the same rent at five sites) are one
  :class:`Choice`, its best-ranked option first.
- :func:`shortlist` keeps at most one choice per accelerator × procurement mode (the best),
  the rest behind "show all".
- :func:`decide` names the recommended option, the runner-up in another procurement mode and
  the difference, and counts the open veto checks.
- :func:`blocking_requirements` says, when nothing qualifies, which of the buyer's requirements
  removes how many options and how many would qualify without it; :func:`combined_requirements`
  which of them, lifted together (dropped, or confirmed by the vendors), let how many through.

Pure Python: values and codes, worded by the presentation.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from advisor.domain.recommend.options import Option, Recommendation

# Mode families a runner-up must differ in: owning (bought and hosted, or in your own room),
# renting dedicated servers, or cloud card-hours.
FAMILY = {"buy": "own", "own": "own", "rent": "rent", "cloud": "cloud", None: "unpriced"}


def _signature(option: Option) -> tuple:
    capacity = option.obtained
    hours = option.time_to_train_hours
    cost = option.cost
    return (
        option.qualifies,
        option.hardware.accelerator.key,
        option.mode,
        capacity.instances,
        capacity.gpus_per_instance,
        None if hours is None else round(hours, 1),
        round(option.sizing.memory.total, 1),
        None if cost is None else round(cost.net_of_resale_cny),
        None if cost is None else round(cost.cash_out_cny),
        str(option.compliance.verdict),
    )


@dataclass(frozen=True)
class Choice:
    """Options that are the same choice for a buyer; ``options[0]`` is the best ranked."""

    options: tuple[Option, ...]
    rank: int | None  # the first option's rank among qualifying options

    @property
    def option(self) -> Option:
        return self.options[0]

    @property
    def servers(self) -> tuple:
        """The distinct server models (the same accelerators from several makers)."""
        seen = {}
        for option in self.options:
            seen.setdefault(option.hardware.server.key, option.hardware.server)
        return tuple(seen.values())

    @property
    def places(self) -> tuple[str, ...]:
        """The distinct sites or cloud places, by key."""
        return tuple(dict.fromkeys(_place_key(o) for o in self.options))

    @property
    def equivalents(self) -> int:
        return len(self.options) - 1


def _place_key(option: Option) -> str:
    return f"cloud:{option.cloud.key}" if option.cloud else (option.site.data_center.key or "")


def fold(options, ranks: dict[str, int]) -> list[Choice]:
    """``options`` (in display order) folded into choices, in the order of their first option."""
    groups: dict[tuple, list[Option]] = {}
    for option in options:
        groups.setdefault(_signature(option), []).append(option)
    return [Choice(tuple(group), ranks.get(group[0].key)) for group in groups.values()]


def shortlist(choices: list[Choice], per: int = 1) -> tuple[list[Choice], int]:
    """At most ``per`` choices per accelerator × mode family, in order; and how many are hidden."""
    seen: Counter = Counter()
    kept = []
    for choice in choices:
        option = choice.option
        key = (option.hardware.accelerator.key, FAMILY.get(option.mode, option.mode))
        if seen[key] < per:
            kept.append(choice)
        seen[key] += 1
    return kept, len(choices) - len(kept)


@dataclass(frozen=True)
class Decision:
    recommended: Option | None
    runner_up: Option | None  # the best qualifying option in another mode family
    difference_cny: Decimal | None  # runner-up's net minus the recommended option's
    qualifying: int  # priced options that meet every requirement: the ones compared
    considered: int
    unknown_vetoes: int  # veto checks of the recommended option that await the vendor
    unknown_checks: int  # every check of the recommended option that awaits the vendor
    unpriced: int = 0  # options that meet every requirement but could not be compared
    unpriced_examples: tuple[Option, ...] = ()  # a few of them, one per server model
    # Domestic accelerators preferred (not required): the best qualifying domestic option,
    # which may be the recommended one, and what it costs more than it (decision 0101).
    prefer_domestic: bool = False
    best_domestic: Option | None = None
    domestic_rank: int | None = None  # its rank among qualifying options
    domestic_difference_cny: Decimal | None = None


def decide(recommendation: Recommendation, *, prefer_domestic: bool = False) -> Decision:
    qualifying = recommendation.rankings["recommended"]
    best = qualifying[0] if qualifying else None
    runner = None
    if best is not None:
        family = FAMILY.get(best.mode)
        runner = next((o for o in qualifying if FAMILY.get(o.mode) != family), None)
    difference = None
    if best is not None and runner is not None and None not in (best.cost_cny, runner.cost_cny):
        difference = runner.cost_cny - best.cost_cny
    report = best.compliance if best is not None else None
    domestic_rank = (
        next((i for i, o in enumerate(qualifying, 1) if o.hardware.domestic), None)
        if prefer_domestic
        else None
    )
    domestic = qualifying[domestic_rank - 1] if domestic_rank else None
    domestic_difference = None
    if domestic is not None and None not in (best.cost_cny, domestic.cost_cny):
        domestic_difference = domestic.cost_cny - best.cost_cny
    return Decision(
        recommended=best,
        runner_up=runner,
        difference_cny=difference,
        qualifying=len(qualifying),
        considered=len(recommendation.options),
        unknown_vetoes=len(report.unknown_blockers) if report else 0,
        unknown_checks=report.counts["unknown"] if report else 0,
        unpriced=len(recommendation.unpriced),
        unpriced_examples=unpriced_examples(recommendation.unpriced),
        prefer_domestic=prefer_domestic,
        best_domestic=domestic,
        domestic_rank=domestic_rank,
        domestic_difference_cny=domestic_difference,
    )


def unpriced_examples(options, limit: int = 3) -> tuple[Option, ...]:
    """A few unpriced options to name ("among them Atlas 800T A2"): one per server model,
    domestic accelerators first (the comparison a buyer asks about first), then in order."""
    seen: dict[str, Option] = {}
    for option in sorted(options, key=lambda o: not o.hardware.domestic):
        seen.setdefault(option.hardware.server.key, option)
    return tuple(seen.values())[:limit]


@dataclass(frozen=True)
class Blocker:
    """One of the buyer's requirements: how many options it removes, how many would qualify
    without it (all else as it is)."""

    code: str  # a reason code: "required:VENDOR-MLPS3", "budget", "deadline", "domestic" …
    removes: int
    would_qualify: int


def _requirement(code: str) -> str:
    """Reason codes of one requirement: every veto or required rule is its own requirement."""
    return code


def blocking_requirements(options) -> list[Blocker]:
    """Per requirement that disqualifies an option, how many it removes and how many options
    would qualify if it alone were lifted; most limiting first."""
    removes: Counter = Counter()
    alone: Counter = Counter()
    for option in options:
        codes = {_requirement(c) for c in option.reason_codes}
        for code in codes:
            removes[code] += 1
        if len(codes) == 1:
            alone[next(iter(codes))] += 1
    blockers = [Blocker(code, removes[code], alone[code]) for code in removes]
    return sorted(blockers, key=lambda b: (-b.would_qualify, -b.removes, b.code))


# Reason codes of what the buyer asked (a qualification, the budget, the deadline, the
# accelerators): the requirements a buyer can drop, or have the vendors confirm.
BUYER_REQUIREMENTS = ("budget", "deadline", "domestic", "preferred", "excluded")


def _buyers(code: str) -> bool:
    return code.startswith("required:") or code in BUYER_REQUIREMENTS


@dataclass(frozen=True)
class Combined:
    """Requirements of the buyer that only together keep options out: lifted together
    (dropped, or confirmed by the vendors), ``would_qualify`` options qualify."""

    codes: tuple[str, ...]  # most limiting first
    would_qualify: int


def combined_requirements(options) -> Combined | None:
    """When no requirement alone lets an option through, the fewest of the buyer's
    requirements that together do (none: nothing the buyer asked keeps them all out, or one
    requirement alone already does it, which :func:`blocking_requirements` says)."""
    blockers = blocking_requirements(options)
    order = [b.code for b in blockers if _buyers(b.code)]
    if len(order) < 2:
        return None

    def through(codes: set[str]) -> int:
        return sum(1 for o in options if o.reason_codes and set(o.reason_codes) <= codes)

    chosen = set(order)
    total = through(chosen)
    if total == 0:
        return None
    for code in reversed(order):  # the least limiting first: keep what the count needs
        if through(chosen - {code}) == total:
            chosen.discard(code)
    if len(chosen) < 2:
        return None
    return Combined(tuple(c for c in order if c in chosen), total)
