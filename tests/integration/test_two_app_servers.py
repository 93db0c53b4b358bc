"""Two app servers and two task workers side by side on one PostgreSQL database.

Nothing lives in one process's memory: a sign-in on one server is valid on the other (database
sessions), briefs issued through both get distinct sequential numbers (the counter row is
locked), the workers share the database queue (each task runs once), and every PDF, stored
through the storage API on the shared MEDIA_ROOT, downloads from either server and verifies.
"""

import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.briefs import signer_env
from tests.support.servers import (
    Server,
    browser_session,
    fresh_postgres_databases,
    log_in,
    manage,
    production_env,
)

pytestmark = pytest.mark.postgres  # deselected off PostgreSQL (tests/conftest.py)

PASSWORD = "two-servers-pass-phrase-7"
BRIEFS_PER_SERVER = 2

SETUP = f"""
import json
from django.contrib.auth.models import User
from advisor.recommendation.services import assessment_results
from advisor.roles import PROCUREMENT_STAFF, ensure_roles
from tests.support.assessments import finished_assessment
buyer = User.objects.create_user("buyer", password="{PASSWORD}")
buyer.groups.add(ensure_roles()[PROCUREMENT_STAFF])
assessment = finished_assessment(buyer)
option = assessment_results(assessment).recommendation.options[0].key
print(json.dumps({{"assessment": assessment.pk, "option": option}}))
"""

WAIT_AND_REPORT = """
import json, time
from advisor.brief.models import Brief, BriefStatus
from django_tasks_db.models import DBTaskResult
deadline = time.monotonic() + 300  # an upper bound for a busy machine
while Brief.objects.filter(status=BriefStatus.GENERATING).exists() and time.monotonic() < deadline:
    time.sleep(0.5)
print(json.dumps({
    "briefs": {b.pk: [b.number, b.status] for b in Brief.objects.all()},
    "tasks": [[t.status, t.worker_ids] for t in DBTaskResult.objects.all()],
}))
"""

VERIFY = """
import json, os, pathlib
from advisor.brief.verification import verify_upload
results = {}
for path in sorted(pathlib.Path(os.environ["VERIFY_DIR"]).glob("*.pdf")):
    v = verify_upload(path.read_bytes())
    results[path.stem] = [v.ok, v.brief.number if v.brief else None]
print(json.dumps(results))
"""

CSRF = re.compile(r'(?:"X-CSRFToken": "|name="csrfmiddlewaretoken" value=")([^"]+)"')


def issue(session, url, form):
    page = session.get(url + "/", timeout=30)
    token = CSRF.search(page.text).group(1)
    response = session.post(
        url + "/brief/issue/",
        data={**form, "csrfmiddlewaretoken": token},
        headers={"Origin": url, "Referer": url + "/"},
        timeout=60,
        allow_redirects=False,
    )
    assert response.status_code == 302, (url, response.status_code, response.text[:300])
    return int(re.search(r"/brief/(\d+)/$", response.headers["Location"]).group(1))


def test_two_app_servers_and_two_workers_share_one_postgresql(tmp_path, pki_dir):
    with fresh_postgres_databases(1) as (database_url,):
        env = production_env(
            tmp_path,
            database_url,
            WEB_CONCURRENCY="1",
            ADVISOR_STATIC_STORAGE="plain",  # the manifest is tested in test_serving.py
            ADVISOR_TASKS_BACKEND="database",
            **signer_env(pki_dir),
        )
        prepare = Server(env, mode="prepare")
        assert prepare.process.wait(300) == 0, prepare.output()  # upper bound, busy machine
        manage(env, "load_catalog")
        setup = json.loads(manage(env, "shell", "-v", "0", "-c", SETUP).stdout)
        form = {**setup, "language": "en"}

        servers = [Server(env, mode="web"), Server(env, mode="web")]
        workers = [Server(env, mode="worker"), Server(env, mode="worker")]
        try:
            for server in servers:
                server.wait_until_up()
            # One sign-in, on the first server; the second accepts the same session cookie.
            session = browser_session()
            log_in(session, servers[0].url, "buyer", PASSWORD)
            urls = [s.url for s in servers for _ in range(BRIEFS_PER_SERVER)]
            with ThreadPoolExecutor(len(urls)) as pool:
                issued = list(pool.map(lambda url: (url, issue(session, url, form)), urls))

            report = json.loads(manage(env, "shell", "-v", "0", "-c", WAIT_AND_REPORT).stdout)
            briefs = report["briefs"]
            assert sorted(int(pk) for pk in briefs) == sorted(pk for _, pk in issued)
            numbers = sorted(number for number, _ in briefs.values())
            year = numbers[0].split("-")[1]
            assert numbers == [f"FT-{year}-{n:06d}" for n in range(1, len(urls) + 1)]
            assert {status for _, status in briefs.values()} == {"awaiting_approval"}
            # Each generation task ran exactly once, on one of the two workers.
            assert len(report["tasks"]) == len(urls)
            assert all(status == "SUCCESSFUL" and len(ids) == 1 for status, ids in report["tasks"])

            # Each PDF downloads from the server that did not issue it, and verifies.
            downloads = tmp_path / "downloads"
            downloads.mkdir()
            for url, pk in issued:
                other = next(s.url for s in servers if s.url != url)
                pdf = session.get(f"{other}/brief/{pk}/download/", timeout=30)
                assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
                (downloads / f"{pk}.pdf").write_bytes(pdf.content)
            verified = json.loads(
                manage(
                    {**env, "VERIFY_DIR": str(downloads)}, "shell", "-v", "0", "-c", VERIFY
                ).stdout
            )
            assert verified == {str(pk): [True, briefs[str(pk)][0]] for _, pk in issued}
        finally:
            for process in servers + workers:
                process.stop()
