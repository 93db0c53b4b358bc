"""What ``manage.py recommend --format json`` prints and ``POST /api/recommend`` answers.

Format 2 (docs/recommend-output.md): every distinct finding is listed once, in ``findings``,
with an ``id``; each option names its findings by those ids. Options of one server at many
sites share most findings, so the document holds each sentence once instead of once per option
(the 32B job over every site: 92 distinct findings against 9,251 rows).

Format 1, the previous document (each option with its findings written out in full), stays
available for one release behind ``--format json-1`` and ``?format=1``; it goes in the release
after (docs/decisions/0090-recommendation-output-format-2.md).

Both are plain ``json.dumps`` of a dictionary. Messages are worded by the caller's ``words``
(``advisor.presentation.text.render_text`` in the active language): below the features nothing
words a value for a reader (pyproject.toml's import contracts).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from advisor.domain.i18n import Message
from advisor.domain.plain import jsonable
from advisor.domain.questionnaire.questions import declared_for_rule
from advisor.domain.recommend import Option, RecommendRun
from advisor.domain.recommend.procurement import subject_keys
from advisor.domain.recommend.records import capacity_record, plain_cost

FORMAT = 2
FORMATS = (1, 2)  # 1: the previous document, for one release (deprecated)

Words = Callable[[Message], str]  # a message in the reader's language
# How many options the ranking compared and how many it could not, in the reader's language
# (advisor.presentation.compared.comparison_text).
Compared = Callable[[object], str]


def recommendation_document(
    run: RecommendRun, words: Words, version: int = FORMAT, *, compared: Compared
) -> dict:
    """The ranked options of ``run`` in format ``version`` (2 unless asked for 1). Options that
    meet every requirement without a price are not qualifying: ``unpriced`` counts them and
    ``compared`` says so (docs/decisions/0095)."""
    if version not in FORMATS:
        raise ValueError(f"no output format {version!r} (formats: {FORMATS})")
    if version == 1:
        return _format_1(run, words, compared)
    qualifying = {o.key for o in run.recommendation.rankings["recommended"]}
    findings = Findings(words)
    options = [
        _option(o, rank, o.key in qualifying, run.declared, findings)
        for rank, o in enumerate(run.recommendation.options, start=1)
    ]
    return {
        "format": FORMAT,
        "today": run.today.isoformat(),
        "considered": len(options),
        "qualifying": len(qualifying),
        "unpriced": len(run.recommendation.unpriced),
        "compared": compared(run.recommendation),
        "findings": findings.rows,
        "options": options,
    }


def recommendation_text(
    run: RecommendRun, words: Words, version: int = FORMAT, *, compared: Compared
) -> str:
    """The document as the command prints it."""
    document = recommendation_document(run, words, version, compared=compared)
    return json.dumps(document, indent=2, ensure_ascii=False)


def option_findings(document: dict, option: dict) -> list[dict]:
    """A format-2 option's findings written out, each with its ``declared`` facts: what the
    same option lists in format 1."""
    by_id = {row["id"]: row for row in document["findings"]}
    declared = {}
    for fact in option["declared"]:
        declared.setdefault(fact["finding"], []).append(
            {key: value for key, value in fact.items() if key != "finding"}
        )
    return [
        {
            **{key: value for key, value in by_id[i].items() if key != "id"},
            "declared": declared.get(i, []),
        }
        for i in option["findings"]
    ]


class Findings:
    """The distinct findings of one document, numbered from 1 in the order options list them.

    A finding object is worded once (options of one server at many sites hold the same objects,
    docs/decisions/0057); findings that read alike share one id."""

    def __init__(self, words: Words):
        self.words = words
        self.rows: list[dict] = []
        self._ids: dict[tuple, int] = {}  # what a row says → its id
        self._worded: dict[int, tuple[object, int]] = {}  # id() of a finding → (finding, id)

    def id_of(self, finding) -> int:
        known = self._worded.get(id(finding))
        if known is not None and known[0] is finding:
            return known[1]
        words = (
            finding.rule_id,
            str(finding.status),
            str(finding.severity),
            finding.citation,
            self.words(finding.message),
        )
        number = self._ids.get(words)
        if number is None:
            number = self._ids[words] = len(self.rows) + 1
            rule, status, severity, citation, message = words
            self.rows.append(
                {
                    "id": number,
                    "rule": rule,
                    "status": status,
                    "severity": severity,
                    "citation": citation,
                    "message": message,
                }
            )
        self._worded[id(finding)] = (finding, number)  # the finding is kept alive with it
        return number


def _option(option: Option, rank: int, qualifies: bool, declared, findings: Findings) -> dict:
    row = _option_fields(option, rank, qualifies, findings.words)
    listed = option.compliance.findings
    row["findings"] = [findings.id_of(f) for f in listed]
    row["declared"] = [
        {"finding": findings.id_of(f), **fact}
        for f in listed
        for fact in _declared(option, f.rule_id, declared)
    ]
    return row


def _option_fields(option: Option, rank: int, qualifies: bool, words: Words) -> dict:
    """An option's own fields, the same in both formats."""
    sizing = option.sizing
    return {
        "rank": rank,
        "key": option.key,
        "qualifies": qualifies,
        "unpriced": option.unpriced,
        "reasons": [words(r) for r in option.reasons],
        "accelerator": option.hardware.accelerator.key,
        "gpus": sizing.layout.gpus,
        "servers": sizing.servers,
        "server": option.hardware.server.key,
        "data_center": option.site.data_center.key,  # None for a cloud option
        "vendor": option.site.vendor.key,
        "place": option.place_name,
        "capacity": jsonable(capacity_record(option)),
        "fits": sizing.fits,
        "memory_per_gpu_gib": round(sizing.memory.total, 2),
        "capacity_gib": round(sizing.capacity_gib, 2),
        "time_to_train_hours": _round(option.time_to_train_hours, 2),
        "mode": option.mode,
        "cost": plain_cost(option),
        "verdict": str(option.compliance.verdict),
        "counts": option.compliance.counts,
    }


def _declared(option: Option, rule_id: str, declared) -> list[dict]:
    """The vendor's declared facts a finding was computed from (empty: catalog only)."""
    if not declared:
        return []
    return [
        {
            "subject": item.subject,
            "fact": item.fact.name,
            "value": item.value,
            "evidence": item.evidence,
        }
        for item in declared_for_rule(rule_id, subject_keys(option), declared)
    ]


def _round(value, digits):
    return None if value is None else round(float(value), digits)


# --- Format 1 (deprecated: for one release) --------------------------------------------------


def _format_1(run: RecommendRun, words: Words, compared: Compared) -> dict:
    """The previous document: every option with its findings written out."""
    qualifying = {o.key for o in run.recommendation.rankings["recommended"]}
    rows = []
    for rank, option in enumerate(run.recommendation.options, start=1):
        row = _option_fields(option, rank, option.key in qualifying, words)
        row["findings"] = [
            {
                "rule": f.rule_id,
                "status": str(f.status),
                "severity": str(f.severity),
                "citation": f.citation,
                "message": words(f.message),
                "declared": _declared(option, f.rule_id, run.declared),
            }
            for f in option.compliance.findings
        ]
        rows.append(row)
    return {
        "today": run.today.isoformat(),
        "considered": len(rows),
        "qualifying": len(qualifying),
        "unpriced": len(run.recommendation.unpriced),
        "compared": compared(run.recommendation),
        "options": rows,
    }
