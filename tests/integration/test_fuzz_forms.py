"""Fuzzing: random and hostile form posts, query strings and uploads never give a server error.

Every wizard step, the check page, the buyer's figures, the results query parameters, sign-in, the
brief issue and review forms and both uploads (config.json, PDF to verify) receive values
drawn by hypothesis: huge and negative numbers, NaN and infinity spelled out, right-to-left
text and emoji, empty values, NUL bytes, very long strings, several values where one is
expected, files where text is expected, random bytes, truncated and corrupted real PDFs.
Each response must be below 500 and Django must not log an ``ERROR`` on ``django.request``
(the test client is built with ``raise_request_exception=False`` so a crash shows up as a
500 response instead of aborting the example). Examples per target are kept modest so the
whole module runs in well under a minute.
"""

from __future__ import annotations

import json
import logging

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.assessments.answers import assessment_document
from advisor.assessments.models import Assessment
from advisor.brief import services as brief_services
from advisor.brief.models import Brief, BriefStatus
from advisor.roles import APPROVER, PROCUREMENT_STAFF, ensure_roles
from advisor.wizard import steps
from tests.support.assessments import finished_assessment
from tests.support.briefs import make_signed_pdf
from tests.support.catalog import load_catalog
from tests.support.servers import on_postgres_stage

# Both stages (marker `database`): hostile text (NUL bytes, long values) meets the database.
pytestmark = [pytest.mark.django_db, pytest.mark.database]

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=False,
)
MORE = settings(FUZZ, max_examples=40)

# Values a careless or hostile client sends; mixed with generated ones below.
HOSTILE = [
    "",
    " ",
    "0",
    "-0",
    "-1",
    "1",
    "2",
    "-99999999999999999999999",
    "9" * 30,
    "9" * 400,
    "9" * 5000,
    "1e309",
    "-1e309",
    "1e-400",
    "1E+999999999",
    "NaN",
    "nan",
    "-nan",
    "sNaN",
    "inf",
    "-inf",
    "Infinity",
    "-Infinity",
    "1.5",
    "3.",
    ".5",
    "1,000",
    "1_000",
    "0x10",
    "١٢٣",  # Arabic-Indic digits: int() accepts them
    "１２３",  # full-width digits
    "\u202eevil\u202c",  # right-to-left override
    "مرحبا بالعالم",
    "שלום",
    "😀🔥" * 20,
    "👨‍👩‍👧‍👦",
    "\x00",
    "a\x00b",
    "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
    "null",
    "None",
    "true",
    "on",
    "yes",
    "[]",
    "{}",
    '{"a": 1}',
    "<script>alert(1)</script>",
    "'; DROP TABLE wizard_assessment; --",
    "%s %d %(x)s {0} {x}",
    "../../../../etc/passwd",
    "a" * 20_000,
    "2027-02-30",
    "0000-01-01",
    "0001-01-01",
    "9999-12-31",
    "99999-01-01",
    "-2027-01-01",
    "2027-13-01",
    "\r\n\t",
]

text_values = st.text(max_size=40)
number_values = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.integers(min_value=-5, max_value=100_000).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
)
scalar = st.one_of(st.sampled_from(HOSTILE), text_values, number_values)


def value_for(valid: list[str]):
    """One field's posted value: usually scalar, sometimes several (a list), often valid."""
    one = st.one_of(st.sampled_from(valid), scalar) if valid else scalar
    return st.one_of(one, st.lists(one, min_size=0, max_size=4))


def valid_values(field) -> list[str]:
    """Values the field accepts (choice values), so that examples also get past validation."""
    choices = getattr(field, "choices", None)
    if choices:
        return [str(value) for value, _label in choices if not isinstance(_label, list | tuple)]
    return []


@st.composite
def post_data(draw, form, extra: dict | None = None, base: dict | None = None):
    """A POST dictionary for ``form``: mostly ``base`` (valid answers) with a few fields
    replaced or dropped, otherwise any subset of fields with random values; plus a few
    unknown keys. ``extra``: strategies for keys that are not form fields (version, next)."""
    fields = {name: value_for(valid_values(field)) for name, field in form.fields.items()}
    fields.update(extra or {})
    if base is None or draw(st.integers(min_value=0, max_value=3)) == 0:
        posted = draw(st.fixed_dictionaries({}, optional=fields))
    else:
        posted = dict(base)
        # Every draw is made whatever ``base`` holds: the stored answers change between
        # examples, and hypothesis needs the same draws for the same choices.
        for name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=3, unique=True)):
            drop = draw(st.integers(min_value=0, max_value=3)) == 0
            value = draw(fields[name])
            if drop:
                posted.pop(name, None)
            else:
                posted[name] = value
    posted.update(draw(st.dictionaries(st.text(min_size=1, max_size=12), scalar, max_size=2)))
    return posted


def as_post(stored: dict) -> dict:
    """Stored answers as a browser would post them (lists stay lists for the test client)."""
    return {
        name: values if len(values) != 1 else values[0]
        for name, values in steps._as_post(stored).lists()
    }


# --- Fixtures and checks -----------------------------------------------------------------


@pytest.fixture
def seeded():
    load_catalog()
    ensure_roles()


@pytest.fixture
def buyer(seeded):
    user = User.objects.create_user("fuzz-buyer", password="pw")
    user.groups.add(*_groups(PROCUREMENT_STAFF))
    return user


def _groups(*names):
    from django.contrib.auth.models import Group

    return Group.objects.filter(name__in=names)


@pytest.fixture
def browser(buyer):
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(buyer)
    return client


class Checked:
    """Sends requests and asserts each was handled: below 500, no django.request ERROR."""

    def __init__(self, client: Client, caplog):
        self.client, self.caplog = client, caplog

    def _check(self, response, what):
        errors = [
            r
            for r in self.caplog.records
            if r.name == "django.request" and r.levelno >= logging.ERROR
        ]
        self.caplog.clear()
        assert response.status_code < 500, f"{what}: {response.status_code}"
        assert not errors, f"{what}: {errors[0].getMessage()}"
        return response

    def get(self, url, params=None):
        return self._check(self.client.get(url, params or {}), f"GET {url} {params!r}"[:2000])

    def post(self, url, data, **kw):
        return self._check(self.client.post(url, data, **kw), f"POST {url} {data!r}"[:2000])

    def raw(self, url, body: bytes, content_type: str):
        """A body sent as is (``post`` would re-encode it to the content type's charset)."""
        response = self.client.generic("POST", url, body, content_type=content_type)
        return self._check(response, f"POST {url} {content_type} {body[:200]!r}")


@pytest.fixture
def checked(browser, caplog):
    caplog.set_level(logging.WARNING, logger="django.request")
    return Checked(browser, caplog)


def _version_value(draw_value, assessment):
    """``"CURRENT"`` stands for the assessment's version at the time of posting."""
    if draw_value == "CURRENT":
        assessment.refresh_from_db()
        return str(assessment.version)
    return draw_value


VERSION = st.one_of(st.just("CURRENT"), st.just("CURRENT"), st.just("CURRENT"), scalar)


# --- Wizard steps, check answers, rename --------------------------------------------------


@pytest.mark.parametrize("slug", [step.slug for step in steps.STEPS])
@FUZZ
@given(data=st.data())
def test_wizard_steps_never_fail_on_hostile_posts(slug, data, buyer, checked):
    assessment = _assessment(buyer)
    step = steps.get(slug)
    form = step.form(assessment.answers)
    extra = {
        "version": VERSION,
        "next": st.sampled_from(["check", "", "elsewhere"]),
        "preview": st.just("1"),
        "save_and_exit": st.just("1"),
    }
    base = {**as_post(assessment.answers[slug]), "version": "CURRENT"}
    posted = data.draw(post_data(form, extra, base), label="post")
    if "version" in posted:
        posted["version"] = _version_value(posted["version"], assessment)
    url = reverse("wizard:step", args=[assessment.pk, slug])
    response = checked.post(url, posted)
    if response.status_code == 302:  # saved: every page reading the answers still works
        checked.get(reverse("wizard:check", args=[assessment.pk]))
        checked.get(reverse("wizard:task_list", args=[assessment.pk]))
        checked.get(url)
    if step.live_estimate:
        checked.post(reverse("wizard:estimate", args=[assessment.pk, slug]), posted)


def _assessment(user) -> Assessment:
    """The fuzzed draft: one per test, finished so that every step applies."""
    existing = Assessment.objects.filter(owner=user).first()
    return existing or finished_assessment(user)


CONFIG_BASE = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 32000,
}
CRAFTED_CONFIGS = [
    b"",
    b"\xef\xbb\xbf" + json.dumps(CONFIG_BASE).encode(),
    json.dumps(CONFIG_BASE).encode("utf-16"),
    json.dumps({**CONFIG_BASE, "head_dim": 10**300}).encode(),
    json.dumps({**CONFIG_BASE, "head_dim": 10**310}).encode(),  # overflowed the float count
    json.dumps({**CONFIG_BASE, "hidden_size": 10**300}).encode(),
    json.dumps({**CONFIG_BASE, "num_hidden_layers": 1e308}).encode(),
    json.dumps({**CONFIG_BASE, "vocab_size": 1.5}).encode(),
    json.dumps({**CONFIG_BASE, "num_local_experts": 8}).encode(),
    json.dumps({"text_config": {**CONFIG_BASE, "head_dim": -1}}).encode(),
    json.dumps({**CONFIG_BASE, "_name_or_path": ["x"] * 3}).encode(),
    b'{"num_hidden_layers": NaN}',
    b'{"num_hidden_layers": Infinity}',
    b'{"num_hidden_layers": 1' + b"0" * 5000 + b"}",
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a": "' + b"x" * (300 * 1024) + b'"}',
    b"\x00" * 64,
]


@st.composite
def config_files(draw):
    """config.json uploads: random bytes, random JSON, and crafted hostile documents."""
    json_values = st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(10**40), max_value=10**40)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=10), children, max_size=4)
        ),
        max_leaves=10,
    )
    key_names = st.sampled_from(
        [
            "num_hidden_layers",
            "hidden_size",
            "num_attention_heads",
            "num_key_value_heads",
            "intermediate_size",
            "vocab_size",
            "num_local_experts",
            "num_experts_per_tok",
            "max_position_embeddings",
            "head_dim",
            "tie_word_embeddings",
            "_name_or_path",
            "model_type",
            "text_config",
        ]
    )
    kind = draw(st.sampled_from(["bytes", "mutated", "json", "crafted"]))
    if kind == "bytes":
        content = draw(st.binary(max_size=2000))
    elif kind == "mutated":
        doc = dict(CONFIG_BASE)
        doc.update(draw(st.dictionaries(key_names, json_values, max_size=5)))
        content = json.dumps(doc).encode()
    elif kind == "json":
        content = json.dumps(draw(json_values)).encode()
    else:
        content = draw(st.sampled_from(CRAFTED_CONFIGS))
    name = draw(st.sampled_from(["config.json", "", "x" * 300, "конфиг.json", "../../a.json"]))
    return SimpleUploadedFile(name or "upload", content, content_type="application/json")


@FUZZ
@given(data=st.data())
def test_config_upload_never_fails(data, buyer, checked):
    assessment = _assessment(buyer)
    assessment.refresh_from_db()
    posted = {
        "source": data.draw(st.sampled_from(["upload", "upload", "custom", ""]), label="source"),
        "method": data.draw(st.sampled_from(["lora", "full", "qlora"]), label="method"),
        "version": str(assessment.version),
        "config_file": data.draw(config_files(), label="config"),
    }
    url = reverse("wizard:step", args=[assessment.pk, "model"])
    response = checked.post(url, posted)
    if response.status_code == 302:
        checked.get(reverse("wizard:check", args=[assessment.pk]))
        checked.get(url)


@pytest.mark.parametrize("content", CRAFTED_CONFIGS, ids=range(len(CRAFTED_CONFIGS)))
def test_crafted_config_uploads_are_answered_not_crashed(content, buyer, checked):
    """Every crafted file, every time (hypothesis samples them only now and then)."""
    assessment = _assessment(buyer)
    upload = SimpleUploadedFile("config.json", content, content_type="application/json")
    posted = {"source": "upload", "method": "lora", "version": str(assessment.version)}
    response = checked.post(
        reverse("wizard:step", args=[assessment.pk, "model"]), {**posted, "config_file": upload}
    )
    assert response.status_code in (200, 302)


def test_a_huge_head_dim_is_explained(buyer, checked):
    """Regression: head_dim 10**310 made the parameter count overflow a float (a 500)."""
    assessment = _assessment(buyer)
    config = json.dumps({**CONFIG_BASE, "head_dim": 10**310}).encode()
    response = checked.post(
        reverse("wizard:step", args=[assessment.pk, "model"]),
        {
            "source": "upload",
            "method": "lora",
            "version": str(assessment.version),
            "config_file": SimpleUploadedFile("config.json", config),
        },
    )
    assert response.status_code == 200
    assert "“head_dim” is 1000" in response.content.decode()
    assert "it must be between 1 and 131,072" in response.content.decode()


@FUZZ
@given(data=st.data())
def test_check_and_rename_never_fail(data, buyer, checked):
    assessment = _assessment(buyer)
    posted = data.draw(
        st.fixed_dictionaries({}, optional={"version": VERSION, "title": value_for([])}),
        label="post",
    )
    if "version" in posted:
        posted["version"] = _version_value(posted["version"], assessment)
    checked.post(reverse("wizard:rename", args=[assessment.pk]), posted)
    checked.post(reverse("wizard:check", args=[assessment.pk]), posted)


# --- Results: query parameters and the buyer's figures ------------------------------------


@MORE
@given(data=st.data())
def test_results_query_parameters_never_fail(data, buyer, checked):
    assessment = _assessment(buyer)
    params = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "ranking": value_for(["recommended", "fastest", "cheapest", "compliance", "all"]),
                "sort": value_for(["rank", "cost", "time", "memory", "compliance"]),
                "option": value_for([]),
            },
        ),
        label="params",
    )
    checked.get(reverse("results:list", args=[assessment.pk]), params)
    checked.get(reverse("results:compare", args=[assessment.pk]), params)
    key = data.draw(st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=30)))
    key = key.replace("/", "") or "x"
    checked.get(reverse("results:option", args=[assessment.pk, key]))


@FUZZ
@given(data=st.data())
def test_figures_form_never_fails(data, buyer, checked):
    assessment = _assessment(buyer)
    url = reverse("results:figures", args=[assessment.pk])
    form = checked.get(url).context["form"]
    posted = data.draw(post_data(form, {"version": VERSION}, {"version": "CURRENT"}), label="post")
    if "version" in posted:
        posted["version"] = _version_value(posted["version"], assessment)
    response = checked.post(url, posted)
    if response.status_code == 302:
        checked.get(reverse("results:list", args=[assessment.pk]))
        checked.get(url)


# --- Briefs: issue, review, verify --------------------------------------------------------


@pytest.fixture
def queued_tasks(settings):
    """Issue without rendering: the brief is queued on the dummy backend (kept fast)."""
    settings.TASKS = {
        "default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend", "QUEUES": ["default"]}
    }


@FUZZ
@given(data=st.data())
def test_brief_issue_form_never_fails(data, buyer, checked, queued_tasks):
    assessment = _assessment(buyer)
    keys = [o["key"] for o in _options(assessment)]
    posted = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "assessment": value_for([str(assessment.pk)]),
                "option": value_for(keys[:3]),
                "language": value_for(["zh-hans", "en"]),
            },
        ),
        label="post",
    )
    checked.post(reverse("brief:issue"), posted)


def _options(assessment):
    from advisor.recommendation.services import assessment_results

    return [{"key": o.key} for o in assessment_results(assessment).recommendation.options]


@pytest.fixture
def awaiting_brief(brief_ready, one_page_briefs, buyer, django_capture_on_commit_callbacks):
    """A real brief awaiting approval (rendered and signed once)."""
    assessment = finished_assessment(buyer, title="Reviewed")
    with django_capture_on_commit_callbacks(execute=True):
        brief = brief_services.issue_brief(
            user=buyer,
            document=assessment_document(assessment),
            language="en",
            assessment=assessment,
            inputs=assessment.answers,
        )
    brief.refresh_from_db()
    assert brief.status == BriefStatus.AWAITING_APPROVAL
    return brief


@FUZZ
@given(data=st.data())
def test_brief_review_form_never_fails(data, awaiting_brief, caplog):
    approver = User.objects.get_or_create(username="fuzz-approver")[0]
    approver.groups.add(*_groups(APPROVER))
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(approver)
    checked = Checked(client, caplog)
    caplog.set_level(logging.WARNING, logger="django.request")
    posted = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "decision": value_for(["send_back", "send_back", "approve"]),
                "comment": value_for([]),
            },
        ),
        label="post",
    )
    checked.post(reverse("brief:review", args=[awaiting_brief.pk]), posted)
    checked.get(reverse("brief:detail", args=[awaiting_brief.pk]))
    # Reset for the next example: the brief awaits approval again unless it was approved.
    Brief.objects.filter(pk=awaiting_brief.pk, status=BriefStatus.SENT_BACK).update(
        status=BriefStatus.AWAITING_APPROVAL
    )


@pytest.fixture(scope="module")
def real_pdf(pki_dir):
    return make_signed_pdf(pki_dir).signed


@st.composite
def pdf_uploads(draw, real: bytes):
    kind = draw(st.sampled_from(["random", "pdf-prefix", "truncated", "corrupted", "spliced"]))
    if kind == "random":
        content = draw(st.binary(max_size=4000))
    elif kind == "pdf-prefix":
        content = b"%PDF-1.7\n" + draw(st.binary(max_size=4000))
    elif kind == "truncated":
        content = real[: draw(st.integers(min_value=0, max_value=len(real)))]
    elif kind == "corrupted":
        content = bytearray(real)
        for _ in range(draw(st.integers(min_value=1, max_value=20))):
            at = draw(st.integers(min_value=0, max_value=len(content) - 1))
            content[at] = draw(st.integers(min_value=0, max_value=255))
        content = bytes(content)
    else:
        cut = draw(st.integers(min_value=0, max_value=len(real)))
        content = real[:cut] + draw(st.binary(max_size=500)) + real[cut:]
    name = draw(st.sampled_from(["brief.pdf", "x" * 300, "简报.pdf", "a.exe", ""]))
    return SimpleUploadedFile(name or "upload", content, content_type="application/pdf")


# Each upload is checked in a child process (the verify page's sandbox, ~0.5 s each): 20
# examples here, 5 on the PostgreSQL stage (the database only looks the brief up there); the
# crafted hostile PDFs have their own tests (test_verify_bounds).
@settings(FUZZ, max_examples=5 if on_postgres_stage() else 20)
@given(data=st.data())
def test_verify_upload_never_fails(data, seeded, real_pdf, pki_dir, settings, caplog):
    from tests.support.briefs import signing_settings

    settings.BRIEF_SIGNING = signing_settings(pki_dir)
    caplog.set_level(logging.WARNING, logger="django.request")
    checked = Checked(Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en"), caplog)
    upload = data.draw(pdf_uploads(real_pdf), label="pdf")
    extra = data.draw(st.dictionaries(st.sampled_from(["pdf", "x"]), scalar, max_size=2))
    checked.post(reverse("brief:verify"), {**extra, "pdf": upload})


# --- Raw bodies: broken multipart, wrong content types ------------------------------------


@settings(FUZZ, max_examples=15)
@given(
    body=st.one_of(
        st.binary(max_size=2000),
        st.just(b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n'),
    ),
    content_type=st.sampled_from(
        [
            "multipart/form-data; boundary=x",
            "multipart/form-data",
            "multipart/form-data; boundary=" + "b" * 300,
            "application/x-www-form-urlencoded",
            "application/json",
            "text/plain; charset=utf-32",
            "application/x-www-form-urlencoded; charset=no-such-charset",
        ]
    ),
)
def test_raw_bodies_never_fail(body, content_type, buyer, checked):
    assessment = _assessment(buyer)
    for url in (
        reverse("wizard:step", args=[assessment.pk, "model"]),
        reverse("results:figures", args=[assessment.pk]),
        reverse("brief:verify"),
        reverse("brief:issue"),
    ):
        checked.raw(url, body, content_type)


@settings(FUZZ, max_examples=10)
@given(
    posted=st.fixed_dictionaries(
        {}, optional={"username": value_for(["fuzz-buyer"]), "password": value_for(["pw"])}
    )
)
def test_sign_in_form_never_fails(posted, buyer, caplog):
    """Sign-in (with the lockout's attempt records) takes any name and password."""
    caplog.set_level(logging.WARNING, logger="django.request")
    checked = Checked(Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en"), caplog)
    checked.post(reverse("login"), posted)
