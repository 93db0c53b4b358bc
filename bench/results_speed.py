"""Server time of the results page for the seeded catalog.

Usage: ``.venv/bin/python bench/results_speed.py [--runs N]``

Measures, for the Qwen2.5-7B LoRA assessment comparing two sites (26 options):
the recommendation itself (selectors + sizing + compliance + economics, uncached), and the
whole results page request through Django's test client, first uncached (no stored result:
computed and stored) then cached (the stored result, docs/decisions/0033). Issue 6 asks for
well under 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _django import setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    setup()

    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.test import Client

    from advisor.assessments.answers import assessment_document
    from advisor.assessments.services import create_answered_assessment
    from advisor.demo_scenarios import answers
    from advisor.recommendation import services as results_services
    from advisor.recommendation.models import StoredRecommendation
    from advisor.recommendation.run import run_recommendation
    from advisor.roles import PROCUREMENT_STAFF, ensure_roles

    user = User.objects.create_user("bench")
    user.groups.add(ensure_roles()[PROCUREMENT_STAFF])  # the results page is for buyers
    assessment = create_answered_assessment(owner=user, answers=answers(), title="bench")
    document = assessment_document(assessment)
    client = Client()
    client.force_login(user)
    url = f"/assessments/{assessment.pk}/results/"

    def page():
        # Over HTTPS, as production serves it (plain HTTP is redirected there).
        response = client.get(url, secure=True)
        assert response.status_code == 200, (response.status_code, response.get("Location"))

    def clock(function) -> list[float]:
        out = []
        for _ in range(args.runs):
            start = time.perf_counter()
            function()
            out.append((time.perf_counter() - start) * 1000)
        return out

    options = len(run_recommendation(document).recommendation.options)
    recommend = clock(lambda: run_recommendation(document))

    def uncached_page():
        cache.clear()
        results_services._LOCAL_RUNS.clear()  # the per-process copy too
        StoredRecommendation.objects.filter(assessment=assessment).delete()
        page()

    uncached = clock(uncached_page)
    page()
    cached = clock(page)
    print(f"results for {options} options, runs={args.runs}")
    for label, values in (
        ("recommendation (uncached)", recommend),
        ("results page, uncached", uncached),
        ("results page, cached", cached),
    ):
        print(
            f"{label:<28} median {statistics.median(values):7.1f} ms   best {min(values):7.1f} ms"
        )


if __name__ == "__main__":
    main()
