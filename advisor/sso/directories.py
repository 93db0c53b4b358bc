"""The departments a person belongs to, read from the DingTalk or Feishu contact directory with
the application's own credentials at sign-in (neither names them in what a sign-in returns).

Feishu: a tenant access token (POST /open-apis/auth/v3/tenant_access_token/internal), then the
user by open_id with custom department IDs (GET /open-apis/contact/v3/users/:user_id,
user_id_type=open_id, department_id_type=department_id: ``data.user.department_ids``).
DingTalk: an application access token (GET /gettoken), the user id for the sign-in's unionId
(POST /topapi/user/getbyunionid), then the user (POST /topapi/v2/user/get: ``dept_id_list``).
Both documented on open.feishu.cn and open.dingtalk.com (docs/company-sign-in.md)."""

from __future__ import annotations

from urllib.parse import quote

FEISHU = "https://open.feishu.cn/open-apis"
DINGTALK = "https://oapi.dingtalk.com"
TIMEOUT_S = 10


class DirectoryError(Exception):
    """The directory did not say (unreachable, refused, or an answer of another shape)."""


def departments(provider: str, extra_data: dict, client_id: str, secret: str, http) -> list[str]:
    """The person's department ids as strings; ``http`` is a requests-like session."""
    try:
        if provider == "feishu":
            return feishu_departments(extra_data["open_id"], client_id, secret, http)
        if provider == "dingtalk":
            return dingtalk_departments(extra_data["unionId"], client_id, secret, http)
    except DirectoryError:
        raise
    except Exception as error:  # noqa: BLE001 - network, JSON, a missing field: all "not said"
        raise DirectoryError(f"{type(error).__name__}: {error}") from error
    raise DirectoryError(f"no directory for {provider}")


def feishu_departments(open_id: str, app_id: str, app_secret: str, http) -> list[str]:
    token = call(
        http.post,
        f"{FEISHU}/auth/v3/tenant_access_token/internal",
        "code",
        json={"app_id": app_id, "app_secret": app_secret},
    )["tenant_access_token"]
    user = call(
        http.get,
        f"{FEISHU}/contact/v3/users/{quote(open_id, safe='')}",
        "code",
        params={"user_id_type": "open_id", "department_id_type": "department_id"},
        headers={"Authorization": f"Bearer {token}"},
    )["data"]["user"]
    return [str(d) for d in user.get("department_ids") or []]


def dingtalk_departments(union_id: str, app_key: str, app_secret: str, http) -> list[str]:
    token = call(
        http.get,
        f"{DINGTALK}/gettoken",
        "errcode",
        params={"appkey": app_key, "appsecret": app_secret},
    )["access_token"]
    user_id = call(
        http.post,
        f"{DINGTALK}/topapi/user/getbyunionid",
        "errcode",
        params={"access_token": token},
        json={"unionid": union_id},
    )["result"]["userid"]
    user = call(
        http.post,
        f"{DINGTALK}/topapi/v2/user/get",
        "errcode",
        params={"access_token": token},
        json={"userid": user_id, "language": "zh_CN"},
    )["result"]
    return [str(d) for d in user.get("dept_id_list") or []]


def call(method, url: str, code_field: str, **kwargs) -> dict:
    """One directory call, with the timeout every call has: its JSON body if it succeeded."""
    return answer(method(url, timeout=TIMEOUT_S, **kwargs), code_field)


def answer(response, code_field: str) -> dict:
    """The JSON body of a successful call (HTTP 2xx and the API's own code 0)."""
    response.raise_for_status()
    body = response.json()
    if str(body.get(code_field)) != "0":
        raise DirectoryError(
            f"{code_field} {body.get(code_field)}: {body.get('msg') or body.get('errmsg')}"
        )
    return body
