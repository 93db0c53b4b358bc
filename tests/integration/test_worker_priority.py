"""The brief worker yields the CPU to page views also when it leads a session of its own
(advisor/brief/priority.py, decision 0079): its autogroup takes its niceness, and a worker
sharing the web's session leaves the group alone."""

import json
import subprocess
from pathlib import Path

from advisor.brief import priority
from tests.support.servers import PYTHON, ROOT

PROBE = """
import json, os
from pathlib import Path
from advisor.brief.priority import AUTOGROUP, yield_to_the_web
done = yield_to_the_web()
group = AUTOGROUP.read_text().strip() if AUTOGROUP.exists() else None
print(json.dumps({"done": done, "group": group}))
"""
AUTOGROUPS = Path("/proc/self/autogroup").exists()  # a kernel built with them


def probe(*, nice: int, own_session: bool) -> dict:
    command = [str(PYTHON), "-c", PROBE]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    result = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        start_new_session=own_session,
    )
    return json.loads(result.stdout)


def test_a_niced_worker_leading_its_own_session_nices_its_autogroup():
    seen = probe(nice=10, own_session=True)
    if AUTOGROUPS:
        assert seen["done"] == priority.AUTOGROUP_NICED
        assert seen["group"].endswith("nice 10")
    else:
        assert seen == {"done": priority.NO_AUTOGROUPS, "group": None}


def test_a_worker_sharing_a_session_leaves_the_group_as_it_is():
    before = priority.AUTOGROUP.read_text().strip() if AUTOGROUPS else None
    seen = probe(nice=10, own_session=False)
    assert seen == {"done": priority.SHARED_SESSION, "group": before}  # this test's group


def test_a_worker_at_normal_priority_changes_nothing():
    assert probe(nice=0, own_session=True)["done"] == priority.NOT_NICED
