"""OpenID Connect as providers expect it (decision 0126): every authorization request carries a
fresh ``nonce``, kept with the sign-in's state in the session, and the ID token that comes back
must carry the same one, else the sign-in is refused. django-allauth's provider sends none."""

from __future__ import annotations

import hmac
import secrets

from allauth.socialaccount.providers.openid_connect.provider import OpenIDConnectProvider

NONCE = "nonce"


class NonceOpenIDConnectProvider(OpenIDConnectProvider):
    """allauth's OpenID Connect provider, sending a nonce with each sign-in it starts."""

    def redirect(self, request, process, next_url=None, data=None, **kwargs):
        nonce = secrets.token_urlsafe(32)
        auth_params = kwargs.pop("auth_params", None)
        if auth_params is None:
            auth_params = self.get_auth_params()
        kwargs["auth_params"] = {**auth_params, NONCE: nonce}
        # allauth keeps every extra keyword in the sign-in's state (the session), as it does
        # the PKCE verifier: the callback finds it there.
        return super().redirect(request, process, next_url, data, **{**kwargs, NONCE: nonce})


def nonce_problem(sociallogin) -> str | None:
    """Why the ID token's nonce is not the one this sign-in sent ("missing", "wrong"), or None
    when it is."""
    sent = (sociallogin.state or {}).get(NONCE)
    returned = ((sociallogin.account.extra_data or {}).get("id_token") or {}).get(NONCE)
    if not sent or not isinstance(returned, str) or not returned:
        return "missing"
    if not hmac.compare_digest(sent.encode(), returned.encode()):
        return "wrong"
    return None
