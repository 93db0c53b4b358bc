"""Reading a person's departments from DingTalk or Feishu: every way the directory can fail
to say becomes one DirectoryError (the sign-in then keeps the roles as they were)."""

import pytest
import requests

from advisor.sso.directories import DirectoryError, departments


class Reply:
    def __init__(self, status: int, body):
        self.status_code, self.body = status, body

    def raise_for_status(self):
        if self.status_code >= 400:
            raise requests.HTTPError(f"{self.status_code}")

    def json(self):
        if isinstance(self.body, Exception):
            raise self.body
        return self.body


class Directory:
    def __init__(self, *replies):
        self.replies = list(replies)

    def get(self, url, **kwargs):
        return self.replies.pop(0)

    post = get


TOKEN = Reply(200, {"code": 0, "tenant_access_token": "t"})
FEISHU = {"open_id": "ou_1"}


@pytest.mark.parametrize(
    "replies, expected",
    [
        (
            (TOKEN, Reply(200, {"code": 0, "data": {"user": {"department_ids": ["a", 7]}}})),
            ["a", "7"],
        ),
        ((TOKEN, Reply(200, {"code": 0, "data": {"user": {}}})), []),
    ],
)
def test_feishu_departments_as_strings(replies, expected):
    assert departments("feishu", FEISHU, "id", "secret", Directory(*replies)) == expected


@pytest.mark.parametrize(
    "replies",
    [
        (Reply(503, {}),),  # HTTP error on the token
        (Reply(200, {"code": 99991663, "msg": "app ticket invalid"}),),  # the API's refusal
        (TOKEN, Reply(200, ValueError("not JSON"))),
        (TOKEN, Reply(200, {"code": 0, "data": {}})),  # another shape
        (TOKEN, Reply(200, {"code": 41050, "msg": "no user authority"})),
    ],
    ids=["http", "refused", "not-json", "shape", "no-permission"],
)
def test_every_failure_is_a_directory_error(replies):
    with pytest.raises(DirectoryError):
        departments("feishu", FEISHU, "id", "secret", Directory(*replies))


def test_dingtalk_and_a_sign_in_without_its_id():
    replies = (
        Reply(200, {"errcode": 0, "access_token": "a"}),
        Reply(200, {"errcode": 0, "result": {"userid": "u1"}}),
        Reply(200, {"errcode": 0, "result": {"dept_id_list": [1, 2]}}),
    )
    assert departments("dingtalk", {"unionId": "x"}, "k", "s", Directory(*replies)) == ["1", "2"]
    with pytest.raises(DirectoryError):
        departments("dingtalk", {"openId": "no-union-id"}, "k", "s", Directory(*replies))
    with pytest.raises(DirectoryError):
        departments("wecom", {}, "k", "s", Directory())
