"""Render + sign time of the standard brief, against a bare one-page WeasyPrint render, and
the CPU a brief worker spends on it, stage by stage.

Usage: ``.venv/bin/python bench/brief_render.py [--runs N] [--language zh-hans|en]``

The standard brief: the Qwen2.5-7B LoRA job of the integration tests over the seeded catalog
(every server model × the Gui'an and Shanghai example sites), the top option and two
alternatives, rendered to PDF/A-3b with WeasyPrint and signed with pyHanko (PAdES B-B).
Prints the median and best of ``--runs`` for render+sign, render alone and sign alone, the
bare one-page render, and the ratio (issue 7's goal: render + sign median ≤ 1.5 s). Then the
median CPU time (this process, ``time.process_time``) of each stage a brief worker goes
through: the HTML (templates, charts), WeasyPrint's layout, its PDF writing (fonts subset, the
snapshot attached), the signature, and the hashes; their sum is the CPU per brief, and
60 s / that sum the briefs one worker (one core) makes a minute (issue 33).
"""

from __future__ import annotations

import argparse
import statistics
import time

from _django import setup


def timed(function, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        out.append(time.perf_counter() - start)
    return out


def line(label: str, values: list[float]) -> str:
    return f"{label:<28} median {statistics.median(values):6.3f} s   best {min(values):6.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--language", default="zh-hans", choices=("zh-hans", "en"))
    args = parser.parse_args()
    setup(signing=True)

    import weasyprint
    from django.contrib.auth.models import User
    from django.utils import timezone

    from advisor.brief.config import signing_config
    from advisor.brief.render import BriefMeta, render_pdf
    from advisor.brief.signing import SignatureRequest, sign_pdf
    from advisor.brief.snapshot import brief_snapshot
    from advisor.demo_scenarios import QWEN_7B_LORA_COMPARED
    from advisor.recommendation.run import run_recommendation

    run = run_recommendation(QWEN_7B_LORA_COMPARED)
    snapshot = brief_snapshot(
        scenario=run.scenario,
        procurement=run.procurement,
        recommendation=run.recommendation,
        chosen_key=None,
        today=run.today,
    )
    User.objects.create_user("bench")
    meta = BriefMeta(
        number="FT-2026-000001",
        language=args.language,
        status="awaiting_approval",
        status_label="Awaiting approval",
        approved=False,
        prepared_by="bench",
        prepared_at=timezone.now(),
        approved_by=None,
        approved_at=None,
        verify_url="http://127.0.0.1:8000/brief/verify/",
        organisation="Bench",
    )
    config = signing_config()
    request = SignatureRequest(reason="Procurement brief FT-2026-000001")
    unsigned = render_pdf(snapshot, meta)  # warm caches (fonts, templates) once

    both = timed(lambda: sign_pdf(render_pdf(snapshot, meta), config, request), args.runs)
    render = timed(lambda: render_pdf(snapshot, meta), args.runs)
    sign = timed(lambda: sign_pdf(unsigned, config, request), args.runs)
    bare = timed(
        lambda: weasyprint.HTML(string="<p>One page 一页</p>").write_pdf(pdf_variant="pdf/a-3b"),
        args.runs,
    )
    print(
        f"standard brief: {args.language}, {len(unsigned) / 1024:,.0f} KiB unsigned, runs={args.runs}"
    )
    print(line("render + sign", both))
    print(line("render (WeasyPrint PDF/A-3b)", render))
    print(line("sign (pyHanko PAdES B-B)", sign))
    print(line("bare one-page render", bare))
    ratio = statistics.median(both) / statistics.median(bare)
    verdict = "meets" if statistics.median(both) <= 1.5 else "misses"
    print(f"ratio render+sign / bare page: {ratio:,.1f}x   goal <= 1.5 s median: {verdict}")
    cpu_by_stage(snapshot, meta, config, request, args.runs)


def cpu_by_stage(snapshot, meta, config, request, runs: int) -> None:
    """Median CPU seconds per stage of one brief, as ``services.generate`` runs them."""
    import json

    import weasyprint

    from advisor.brief.render import brief_fetcher, brief_font_config, no_fetching, render_html
    from advisor.brief.signing import sign_pdf
    from advisor.brief.verify import sha256_hex

    stages: dict[str, list[float]] = {}

    def stage(name, function, *arguments):
        start = time.process_time()
        result = function(*arguments)
        stages.setdefault(name, []).append(time.process_time() - start)
        return result

    for _ in range(runs):
        html = stage("HTML (templates, charts)", render_html, snapshot, meta)
        document = stage(
            "layout (WeasyPrint)",
            lambda text: weasyprint.HTML(string=text, url_fetcher=brief_fetcher()).render(
                font_config=brief_font_config()
            ),
            html,
        )
        attachment = weasyprint.Attachment(
            string=json.dumps(snapshot, ensure_ascii=False, indent=1),
            name="brief.json",
            url_fetcher=no_fetching(),
        )
        unsigned = stage(
            "PDF/A-3b write (WeasyPrint)",
            lambda laid_out, attached: laid_out.write_pdf(
                pdf_variant="pdf/a-3b",
                attachments=[attached],
                pdf_identifier=meta.number.encode(),
            ),
            document,
            attachment,
        )
        signed = stage("sign (pyHanko)", sign_pdf, unsigned, config, request)
        stage("hashes (SHA-256 x 2)", lambda a, b: (sha256_hex(a), sha256_hex(b)), signed, unsigned)
    print(f"CPU per brief by stage (median of {runs}, this process):")
    total = 0.0
    for name, values in stages.items():
        median = statistics.median(values)
        total += median
        print(f"  {name:<28} {median * 1000:7.0f} ms")
    print(
        f"  {'total':<28} {total * 1000:7.0f} ms  -> {60 / total:,.0f} briefs a minute per worker"
    )


if __name__ == "__main__":
    main()
