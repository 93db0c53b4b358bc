"""Load mix of the production probe, for locust: the wizard, results, option, comparison,
own figures and issuing briefs, as procurement staff with 1-2 s think time.

Against a running production start (``scripts/serve-production``, PostgreSQL, a brief worker)
whose database has the users ``loadbuyer00``..``loadbuyerNN`` (procurement staff, password
``load-bench-password-1``; ``bench/_stack.py``'s ``Stack`` creates them, as does the shell
snippet in its ``_create_users``)::

    .venv/bin/locust -f bench/locustfile.py --host http://127.0.0.1:8000 \\
        --headless -u 20 -r 5 -t 3m --csv var/locust-20

The request names are the page kinds (``results``, ``option``, ``compare``, …), so locust's
table gives p50/p95/p99 per page and requests/s. The ratio of tasks follows the probe: walking
the wizard once per user, then mostly reading results, options and comparisons, sometimes own
figures, rarely a brief. Every page, the wizard's and the sign-in's too, is followed by the
same 1-2 s a person takes to read it or fill it in. Latency measured on a shared machine (other
jobs, locust itself on the same cores) is not representative of a dedicated server; CPU ms per
request (``bench/cpu_per_request.py``) is.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import sys
import time
from pathlib import Path

from locust import HttpUser, between, events, task

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stack import OPTION_LINK, PASSWORD, STEP_VALUES, VERSION  # noqa: E402

USERS = int(os.environ.get("LOCUST_BUYERS", "50"))
# Every request as a line ``start (epoch s),name,response ms,failed`` when set: bench/locust_run.py
# reads it to tell the ramp (users signing in, walking the wizard) from the steady state.
REQUEST_LOG = os.environ.get("LOCUST_REQUEST_LOG")
_numbers = itertools.count()
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class Buyer(HttpUser):
    wait_time = between(1, 2)

    def on_start(self):
        self.username = f"loadbuyer{next(_numbers) % USERS:02d}"
        self.client.headers.update({"Accept-Language": "en", "Origin": self.host})
        self.pk = None
        self.keys: list[str] = []
        page = self.get("/accounts/login/", name="sign-in page")
        assert page.status_code == 200
        self.wait()  # typing the name and password
        self.post("/accounts/login/", {"username": self.username, "password": PASSWORD}, "sign in")
        self.wait()
        self.walk_wizard()

    def plain(self):
        """Production cookies are Secure; on plain-HTTP loopback send them back all the same."""
        for cookie in self.client.cookies:
            cookie.secure = False

    def get(self, path, name, **kw):
        self.plain()
        return self.client.get(path, name=name, **kw)

    def post(self, path, data, name, **kw):
        self.plain()
        data = {**data, "csrfmiddlewaretoken": self.client.cookies.get("csrftoken", "")}
        return self.client.post(
            path,
            data=data,
            name=name,
            headers={"Referer": self.host + path},
            allow_redirects=False,
            **kw,
        )

    def walk_wizard(self):
        created = self.post("/assessments/new/", {}, "create")
        if created.status_code != 302:
            return
        self.pk = int(created.headers["Location"].rstrip("/").split("/")[-1])
        base = f"/assessments/{self.pk}"
        self.get(f"{base}/", name="task list")
        self.wait()
        for slug, values in STEP_VALUES.items():
            page = self.get(f"{base}/{slug}/", name=f"step {slug}")
            self.wait()  # reading the step and filling it in
            version = VERSION.search(page.text).group(1)
            self.post(f"{base}/{slug}/", {**values, "version": version}, f"save {slug}")
            self.wait()
        check = self.get(f"{base}/check/", name="check")
        self.wait()
        self.post(f"{base}/check/", {"version": VERSION.search(check.text).group(1)}, "confirm")
        self.wait()
        self.results()

    def results(self):
        page = self.get(f"/assessments/{self.pk}/results/", name="results")
        self.keys = list(dict.fromkeys(OPTION_LINK.findall(page.text)))[:3]

    @task(6)
    def read_results(self):
        if self.pk:
            self.results()

    @task(4)
    def option(self):
        if self.keys:
            key = random.choice(self.keys)
            self.get(f"/assessments/{self.pk}/results/option/{key}/", name="option")

    @task(2)
    def compare(self):
        if len(self.keys) >= 2:
            query = "&".join(f"option={k}" for k in self.keys)
            self.get(f"/assessments/{self.pk}/results/compare/?{query}", name="compare")

    @task(2)
    def figures(self):
        if self.pk:
            self.get(f"/assessments/{self.pk}/results/figures/", name="own figures")

    @task(1)
    def wizard_step(self):
        if self.pk:
            self.get(f"/assessments/{self.pk}/training/", name="step training")

    @task(1)
    def issue_brief(self):
        if self.keys and random.random() < 0.2:
            data = {"assessment": str(self.pk), "option": self.keys[0], "language": "en"}
            issued = self.post("/brief/issue/", data, "issue brief")
            if issued.status_code == 302 and "/brief/" in issued.headers.get("Location", ""):
                self.get(issued.headers["Location"], name="brief page")


if REQUEST_LOG:
    _request_log = open(REQUEST_LOG, "a", encoding="utf-8")  # noqa: SIM115 (closed on quit)

    @events.request.add_listener
    def _log_request(name, response_time, exception, start_time=None, **_):
        started = start_time if start_time is not None else time.time() - response_time / 1000
        _request_log.write(f"{started:.3f},{name},{response_time:.1f},{int(bool(exception))}\n")

    @events.quitting.add_listener
    def _close_request_log(**_):
        _request_log.close()


def main() -> None:
    """Run directly, the file only explains itself: locust runs it (see the docstring)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="locustfile.py",
        description="Load mix for locust; run it with `.venv/bin/locust -f bench/locustfile.py "
        "--host URL --headless -u 20 -r 5 -t 3m` against a production start.",
    )
    parser.parse_args()
    parser.print_help()


if __name__ == "__main__":
    main()
