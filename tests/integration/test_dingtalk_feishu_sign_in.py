"""DingTalk and Feishu company sign-in (django-allauth's providers): each on only when its
settings are given, its button on the sign-in page in both languages, the round trip to the
provider and back with the provider's token, user-info and contact-directory endpoints answered
in the test (a stand-in for allauth's HTTP session). Without a department mapping the roles of
people signing in this way are given by an administrator and a sign-in never takes them away;
with one, their departments in the company directory give the roles at every sign-in."""

from __future__ import annotations

import copy
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from advisor.roles import APPROVER, CATALOG_ADMIN, PROCUREMENT_STAFF, ensure_roles
from advisor.sso.adapters import CompanySignInAdapter
from config.settings.security import app_providers

pytestmark = pytest.mark.django_db

DINGTALK = {
    "provider": "dingtalk",
    "client_id": "ding-client-7",
    "authorize": "https://login.dingtalk.com/oauth2/auth",
    "id_param": "client_id",
    "button": ("Sign in with DingTalk", "使用钉钉登录"),
}
FEISHU = {
    "provider": "feishu",
    "client_id": "cli_feishu_7",
    "authorize": "https://open.feishu.cn/open-apis/authen/v1/index",
    "id_param": "app_id",
    "button": ("Sign in with Feishu", "使用飞书登录"),
}
SECRET = "provider-secret-1"


class Answer:
    def __init__(self, body: dict):
        self.body = body
        self.status_code = 200
        self.content = repr(body).encode()

    def json(self):
        return copy.deepcopy(self.body)  # the client changes what it gets

    def raise_for_status(self):
        pass


class FakeProvider:
    """The provider's token and user-info endpoints: each request is recorded and answered
    from ``answers`` (URL -> JSON body); any other URL fails the test."""

    def __init__(self, answers: dict[str, dict]):
        self.answers = answers
        self.requests: list[tuple[str, str, dict]] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def request(self, method, url, **kwargs):
        self.requests.append((method, url, kwargs))
        assert url in self.answers, f"unexpected request to {url}"
        return Answer(self.answers[url])

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)


DINGTALK_ANSWERS = {
    "https://api.dingtalk.com/v1.0/oauth2/userAccessToken": {
        "accessToken": "ding-access",
        "refreshToken": "ding-refresh",
        "expireIn": 7200,
    },
    "https://api.dingtalk.com/v1.0/contact/users/me": {
        "nick": "zhang.min",
        "openId": "ding-open-42",
        "unionId": "ding-union-42",
        "email": "zhang.min@example.cn",
    },
}
FEISHU_ANSWERS = {
    "https://open.feishu.cn/open-apis/auth/v3/app_access_token/internal/": {
        "code": 0,
        "app_access_token": "feishu-app-token",
    },
    "https://open.feishu.cn/open-apis/authen/v1/access_token": {
        "code": 0,
        "data": {"access_token": "feishu-user-token", "expires_in": 7200},
    },
    "https://open.feishu.cn/open-apis/authen/v1/user_info": {
        "code": 0,
        "data": {"name": "zhang.min", "open_id": "ou_42", "email": "zhang.min@example.cn"},
    },
}


@pytest.fixture(params=[DINGTALK, FEISHU], ids=["dingtalk", "feishu"])
def configured(request, settings):
    case = request.param
    settings.SOCIALACCOUNT_PROVIDERS = app_providers(case["provider"], case["client_id"], SECRET)
    return case


def start(client: Client, case: dict) -> dict:
    """Post the button's form: the provider's authorize URL, its query as a dict."""
    response = client.post(reverse(f"{case['provider']}_login"))
    assert response.status_code == 302, response.content
    authorize = urlsplit(response["Location"])
    assert f"{authorize.scheme}://{authorize.netloc}{authorize.path}" == case["authorize"]
    return {k: v[0] for k, v in parse_qs(authorize.query).items()}


def test_the_button_in_both_languages_and_the_redirect_to_the_provider(configured):
    client = Client()
    english, chinese = configured["button"]
    assert english in client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert chinese in page
    query = start(client, configured)
    assert query[configured["id_param"]] == configured["client_id"]
    assert len(query["state"]) >= 8
    callback = reverse(f"{configured['provider']}_callback")
    assert urlsplit(query["redirect_uri"]).path == callback


def test_without_its_settings_no_button_and_no_login_page(settings):
    settings.SOCIALACCOUNT_PROVIDERS = {}
    page = Client().get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "DingTalk" not in page and "Feishu" not in page and "Sign in with" not in page
    for provider in ("dingtalk", "feishu"):
        assert Client().post(reverse(f"{provider}_login")).status_code == 404
        assert Client().get(reverse(f"{provider}_callback"), {"code": "x"}).status_code == 404


@pytest.fixture
def provider_http(configured, monkeypatch):
    answers = DINGTALK_ANSWERS if configured["provider"] == "dingtalk" else FEISHU_ANSWERS
    fake = FakeProvider(answers)
    monkeypatch.setattr(CompanySignInAdapter, "get_requests_session", lambda self: fake)
    return fake


def test_a_full_sign_in_makes_the_account_and_an_administrator_gives_the_roles(
    configured, provider_http
):
    client = Client()
    query = start(client, configured)
    callback = reverse(f"{configured['provider']}_callback")
    done = client.get(callback, {"code": "one-time-code", "state": query["state"]})
    assert done.status_code == 302 and done["Location"] == reverse("home"), done.content
    user = User.objects.get(username="zhang.min")
    assert not user.groups.exists() and not user.is_staff  # no groups from the provider
    assert client.session["_auth_user_id"] == str(user.pk)  # signed in
    sent = [kwargs for _method, _url, kwargs in provider_http.requests]
    assert "one-time-code" in repr(sent) and configured["client_id"] in repr(sent)

    # An administrator makes them an approver; signing in again keeps the role.
    user.groups.add(ensure_roles()[APPROVER])
    again = Client()
    query = start(again, configured)
    second = again.get(callback, {"code": "second-code", "state": query["state"]})
    assert second.status_code == 302
    assert again.session["_auth_user_id"] == str(user.pk)
    assert set(user.groups.values_list("name", flat=True)) == {APPROVER}
    assert User.objects.count() == 1 and Group.objects.filter(name=APPROVER).exists()


def test_a_forged_state_signs_in_nobody(configured, provider_http):
    client = Client()
    start(client, configured)
    callback = reverse(f"{configured['provider']}_callback")
    forged = client.get(callback, {"code": "c", "state": "wrong"}, HTTP_ACCEPT_LANGUAGE="en")
    assert forged.status_code == 401 and "did not complete" in forged.content.decode()
    assert not User.objects.exists() and provider_http.requests == []


def test_the_settings_read_the_secret_or_its_file_and_stay_off_without_an_id(monkeypatch, tmp_path):
    from config.settings.security import _secret

    monkeypatch.setenv("ADVISOR_FEISHU_APP_SECRET", "from-the-variable")
    assert _secret("ADVISOR_FEISHU", "APP_SECRET") == "from-the-variable"
    (tmp_path / "secret").write_text("from-the-file\n", encoding="utf-8")
    monkeypatch.setenv("ADVISOR_FEISHU_APP_SECRET_FILE", str(tmp_path / "secret"))
    assert _secret("ADVISOR_FEISHU", "APP_SECRET") == "from-the-file"
    assert app_providers("feishu", "", "from-the-file") == {}
    assert app_providers("dingtalk", "id", "s") == {
        "dingtalk": {"APPS": [{"client_id": "id", "secret": "s"}]}
    }


DIRECTORY = {
    "dingtalk": {
        "https://oapi.dingtalk.com/gettoken": {"errcode": 0, "access_token": "ding-app-token"},
        "https://oapi.dingtalk.com/topapi/user/getbyunionid": {
            "errcode": 0,
            "result": {"contact_type": 0, "userid": "zhangmin01"},
        },
        "https://oapi.dingtalk.com/topapi/v2/user/get": {
            "errcode": 0,
            "result": {"userid": "zhangmin01", "name": "张敏", "dept_id_list": [2, 57]},
        },
    },
    "feishu": {
        "https://open.feishu.cn/open-apis/auth/v3/tenant_access_token/internal": {
            "code": 0,
            "tenant_access_token": "t-feishu-tenant",
            "expire": 7200,
        },
        "https://open.feishu.cn/open-apis/contact/v3/users/ou_42": {
            "code": 0,
            "data": {"user": {"open_id": "ou_42", "department_ids": ["2", "57"]}},
        },
    },
}
ROLES_BY_DEPARTMENT = {"2": PROCUREMENT_STAFF, "57": APPROVER, "90": CATALOG_ADMIN}


@pytest.fixture
def directory(configured, monkeypatch, settings):
    """The provider plus its contact directory, and a department mapping for it."""
    provider = configured["provider"]
    answers = {**(DINGTALK_ANSWERS if provider == "dingtalk" else FEISHU_ANSWERS)}
    answers.update(copy.deepcopy(DIRECTORY[provider]))
    fake = FakeProvider(answers)
    monkeypatch.setattr(CompanySignInAdapter, "get_requests_session", lambda self: fake)
    key = f"{provider.upper()}_ROLES"
    settings.COMPANY_SIGN_IN = {**settings.COMPANY_SIGN_IN, key: ROLES_BY_DEPARTMENT}
    return fake


def departments_answer(fake: FakeProvider, provider: str) -> dict:
    url = next(u for u in DIRECTORY[provider] if u.endswith(("user/get", "users/ou_42")))
    return fake.answers[url]


def sign_in(case: dict):
    client = Client()
    query = start(client, case)
    callback = reverse(f"{case['provider']}_callback")
    done = client.get(callback, {"code": "code-1", "state": query["state"]})
    assert done.status_code == 302 and done["Location"] == reverse("home"), done.content
    return client


def test_with_a_department_mapping_the_directory_gives_the_roles_every_time(configured, directory):
    provider = configured["provider"]
    client = sign_in(configured)
    user = User.objects.get(username="zhang.min")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert set(user.groups.values_list("name", flat=True)) == {PROCUREMENT_STAFF, APPROVER}
    assert not user.is_staff
    sent = {url: kwargs for _method, url, kwargs in directory.requests}
    if provider == "feishu":
        token = sent["https://open.feishu.cn/open-apis/auth/v3/tenant_access_token/internal"]
        assert token["json"] == {"app_id": configured["client_id"], "app_secret": SECRET}
        user_call = sent["https://open.feishu.cn/open-apis/contact/v3/users/ou_42"]
        assert user_call["headers"]["Authorization"] == "Bearer t-feishu-tenant"
        assert user_call["params"]["department_id_type"] == "department_id"
    else:
        token = sent["https://oapi.dingtalk.com/gettoken"]
        assert token["params"] == {"appkey": configured["client_id"], "appsecret": SECRET}
        lookup = sent["https://oapi.dingtalk.com/topapi/user/getbyunionid"]
        assert lookup["json"] == {"unionid": "ding-union-42"}
        user_call = sent["https://oapi.dingtalk.com/topapi/v2/user/get"]
        assert user_call["json"]["userid"] == "zhangmin01"
        assert user_call["params"] == {"access_token": "ding-app-token"}
    assert all(sent[url].get("timeout") for url in DIRECTORY[provider])

    # Moved in the directory: out of the approvers' department, into the catalog team's.
    answer = departments_answer(directory, provider)
    moved = ["2", "90"] if provider == "feishu" else [2, 90]
    (answer["data"]["user"] if provider == "feishu" else answer["result"])[
        "department_ids" if provider == "feishu" else "dept_id_list"
    ] = moved
    sign_in(configured)
    user.refresh_from_db()
    assert set(user.groups.values_list("name", flat=True)) == {PROCUREMENT_STAFF, CATALOG_ADMIN}
    assert user.is_staff and User.objects.count() == 1


def test_a_directory_that_does_not_answer_keeps_the_roles_and_signs_in(
    configured, directory, caplog
):
    provider = configured["provider"]
    sign_in(configured)
    user = User.objects.get(username="zhang.min")
    before = set(user.groups.values_list("name", flat=True))
    assert before == {PROCUREMENT_STAFF, APPROVER}
    answer = departments_answer(directory, provider)
    answer["code" if provider == "feishu" else "errcode"] = 40014  # e.g. no permission
    client = sign_in(configured)
    assert client.session["_auth_user_id"] == str(user.pk)
    assert set(user.groups.values_list("name", flat=True)) == before
    assert "not read" in caplog.text and "40014" in caplog.text
