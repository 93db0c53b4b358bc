"""``scripts/serve-production`` supervises web and worker separately.

The finding: in the default start mode a db_worker crash took the web down, and the restart's
``prepare`` (migrations, collectstatic) made a ~40 s outage. Now the script prepares once, then
restarts only the process that exited, without preparing again. It starts as many brief workers
as ``ADVISOR_TASK_WORKERS`` says (issue 33: one worker fell behind).
"""

import os
import re
import shutil
import signal
import time

import pytest
import requests

from tests.support.briefs import signer_env
from tests.support.production_data import SHARED
from tests.support.servers import Server, production_env


def started(output: str) -> dict[str, list[int]]:
    pids: dict[str, list[int]] = {"web": [], "worker": []}
    for kind, pid in re.findall(r"serve-production: started (web|worker) \(pid (\d+)\)", output):
        pids[kind].append(int(pid))
    return pids


def wait_for(condition, timeout: float, what: str, server: Server):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}:\n{server.output()[-3000:]}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.xdist_group(SHARED)  # with the other users of the seeded database
def test_a_dead_worker_or_web_is_restarted_alone_without_preparing_again(
    tmp_path, pki_dir, seeded_sqlite
):
    shutil.copyfile(seeded_sqlite, tmp_path / "db.sqlite3")  # migrated: prepare's is a no-op
    env = production_env(
        tmp_path,
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        WEB_CONCURRENCY="1",
        ADVISOR_TASK_WORKERS="2",
        **signer_env(pki_dir),
        # The manifest and its compressed copies are test_serving.py's; compressing them takes
        # ~14 s of CPU per prepare.
        ADVISOR_STATIC_STORAGE="plain",
    )
    server = Server(env)
    try:
        server.wait_until_up(timeout=240)
        pids = wait_for(
            lambda: len((p := started(server.output()))["worker"]) == 2 and p,
            60,
            "the two workers",
            server,
        )
        web, (worker, other) = pids["web"][0], pids["worker"]
        assert alive(worker) and alive(other), "ADVISOR_TASK_WORKERS=2 started two workers"
        webhooks = re.search(r"serve-production: started webhooks \(pid (\d+)\)", server.output())
        assert webhooks and alive(int(webhooks[1])), "webhooks have a worker of their own"

        os.kill(worker, signal.SIGKILL)  # one worker crashes
        restarted = wait_for(
            lambda: len(started(server.output())["worker"]) == 3, 60, "a new worker", server
        )
        assert restarted
        assert alive(web), "the web kept running"
        assert alive(other), "the other worker kept running"
        assert requests.get(server.url + "/health/", timeout=10).status_code == 200
        new_worker = started(server.output())["worker"][2]
        assert new_worker != worker and alive(new_worker)

        os.kill(web, signal.SIGTERM)  # the web stops
        wait_for(lambda: len(started(server.output())["web"]) == 2, 60, "a new web", server)
        server.wait_until_up(timeout=120)
        assert alive(new_worker), "the worker kept running"

        output = server.output()
        assert output.count("serve-production: preparing") == 1, "prepare ran once only"
        assert f"worker (pid {worker}) exited with status" in output
        assert f"web (pid {web}) exited with status" in output
    finally:
        assert server.stop(timeout=60) in (0, 143, -15)
    assert not any(alive(pid) for pids in started(server.output()).values() for pid in pids)


def test_the_number_of_brief_workers_is_one_setting(tmp_path):
    """settings.BRIEF_WORKERS and the script read ADVISOR_TASK_WORKERS, with one default."""
    import subprocess

    from tests.support.servers import PYTHON, ROOT, SERVE

    script = SERVE.read_text()
    assert 'seq "${ADVISOR_TASK_WORKERS:-$(nproc)}"' in script
    show = "from django.conf import settings; print(settings.BRIEF_WORKERS)"
    for value, expected in (("3", 3), (None, len(os.sched_getaffinity(0)))):
        env = production_env(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite3'}")
        env.pop("ADVISOR_TASK_WORKERS")
        if value:
            env["ADVISOR_TASK_WORKERS"] = value
        env["DJANGO_SETTINGS_MODULE"] = "config.settings"
        done = subprocess.run(
            [str(PYTHON), "-c", "import django; django.setup(); " + show],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert int(done.stdout.strip()) == expected
