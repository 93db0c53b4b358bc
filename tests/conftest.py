"""Suite-wide test settings.

Tests run in production mode (DJANGO_DEBUG unset), except that brief generation runs
immediately instead of through the database worker (tests of the worker switch it back), and
static files are named plainly, without the collected manifest that production serves from
(tests of the production start run collectstatic themselves). The test client and the live
server speak plain HTTP, so the redirect to HTTPS is off here (the security tests check it on,
and run `check --deploy` with the production environment in a subprocess).

No outcome depends on time: the Hypothesis profile "suite" has no deadline and no "too slow"
health check (a busy machine must not fail an example that passes on a quiet one); tests keep
their own ``max_examples``.

Which tests run in which stage of scripts/test
(docs/decisions/0027-test-stages.md): the SQLite stage runs every
test except those marked ``postgres`` (they need PostgreSQL and are deselected, not skipped,
when DATABASE_URL is not PostgreSQL); the PostgreSQL stage runs only the tests marked
``database`` or ``postgres``.
"""

import re

import pytest
from _pytest.nodeid import NodeId
from django.conf import settings as django_settings
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from tests.support.servers import on_postgres_stage
from tests.support.tasks import IMMEDIATE_TASKS

hypothesis_settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
hypothesis_settings.load_profile("suite")


# A set's repr follows the process's hash seed, so a test id holding one differs between the
# xdist workers, which then refuse to run ("Different tests were collected").
SET_REPR = re.compile(r"(?:frozenset|set)\(\{|\{'[^':]*'(?:, '[^':]*')+\}")


def group_suffix(item) -> str:
    """``@NAME`` for a test marked ``xdist_group(NAME)`` (names joined as pytest-xdist does),
    else ""."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "@" + "_".join(sorted(names)) if names else ""


def keep_groups_together(config, items):
    """``--dist loadgroup`` sends the tests of one ``xdist_group`` to one worker by the
    ``@NAME`` its workers append to their ids. pytest-xdist 3.8 appends it to ``item._nodeid``,
    which pytest 9.2 no longer reads (the id is ``item._id``): every group was spread over the
    workers and each started the group's session fixture (a production stack, the seeded
    production data) again. On a loadgroup worker, the suffix is appended here
    (docs/decisions/0080-suite-time.md; test_suite_rules checks a group stays together)."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        suffix = group_suffix(item)
        if suffix and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)


def pytest_collection_finish(session):
    """scripts/test's PostgreSQL stage (the tests marked ``database`` or ``postgres``) balances
    its workers with ``--dist worksteal``, which does not keep an ``xdist_group`` in one worker:
    such a test in a group is refused there."""
    if not on_postgres_stage():
        return
    staged = [
        i
        for i in session.items
        if i.get_closest_marker("database") or i.get_closest_marker("postgres")
    ]
    grouped = [item.nodeid for item in staged if group_suffix(item)]
    if grouped:
        raise pytest.UsageError(
            "the PostgreSQL stage (--dist worksteal) does not keep xdist groups together: "
            + ", ".join(grouped)
        )


def pytest_collection_modifyitems(config, items):
    """Off PostgreSQL, tests marked ``postgres`` are deselected (never reported as skipped).
    Test ids never hold a set's repr (SET_REPR): give such parameters sorted ids."""
    unstable = [item.nodeid for item in items if SET_REPR.search(item.nodeid)]
    if unstable:
        raise pytest.UsageError("test ids that follow the hash seed: " + ", ".join(unstable))
    keep_groups_together(config, items)
    if on_postgres_stage():
        return
    dropped = [item for item in items if item.get_closest_marker("postgres") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item.get_closest_marker("postgres") is None]


@pytest.fixture(autouse=True)
def immediate_tasks(settings):
    settings.TASKS = IMMEDIATE_TASKS


@pytest.fixture(scope="session")
def _verify_slot_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("verify-slots")


@pytest.fixture(autouse=True)
def own_verify_slots(settings, _verify_slot_dir):
    """Verification slots and upload locks of this test process: users and addresses of
    parallel test databases share ids (decisions 0120, 0122 lock per user and per address)."""
    settings.VERIFY_SLOT_DIR = _verify_slot_dir


PLAIN_STATIC_FILES = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    settings.STORAGES = {**settings.STORAGES, "staticfiles": PLAIN_STATIC_FILES}


@pytest.fixture(scope="session", autouse=True)
def plain_http():
    """Session-wide (before the session's live server loads its middleware): no HTTPS redirect."""
    django_settings.SECURE_SSL_REDIRECT = False


# A real password hash (Argon2, settings.PASSWORD_HASHERS) costs about 0.3 s of CPU per password
# set or checked, by design; the suite sets and checks passwords hundreds of times (users,
# sign-ins, the live server's logins). Tests use the fast hasher Django keeps for this purpose;
# the production start, which the suite runs in subprocesses, keeps the real ones
# (test_production_passwords_use_argon2_and_still_accept_pbkdf2).
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing():
    django_settings.PASSWORD_HASHERS = FAST_PASSWORD_HASHERS


@pytest.fixture(autouse=True)
def no_verify_rate_limit(settings):
    """Tests post to the verify page freely; tests of the per-client limit switch it back on."""
    settings.VERIFY_RATE_LIMIT = ""


@pytest.fixture(scope="session")
def pki_dir(tmp_path_factory):
    """A throw-away CA and signer, made once per test session (RSA key generation is slow: ~0.5 s
    of CPU). Tests only read its files; tests of other PKIs (an untrusted CA, a look-alike
    signer) make their own."""
    from tests.support.briefs import make_pki

    directory = tmp_path_factory.mktemp("pki")
    make_pki(directory)
    return directory


@pytest.fixture(scope="session")
def softhsm(tmp_path_factory):
    """SoftHSM's token folder for this test process, with every token the tests use
    (tests.support.softhsm.ALL_LABELS, empty until a test's fixture imports a key).

    SoftHSM lists its tokens once, when a process first loads it, and python-pkcs11 keeps the
    loaded module for the process: the folder and every token are made once per test process
    (session scope), never again. A module-scoped folder was made twice whenever pytest split a
    module (pytest-django runs the database test first, other modules' tests come between):
    the second folder's tokens were invisible to this process, and a subprocess (the deploy
    check) read the second, empty folder."""
    import os

    from tests.support.softhsm import configure_softhsm

    before = os.environ.get("SOFTHSM2_CONF")
    configure_softhsm(tmp_path_factory.mktemp("softhsm"))
    yield
    if before is None:
        os.environ.pop("SOFTHSM2_CONF", None)
    else:
        os.environ["SOFTHSM2_CONF"] = before


@pytest.fixture(scope="session")
def approver_token(softhsm, tmp_path_factory):
    """An approver's own CA and, on the SoftHSM token ``APPROVER_LABEL``, the key and
    certificate it issued to Wang Fang (docs/decisions/0149): ``(pki, token)``. Made once per
    process, as every token is."""
    from advisor.brief.pki import create_pki
    from tests.support.softhsm import APPROVER_LABEL, make_token

    directory = tmp_path_factory.mktemp("approver-token-pki")
    pki = create_pki(directory, "on-the-token", "Approver Org", "Wang Fang", development=False)
    token = make_token(
        pki.signer_pkcs12_path, "on-the-token", label=APPROVER_LABEL, key_label="wang-fang"
    )
    return pki, token


@pytest.fixture
def one_page_briefs(monkeypatch):
    """Briefs rendered as one real page (tests.support.briefs.one_page_brief), for tests of
    what happens to a brief rather than of what it says; signed, stored and verified as ever
    (docs/decisions/0027-test-stages.md)."""
    from advisor.brief import generation
    from tests.support.briefs import one_page_brief

    monkeypatch.setattr(generation, "render_pdf", one_page_brief)


@pytest.fixture(autouse=True)
def fresh_recommendation_memory():
    """Each test starts with an empty per-process memory of computed recommendations: a test
    never reads a result another test computed (the seeded catalog of tests/support/catalog.py
    is the same from test to test, so the key alone would not keep them apart), and with no
    catalog reads kept from another test (docs/decisions/0050)."""
    from advisor.catalog import cache as catalog_cache
    from advisor.recommendation import services

    services._LOCAL_RUNS.clear()
    catalog_cache.forget()


@pytest.fixture(autouse=True)
def no_language_left_active():
    """A test that activates a language (a command, a page, a brief in Chinese) leaves none
    behind: the next test on this worker starts in the default language, whatever ran before."""
    yield
    from django.utils import translation

    translation.deactivate()
