"""The public verify page under hostile uploads: each crafted PDF alone, then five at once while
``/health/`` is probed. Prints the figures; exit status 0 only when every check held.

    .venv/bin/python bench/verify_attack.py [--seconds 20] [--concurrent 5]

Starts its own production stack on loopback (bench/_stack.py: PostgreSQL on port 54400,
``scripts/serve-production web`` with 2 x CPUs + 1 gunicorn workers, the brief worker) with the
per-address rate limit off (an attack from many addresses), then:

1. each crafted PDF of bench/_hostile_pdfs.py (form fields in object streams, an object
   stream whose /N hides behind a padding key, a /Kids chain 5,000 deep, 3,000 signature
   dictionaries with real signature bytes) is uploaded alone: the answer must be a clear
   refusal (422) within 5 s;
2. ``--concurrent`` clients upload crafted PDFs back to back (round robin) for ``--seconds``,
   while ``/health/`` is asked every 0.1 s: every upload must be answered 422 (refused) or 503
   (every verification slot busy, with Retry-After) within 5 s, never a 500 or a time-out, and
   ``/health/`` must answer within 1 s every time;
3. a real brief (issued through the pages, rendered and signed by the worker) is verified
   afterwards: "on record".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import requests  # noqa: E402
from _hostile_pdfs import HOSTILE, signature_contents  # noqa: E402
from _stack import Browser, Stack  # noqa: E402

CHECKS: list[tuple[str, bool]] = []
ANSWER_WITHIN_S = 5.0
HEALTH_WITHIN_S = 1.0


def check(label: str, ok: bool) -> bool:
    CHECKS.append((label, ok))
    print(f"  [{'ok' if ok else 'FAILED'}] {label}", flush=True)
    return ok


def upload(url: str, data: bytes) -> tuple[int, float, str, str]:
    """POST the file to /brief/verify/ as a fresh visitor: (status, seconds, Retry-After, page)."""
    session = requests.Session()
    session.get(url + "/brief/verify/", timeout=30)
    token = session.cookies.get("csrftoken") or ""
    for cookie in session.cookies:
        cookie.secure = False  # production cookies are Secure; this is plain-HTTP loopback
    started = time.perf_counter()
    try:
        response = session.post(
            url + "/brief/verify/",
            data={"csrfmiddlewaretoken": token},
            files={"pdf": ("upload.pdf", data, "application/pdf")},
            headers={"Referer": url + "/brief/verify/", "Accept-Language": "en"},
            timeout=60,
        )
    except requests.RequestException as error:
        return 0, time.perf_counter() - started, "", type(error).__name__
    seconds = time.perf_counter() - started
    return response.status_code, seconds, response.headers.get("Retry-After", ""), response.text


def probe_health(url: str, stop: threading.Event, latencies: list[float]) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        try:
            ok = requests.get(url + "/health/", timeout=10).status_code == 200
        except requests.RequestException:
            ok = False
        latencies.append(time.perf_counter() - started if ok else float("inf"))
        stop.wait(0.1)


def real_brief(stack: Stack) -> bytes | None:
    """Issue a brief as a buyer through the pages and download its PDF once signed."""
    browser = Browser(stack.url, lambda *args: None)
    if not browser.sign_in("loadbuyer00"):
        return None
    pk = browser.walk_wizard()
    key = browser.results_and_option(pk) if pk else None
    brief_id = browser.issue_brief(pk, key) if key else None
    if brief_id is None or browser.wait_for_brief(brief_id) != "ready":
        return None
    done = browser.request("download", "GET", f"/brief/{brief_id}/download/")
    return done.content if done is not None else None


def main() -> int:
    parser = argparse.ArgumentParser(prog="verify_attack.py", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="length of the attack")
    parser.add_argument("--concurrent", type=int, default=5, help="uploads at once")
    parser.add_argument("--pg-port", type=int, default=54400)
    args = parser.parse_args()

    stack = Stack(users=1, pg_port=args.pg_port)
    stack.extra_env = {"ADVISOR_VERIFY_RATE_LIMIT": ""}
    try:
        print(f"starting the production stack ({stack.web_workers} web workers) ...", flush=True)
        stack.start()
        brief = real_brief(stack)
        check("a real brief was issued and signed", brief is not None)
        contents = signature_contents(brief) if brief else None
        files = {
            name: make(3_000, contents) if name == "many-signatures" else make()
            for name, make in HOSTILE.items()
        }

        print("\n1. each crafted PDF alone", flush=True)
        for name, data in files.items():
            status, seconds, _, _ = upload(stack.url, data)
            print(f"     {name:26s} {len(data) / 1024:7.0f} KiB  HTTP {status}  {seconds:5.2f} s")
            check(
                f"{name}: refused (422) within {ANSWER_WITHIN_S:g} s",
                status == 422 and seconds < ANSWER_WITHIN_S,
            )

        print(
            f"\n2. {args.concurrent} clients uploading back to back for {args.seconds:g} s",
            flush=True,
        )
        latencies: list[float] = []
        answers: list[tuple[int, float, str, str]] = []
        stop = threading.Event()
        names = list(files)

        def attacker(offset: int) -> None:
            sent = offset
            while not stop.is_set():
                answers.append(upload(stack.url, files[names[sent % len(names)]]))
                sent += 1

        threads = [threading.Thread(target=probe_health, args=(stack.url, stop, latencies))]
        threads += [threading.Thread(target=attacker, args=(i,)) for i in range(args.concurrent)]
        for thread in threads:
            thread.start()
        time.sleep(args.seconds)  # the length of the attack, not a wait for a result
        stop.set()
        for thread in threads:
            thread.join()
        statuses = Counter(status for status, _, _, _ in answers)
        times = sorted(seconds for _, seconds, _, _ in answers)
        print(
            f"     {len(answers)} uploads: {dict(sorted(statuses.items()))}; answer median "
            f"{statistics.median(times):.2f} s, slowest {times[-1]:.2f} s"
        )
        finite = sorted(s for s in latencies if s != float("inf"))
        print(
            f"     /health/: {len(latencies)} probes, median {statistics.median(finite) * 1000:.0f}"
            f" ms, 99th percentile {finite[int(len(finite) * 0.99)] * 1000:.0f} ms, slowest "
            f"{max(latencies) * 1000:.0f} ms"
        )
        check("every upload answered 422 or 503", set(statuses) <= {422, 503})
        check(
            "every 503 carries Retry-After",
            all(retry for status, _, retry, _ in answers if status == 503),
        )
        check(f"every upload answered within {ANSWER_WITHIN_S:g} s", times[-1] < ANSWER_WITHIN_S)
        check(f"/health/ answered within {HEALTH_WITHIN_S:g} s", max(latencies) < HEALTH_WITHIN_S)

        print("\n3. a real brief afterwards", flush=True)
        if brief is not None:
            status, seconds, _, page = upload(stack.url, brief)
            print(f"     HTTP {status} in {seconds:.2f} s")
            check(
                "the real brief verifies: intact, unchanged, on record",
                "Signature intact, document unchanged, on record" in page,
            )
        print("\n" + ("PASS" if all(ok for _, ok in CHECKS) else "FAIL"))
        return 0 if all(ok for _, ok in CHECKS) else 1
    finally:
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
