"""Fuzzing the HTTP API: hostile scenario documents, bodies and parameters get a 400 naming the
field (``{"errors": [{"field": ..., "message": ...}]}``), never a server error.

Documents start from the standard job (one data center, so that a document that survives the
changes is ranked quickly) with a few fields at any depth replaced by hostile JSON: huge and
negative numbers, NaN spelled out, booleans where numbers go, text where objects go, deep
nesting, right-to-left text and NUL bytes; or are random JSON altogether, or not JSON. Each
response must be 200, 201 or 400 (a 400 with at least one error, every error naming a
field), and Django must not log an ``ERROR`` on ``django.request``.
"""

from __future__ import annotations

import copy
import json
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.roles import PROCUREMENT_STAFF
from tests.integration.test_fuzz_forms import HOSTILE
from tests.support.api import api_client
from tests.support.catalog import load_catalog
from tests.support.scenarios import scenario
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.database]

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
BASE = scenario(
    site={"data_centers": ["example-guian"]},
    procurement={"modes": ["cloud"], "usage": "once"},
)

json_scalar = st.one_of(
    st.sampled_from(HOSTILE),
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def paths(document, prefix=()):
    """Every path into the document (keys of objects, indexes of lists)."""
    yield prefix
    if isinstance(document, dict):
        for key, value in document.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from paths(value, (*prefix, index))


PATHS = [p for p in paths(BASE) if p]


@st.composite
def documents(draw):
    """Mostly the standard job with one to three values replaced (or removed), sometimes
    random JSON, sometimes a body that is not a document at all."""
    kind = draw(st.integers(min_value=0, max_value=9))
    if kind == 0:
        return json.dumps(draw(json_value)).encode()
    if kind == 1:
        return draw(st.sampled_from(HOSTILE)).encode("utf-8", "surrogatepass")
    document = copy.deepcopy(BASE)
    for path in draw(st.lists(st.sampled_from(PATHS), min_size=1, max_size=3)):
        parent = document
        try:
            for key in path[:-1]:
                parent = parent[key]
            if draw(st.integers(min_value=0, max_value=5)) == 0 and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = draw(json_value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change replaced a parent of this path
    return json.dumps(document).encode()


@pytest.fixture
def api(caplog, settings):
    settings.API_RATE_LIMIT = ""  # hundreds of requests a minute from one token here
    load_catalog()
    caplog.set_level(logging.WARNING, logger="django.request")
    return api_client(make_user("fuzz-buyer", PROCUREMENT_STAFF))


def check(response, caplog, what):
    logged = [
        r for r in caplog.records if r.name == "django.request" and r.levelno >= logging.ERROR
    ]
    caplog.clear()
    assert not logged, f"{what}: {logged[0].getMessage()}"
    assert response.status_code in (200, 201, 400), f"{what}: {response.status_code}"
    if response.status_code == 400:
        errors = response.json()["errors"]
        assert errors and all(e["field"] and e["message"] for e in errors), what


@pytest.mark.parametrize("url", ["/api/size", "/api/recommend", "/api/assessments"])
@FUZZ
@given(body=documents())
def test_hostile_documents_get_400s_naming_the_field(api, caplog, url, body):
    response = api.generic("POST", url, body, content_type="application/json")
    check(response, caplog, f"POST {url} {body[:300]!r}")


@FUZZ
@given(
    query=st.dictionaries(
        st.sampled_from(["accelerator", "gpus", "server", "allow_offload", "language", "title"]),
        st.sampled_from(HOSTILE),
        max_size=3,
    )
)
def test_hostile_parameters_get_400s_naming_the_field(api, caplog, query):
    for url in ("/api/size", "/api/assessments"):
        response = api.post(
            url + "?" + "&".join(f"{k}={v!s:.300}" for k, v in query.items()).replace("#", ""),
            json.dumps(BASE),
            content_type="application/json",
        )
        check(response, caplog, f"POST {url} {query!r}")


@FUZZ
@given(
    path_id=st.sampled_from(HOSTILE),
    issue=st.dictionaries(
        st.sampled_from(["option", "language", "computed"]), json_value, max_size=3
    ),
)
def test_hostile_ids_and_issue_requests_are_refused(api, caplog, path_id, issue):
    for url in (f"/api/assessments/{path_id}", f"/api/briefs/{path_id}/snapshot"):
        response = api.get(url.replace("?", "").replace("#", ""))
        assert response.status_code in (400, 404), (url, response.status_code)
    response = api.post("/api/assessments/1/briefs", json.dumps(issue), "application/json")
    assert response.status_code in (400, 404), (issue, response.status_code)
