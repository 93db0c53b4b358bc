"""Evaluate every rule for one option and aggregate the verdict.

Verdict: *not eligible* when any blocker (veto) fails; *incomplete* when no blocker fails but
any blocker is unknown (the facts that would settle it await the vendor: an option resting on
an unanswered veto check is never called eligible); *eligible with warnings* when any warning
rule does not pass (warn, fail or unknown: missing data never passes silently), or a blocker
only warns; otherwise *eligible*. Advice rules are reported but never change the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from enum import StrEnum
from functools import cached_property
from typing import NamedTuple

from advisor.domain.compliance.base import Area, Finding, Rule, Severity, Status
from advisor.domain.compliance.facts import ComplianceInput
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS, Parameters
from advisor.domain.compliance.rules import cloud, hardware, site, vendor
from advisor.domain.i18n import N_, Message

# Bump when a rule, its logic or a default threshold changes; briefs record it.
RULESET_VERSION = "2026.12-1"

RULES: tuple[Rule, ...] = (*site.RULES, *vendor.RULES, *hardware.RULES)
RULES_BY_ID = {rule.id: rule for rule in RULES}
# A cloud option: the provider's certificates, where the data goes, and the accelerator's
# software stack and export-control status; no site rule (no data center of the buyer's).
CLOUD_RULES: tuple[Rule, ...] = (
    *cloud.RULES,
    RULES_BY_ID["VENDOR-ISO27001"],
    RULES_BY_ID["VENDOR-MLPS3"],
    RULES_BY_ID["HW-SOFTWARE-STACK"],
    RULES_BY_ID["HW-AVAILABILITY"],
)

# The buyer's own room has no hosting vendor: no vendor rule applies (telecom licence, ICP,
# ISO 27001, MLPS, self-operated …); its site rules are checked against what the buyer said of
# the room, and those it did not say become the facilities team's checklist (``own_room``).
OWN_ROOM_RULES: tuple[Rule, ...] = tuple(rule for rule in RULES if rule.area is not Area.VENDOR)

# Every rule the engine knows (site, vendor, hardware and cloud), by id.
ALL_RULES_BY_ID = {rule.id: rule for rule in (*RULES, *cloud.RULES)}
# The words a reader reads for each rule id: its title (an N_ marker). Rule ids appear only in
# the brief's technical annex and the CLI's JSON; pages and the brief's text name a finding, a
# failed check or a required qualification by these words.
RULE_NAMES: dict[str, str] = {rule_id: rule.title for rule_id, rule in ALL_RULES_BY_ID.items()}


def rule_name(rule_id: str) -> Message:
    """``rule_id`` in words, as a message to nest in another (``{"rule": rule_name(id)}``):
    "VENDOR-TELECOM-LICENCE" reads "含 IDC 业务（B11）的增值电信业务经营许可证" on a Chinese page.
    An id no rule has is shown as it is."""
    title = RULE_NAMES.get(rule_id)
    return Message(title) if title else Message("{rule}", {"rule": rule_id})


_STATUS_NAMES = tuple(str(status) for status in Status)


class Verdict(StrEnum):
    ELIGIBLE = "eligible"
    ELIGIBLE_WITH_WARNINGS = "eligible-with-warnings"
    INCOMPLETE = "incomplete"
    NOT_ELIGIBLE = "not-eligible"


VERDICT_LABELS = {
    Verdict.ELIGIBLE: N_("eligible"),
    Verdict.ELIGIBLE_WITH_WARNINGS: N_("eligible with warnings"),
    Verdict.INCOMPLETE: N_("incomplete: veto checks await the vendor"),
    Verdict.NOT_ELIGIBLE: N_("not eligible"),
}


@dataclass(frozen=True)
class ComplianceReport:
    today: date
    ruleset_version: str
    findings: tuple[Finding, ...]
    verdict: Verdict
    parameters: Parameters

    @property
    def counts(self) -> dict[str, int]:
        """Findings per status, e.g. ``{"pass": 20, "warn": 3, "fail": 1, "unknown": 2}``."""
        return dict(self._counted)

    @cached_property
    def _counted(self) -> dict[str, int]:
        """``counts``, counted once per report (rankings and rows read it for every option);
        ``counts`` hands out copies."""
        counted = dict.fromkeys(_STATUS_NAMES, 0)
        for finding in self.findings:
            counted[finding.status] += 1  # a Status is the str it names
        return counted

    @property
    def internal_checks(self) -> tuple[Finding, ...]:
        """Checks of the buyer's own room left for its facilities team (an internal list)."""
        return tuple(f for f in self.findings if f.severity is Severity.INTERNAL)

    @property
    def failed_blockers(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.is_failed_blocker)

    @property
    def unknown_blockers(self) -> tuple[Finding, ...]:
        """Veto checks whose facts are not known yet (the vendor has not said)."""
        return tuple(
            f
            for f in self.findings
            if f.severity is Severity.BLOCKER and f.status is Status.UNKNOWN
        )

    def by_area(self) -> dict[Area, tuple[Finding, ...]]:
        return {
            area: tuple(finding for finding in self.findings if finding.area is area)
            for area in Area
        }

    def finding(self, rule_id: str) -> Finding:
        return next(finding for finding in self.findings if finding.rule_id == rule_id)

    def as_dict(self) -> dict:
        return {
            "today": self.today.isoformat(),
            "ruleset_version": self.ruleset_version,
            "verdict": str(self.verdict),
            "counts": self.counts,
            "unknown_blockers": [f.rule_id for f in self.unknown_blockers],
            "findings": [finding.as_dict() for finding in self.findings],
            "parameters": self.parameters.as_rows(),
        }


def evaluate_rule(rule: Rule, facts: ComplianceInput, params: Parameters) -> Finding:
    result = rule.evaluate(facts, params)
    return Finding(
        rule_id=rule.id,
        area=rule.area,
        title=rule.title,
        explanation=rule.explanation,
        citation=rule.citation,
        severity=rule.severity,
        status=result.status,
        message=result.message,
        evidence=result.evidence,
    )


def verdict_of(findings) -> Verdict:
    """The worst of the findings' verdicts, in one pass: a failed veto check makes the option
    not eligible; a veto check not known, incomplete; a warning rule or a veto check that does
    not pass, eligible with warnings; passes and advice leave it eligible."""
    level = 0
    for finding in findings:
        status, severity = finding.status, finding.severity
        if status is Status.PASS or severity in _NO_VERDICT:
            continue
        if severity is Severity.BLOCKER and status is Status.FAIL:
            return Verdict.NOT_ELIGIBLE
        blocker_unknown = severity is Severity.BLOCKER and status is Status.UNKNOWN
        level = 2 if blocker_unknown else max(level, 1)
    return _VERDICTS[level]


_NO_VERDICT = (Severity.ADVICE, Severity.INTERNAL)
_VERDICTS = (Verdict.ELIGIBLE, Verdict.ELIGIBLE_WITH_WARNINGS, Verdict.INCOMPLETE)
_WORST = (*_VERDICTS, Verdict.NOT_ELIGIBLE)  # from best to worst


class _Part(NamedTuple):
    """The findings of one side's rules and their verdict (worked out once per kept part)."""

    findings: tuple[Finding, ...]
    verdict: Verdict


def _part_of(findings: tuple[Finding, ...]) -> _Part:
    return _Part(findings, verdict_of(findings))


# The facts of an option's place (its data center, vendor and zone, or its cloud offer) and of
# its hardware (the server, its sizing, the accelerator, the buyer's requirement for it); the
# day belongs to both. A rule reading only one side's facts gives every option on that side
# the same finding.
SITE_FACTS = frozenset({"today", "data_center", "vendor", "zone", "cloud"})
HARDWARE_FACTS = frozenset({"today", "option", "server", "accelerator", "availability", "buyer"})


@dataclass(frozen=True)
class _Side:
    """Rules of one side (``SITE_FACTS``, ``HARDWARE_FACTS``) in rule order and every fact
    name they read; ``kept``: False for the rules evaluated for each option (those reading
    facts of both sides, or declaring no reads)."""

    rules: tuple[Rule, ...]
    names: tuple[str, ...]
    kept: bool


def _side_of(rule: Rule) -> int:
    if rule.reads and SITE_FACTS.issuperset(rule.reads):
        return 0
    if rule.reads and HARDWARE_FACTS.issuperset(rule.reads):
        return 1
    return 2


class SharedFindings:
    """Findings shared between the options of one recommendation.

    A rule reads a few of an option's facts (``Rule.reads``): a site rule its data center, a
    server rule the server and the sizing. Options built from the same fact objects (every
    server at one site shares the site's; every site shares a server's) get the same finding,
    evaluated once: a recommendation over every site checks each site once, not once per
    server. The findings of a side's rules (``SITE_FACTS``, ``HARDWARE_FACTS``) are kept
    together, so an option looks up its site's and its hardware's at once and evaluates only
    the rules that read both (rack power, cooling, floor load), whose findings are shared by
    the values they compare (``Rule.reads_values``). Facts are told apart by identity, and kept
    alive here so that an identity is never reused while the memory lives; it lives for one
    recommendation.
    """

    def __init__(self):
        self._plans: dict[int, tuple] = {}
        self._sides: dict[int, tuple] = {}
        self._buckets: dict[tuple, dict[str, Finding]] = {}
        self._parts: dict[tuple, _Part] = {}
        self._valued: dict[tuple, Finding] = {}
        self._kept: list = []

    def findings(
        self, rules: tuple[Rule, ...], facts: ComplianceInput, params: Parameters
    ) -> tuple[Finding, ...]:
        return self.assessed(rules, facts, params)[0]

    def assessed(
        self, rules: tuple[Rule, ...], facts: ComplianceInput, params: Parameters
    ) -> tuple[tuple[Finding, ...], Verdict]:
        """The findings in rule order and their verdict: the worst of each side's verdict,
        which is the verdict of all the findings (``verdict_of`` takes the worst finding),
        worked out once per kept side instead of over every finding of each option."""
        sides, order = self._sides_of(rules)
        parts = [self._part(side, facts, params) for side in sides]
        found = [part.findings for part in parts]
        findings = tuple([found[side][index] for side, index in order])
        return findings, max((part.verdict for part in parts), key=_WORST.index)

    def _sides_of(self, rules: tuple[Rule, ...]) -> tuple:
        """``rules`` split by side, and each rule's place: (side, index within the side)."""
        kept = self._sides.get(id(rules))
        if kept is None:
            grouped: list[list[Rule]] = [[], [], []]
            order = []
            for rule in rules:
                side = _side_of(rule)
                order.append((side, len(grouped[side])))
                grouped[side].append(rule)
            sides = tuple(
                _Side(tuple(group), tuple(dict.fromkeys(n for r in group for n in r.reads)), whole)
                for group, whole in zip(grouped, (True, True, False), strict=True)
            )
            kept = self._sides[id(rules)] = (rules, sides, tuple(order))
        return kept[1], kept[2]

    def _part(self, side: _Side, facts: ComplianceInput, params: Parameters) -> tuple:
        """The findings of ``side``'s rules for these facts: kept per side's facts when the
        side is kept, else evaluated for this option (sharing single rules' findings)."""
        if not side.kept:
            return _part_of(self._evaluate(side.rules, facts, params))
        values = tuple([getattr(facts, name) for name in side.names])
        key = (id(side), id(params), *[id(value) for value in values])
        found = self._parts.get(key)
        if found is None:
            found = self._parts[key] = _part_of(self._evaluate(side.rules, facts, params))
            self._kept.append((side, params, values))
        return found

    def _evaluate(
        self, rules: tuple[Rule, ...], facts: ComplianceInput, params: Parameters
    ) -> tuple[Finding, ...]:
        if not rules:
            return ()
        signatures, plan, names = self._plan(rules)
        buckets = ()
        if signatures:
            values = {name: getattr(facts, name) for name in names}  # each fact read once
            ids = {name: id(value) for name, value in values.items()}
            buckets = [self._bucket(reads, values, ids, params) for reads in signatures]
        found = []
        for rule, index in plan:
            bucket = buckets[index] if index is not None else None
            finding = bucket.get(rule.id) if bucket is not None else None
            if finding is None:
                finding = self._by_values(rule, facts, params)
                if bucket is not None:
                    bucket[rule.id] = finding
            found.append(finding)
        return tuple(found)

    def _by_values(self, rule: Rule, facts: ComplianceInput, params: Parameters) -> Finding:
        """The rule's finding, shared with every option whose ``reads_values`` are equal (the
        rack rules: many server × site pairs compare the same figures)."""
        if rule.reads_values is None:
            return evaluate_rule(rule, facts, params)
        key = (rule.id, id(params), rule.reads_values(facts))
        finding = self._valued.get(key)
        if finding is None:
            finding = self._valued[key] = evaluate_rule(rule, facts, params)
            self._kept.append(params)
        return finding

    def _plan(self, rules: tuple[Rule, ...]) -> tuple:
        """The distinct ``reads`` of ``rules``, each rule with the index of its own, and every
        fact name any of them reads. A rule shared by the values it reads (``reads_values``)
        has no index: it goes to ``_by_values`` directly (a bucket by the facts' identities
        would hold it for one option only, as it reads facts of both sides)."""
        kept = self._plans.get(id(rules))
        if kept is None:
            bucketed = [rule for rule in rules if rule.reads_values is None]
            signatures = list(dict.fromkeys(rule.reads for rule in bucketed))
            plan = tuple(
                (rule, None if rule.reads_values else signatures.index(rule.reads))
                for rule in rules
            )
            names = tuple(dict.fromkeys(name for reads in signatures for name in reads))
            kept = self._plans[id(rules)] = (rules, tuple(signatures), plan, names)
        return kept[1], kept[2], kept[3]

    def _bucket(self, reads: tuple[str, ...], values: dict, ids: dict, params) -> dict | None:
        """The findings of the rules reading ``reads``, for these very facts (None: a rule that
        declares no reads is evaluated for every option)."""
        if not reads:
            return None
        key = (reads, id(params), *[ids[name] for name in reads])
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = {}
            self._kept.append((params, tuple(values[name] for name in reads)))
        return bucket


def evaluate(
    facts: ComplianceInput,
    params: Parameters = DEFAULT_PARAMETERS,
    rules: tuple[Rule, ...] = RULES,
    shared: SharedFindings | None = None,
) -> ComplianceReport:
    """Every rule's finding for one option, in rule order, with the overall verdict.

    ``shared``: findings of options that share a rule's facts are evaluated once."""
    if shared is None:
        findings = tuple(evaluate_rule(rule, facts, params) for rule in rules)
        verdict = verdict_of(findings)
    else:
        findings, verdict = shared.assessed(rules, facts, params)
    return ComplianceReport(facts.today, RULESET_VERSION, findings, verdict, params)


def own_room(report: ComplianceReport) -> ComplianceReport:
    """The report of an option in the buyer's own room: a site check the buyer has not
    answered is the facilities team's to settle (``Severity.INTERNAL``), not a veto awaiting a
    vendor; a site fact the buyer gave that fails still counts."""
    findings = tuple(
        replace(finding, severity=Severity.INTERNAL)
        if finding.area is Area.SITE
        and finding.status is Status.UNKNOWN
        and finding.severity is not Severity.ADVICE
        else finding
        for finding in report.findings
    )
    return replace(report, findings=findings, verdict=verdict_of(findings))
