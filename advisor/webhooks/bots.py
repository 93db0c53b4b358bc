"""Chat-bot formats for an endpoint: DingTalk, Feishu (Lark) and WeCom group robots.

Each robot takes its own JSON and signs its own way (their documentation): DingTalk adds
``timestamp`` (ms) and ``sign`` = base64 HMAC-SHA256 of "timestamp\\nsecret" keyed with the
secret to the URL; Feishu puts ``timestamp`` (s) and ``sign`` = base64 HMAC-SHA256 of nothing
keyed with "timestamp\\nsecret" into the body; WeCom's robot key is in its URL. They answer 200
with an error code in the body when they refuse a message.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from urllib.parse import urlencode

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from advisor.brief.models import BriefStatus
from advisor.webhooks.models import EventType

STANDARD, DINGTALK, FEISHU, WECOM = "standard", "dingtalk", "feishu", "wecom"


def text(event: dict) -> str:
    """The message a person reads in the chat, in the site's language."""
    data = event.get("data") or {}
    with translation.override(settings.LANGUAGE_CODE):
        lines = [
            f"{EventType(event['type']).label}: {data.get('number') or data.get('endpoint', '')}",
            f"{gettext('Status')}: {BriefStatus(data['status']).label}"
            if data.get("status") in BriefStatus.values
            else "",
            f"{gettext('Option')}: {data['option']}" if data.get("option") else "",
            f"{gettext('Comment')}: {data['review_comment']}" if data.get("review_comment") else "",
        ]
    return "\n".join(line for line in lines if line)


def dingtalk_sign(secret: str, timestamp_ms: int) -> str:
    signed = f"{timestamp_ms}\n{secret}".encode()
    return base64.b64encode(hmac.new(secret.encode(), signed, hashlib.sha256).digest()).decode()


def feishu_sign(secret: str, timestamp_s: int) -> str:
    key = f"{timestamp_s}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def request(kind: str, url: str, secret: str, event: dict, now: float) -> tuple[str, bytes]:
    """The URL and body to POST for a robot of ``kind``."""
    words = text(event)
    title = words.splitlines()[0]
    if kind == DINGTALK:
        body = {"msgtype": "markdown", "markdown": {"title": title, "text": words}}
        if secret:
            stamp = int(now * 1000)
            query = urlencode({"timestamp": stamp, "sign": dingtalk_sign(secret, stamp)})
            url = f"{url}{'&' if '?' in url else '?'}{query}"
    elif kind == FEISHU:
        body = {"msg_type": "text", "content": {"text": words}}
        if secret:
            stamp = int(now)
            body |= {"timestamp": str(stamp), "sign": feishu_sign(secret, stamp)}
    else:  # WeCom
        body = {"msgtype": "markdown", "markdown": {"content": words}}
    return url, json.dumps(body, ensure_ascii=False).encode()


def refusal(response_text: str) -> str:
    """The robot's refusal in a 200 answer ("" when it accepted the message)."""
    try:
        answer = json.loads(response_text)
    except ValueError:
        return ""
    if not isinstance(answer, dict):
        return ""
    code = answer.get("errcode", answer.get("code", 0))
    if code in (0, None):
        return ""
    message = answer.get("errmsg") or answer.get("msg") or ""
    return f"refused by the robot: {code} {message}"[:300]
