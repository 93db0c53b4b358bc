"""CPU milliseconds per request kind, in one process (Django's test client, SQLite).

Usage: ``.venv/bin/python bench/cpu_per_request.py [--runs N]``

For a finished Qwen2.5-7B LoRA assessment comparing two sites, each request kind of the load
mix (bench/locustfile.py) is made ``--runs`` times after one warm-up request; then the results
pages again for the heaviest job the wizard makes, Qwen2.5-32B LoRA comparing every data center
of the catalog (with every cloud offer). The process
CPU time (``time.process_time``: user + system of this process, so other load on the machine
does not count) is reported per request: median and best; and the SQL queries of one request
(after the warm-up, counted outside the timed runs). The recommendation is stored per
version of the assessment's inputs (docs/decisions/0033-stored-recommendation.md): "first
view" deletes the stored result first (the recommendation computed and stored, as after the
answers or own figures change), "new process" forgets the decoded results of this process (a
worker's first read of a stored result); that forgetting is not timed, only the request. The
others are what a buyer walking the pages gets.
CPU time, unlike wall time, is meaningful on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _django import setup

PASSWORD = "bench-only-pass-phrase-1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    setup()
    from django.core.management import call_command

    call_command("createcachetable")  # production's database cache, as served

    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client

    from advisor.assessments.answers import assessment_document
    from advisor.assessments.services import create_answered_assessment
    from advisor.demo_scenarios import answers
    from advisor.recommendation.run import run_recommendation
    from advisor.roles import PROCUREMENT_STAFF, ensure_roles

    settings.SECURE_SSL_REDIRECT = False  # the test client speaks plain HTTP
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    user = User.objects.create_user("bench", password=PASSWORD)
    user.groups.add(ensure_roles()[PROCUREMENT_STAFF])
    assessment = create_answered_assessment(owner=user, answers=answers(), title="bench")
    client = Client()
    client.force_login(user)
    base = f"/assessments/{assessment.pk}"
    run = run_recommendation(assessment_document(assessment))
    keys = [o.key for o in run.recommendation.options[:3]]
    step = assessment.answers["training"]
    version = assessment.version

    def get(url):
        return lambda: client.get(url)

    def step_data(current_version):
        """The training step's answers as its form posts them."""
        data = {k: v for k, v in step.items() if v is not None and not isinstance(v, list)}
        return {**data, "version": current_version}

    def estimate():
        return client.post(f"{base}/training/estimate/", step_data(version), HTTP_HX_REQUEST="true")

    def sign_in():
        anonymous = Client()
        return anonymous.post("/accounts/login/", {"username": "bench", "password": PASSWORD})

    def create():
        return client.post("/assessments/new/")

    def save_step():
        current = type(assessment).objects.get(pk=assessment.pk).version
        return client.post(f"{base}/training/", step_data(current))

    kinds = [
        ("sign-in page", lambda: Client().get("/accounts/login/")),
        ("sign in (password checked)", sign_in),
        ("home", get("/")),
        ("create an assessment", create),
        ("task list", get(f"{base}/")),
        ("wizard step (training)", get(f"{base}/training/")),
        ("save a wizard step (training)", save_step),
        ("live estimate (htmx)", estimate),
        ("check answers", get(f"{base}/check/")),
        *results_kinds(client, assessment, keys),
        ("own figures", get(f"{base}/results/figures/")),
        ("brief list", get("/brief/")),
        ("health", get("/health/")),
    ]
    print(f"CPU ms per request ({args.runs} runs each, after one warm-up), this process only")
    measure(kinds, args.runs)

    from vendors.models import DataCenter

    every_site = {
        "mode": "compare",
        "compare": list(DataCenter.objects.order_by("key").values_list("key", flat=True)),
    }
    heavy = create_answered_assessment(
        owner=user,
        answers={**answers(every_site), "model": {**answers()["model"], "preset": "qwen2-5-32b"}},
        title="bench 32B",
    )
    heavy_run = run_recommendation(assessment_document(heavy))
    heavy_keys = [o.key for o in heavy_run.recommendation.options[:3]]
    print(
        f"\nQwen2.5-32B LoRA, every data center ({len(every_site['compare'])}) and cloud offer: "
        f"{len(heavy_run.recommendation.options)} options"
    )
    measure(results_kinds(client, heavy, heavy_keys), args.runs)


def results_kinds(client, assessment, keys) -> list:
    """The results pages of ``assessment``: read, read by a new process, first view, detail."""
    from django.core.cache import cache

    from advisor.recommendation import services as results_services
    from advisor.recommendation.models import StoredRecommendation

    base = f"/assessments/{assessment.pk}"

    def forget_everything():
        cache.clear()  # production keeps the page's words in the shared database cache: see
        results_services._LOCAL_RUNS.clear()  # "stored result read" for a warm one

    def forget_the_result():
        forget_everything()
        StoredRecommendation.objects.filter(assessment=assessment).delete()

    def get(url):
        return lambda: client.get(url)

    results = get(f"{base}/results/")
    return [
        ("results (stored result read)", results),
        ("results (new process, nothing kept)", results, forget_everything),
        ("results (first view: computed and stored)", results, forget_the_result),
        ("option detail", get(f"{base}/results/option/{keys[0]}/")),
        (
            "comparison (3)",
            get(f"{base}/results/compare/?" + "&".join(f"option={k}" for k in keys)),
        ),
    ]


def measure(kinds, runs: int) -> None:
    """Each kind is ``(label, request)`` or ``(label, request, prepare)``: ``prepare`` runs
    before each request (what makes it a first view or a new process's read) and is not timed."""
    from django.db import connection

    print(f"{'request':<46} {'median':>8} {'best':>8} {'queries':>8}")
    for label, request, *prepared in kinds:
        prepare = prepared[0] if prepared else (lambda: None)
        prepare()
        request()  # the warm-up
        prepare()
        queries = []  # one request's SQL statements, counted outside the timed runs
        with connection.execute_wrapper(_counted(queries)):
            response = request()
        assert response.status_code in (200, 302), (label, response.status_code)
        samples = []
        for _ in range(runs):
            prepare()
            start = time.process_time()
            request()
            samples.append((time.process_time() - start) * 1000)
        median, best = statistics.median(samples), min(samples)
        print(f"{label:<46} {median:8.1f} {best:8.1f} {len(queries):8d}")


def _counted(statements: list):
    """A database execute wrapper that notes each statement (``connection.execute_wrapper``)."""

    def wrapper(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    return wrapper


if __name__ == "__main__":
    main()
