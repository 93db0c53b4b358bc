"""An approver's key at a remote signing service, through the Cloud Signature Consortium API
(CSC API v1, pyHanko's ``csc_signer``; docs/decisions/0150-remote-signing-service.md).

The service keeps the key; this site sends it the digest to sign. The deployment configures
the service's base URL and the access token this site presents to it; each approver registers
the ID of their credential at the service, and authorises each signature with their PIN (and
the one-time code the service may ask for), sent to the service's ``credentials/authorize``
for one signature and never stored. Called only from synchronous code: each call runs its own
event loop (outside any running one), with its own HTTP session.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from advisor.brief.signing import (
    LEVEL_B,
    KeyUnavailable,
    SignatureRequest,
    SigningConfig,
    approval_parts,
    async_sign_at,
    outside_event_loop,
)

TIMEOUT_S = 30  # each request to the service


@dataclass(frozen=True)
class RemoteCredential:
    """An approver's credential at a CSC signing service: the service's base URL (the part
    before ``/csc/v1/``), the site's access token for it, the credential's ID, and what the
    approver typed to authorise a signature (PIN, one-time code)."""

    service_url: str
    credential_id: str
    access_token: str | None = field(default=None, repr=False)
    pin: str = field(default="", repr=False)
    otp: str = field(default="", repr=False)

    def __str__(self) -> str:
        return f"CSC credential {self.credential_id!r} at {self.service_url}"


def _fault(error: BaseException, refused: str) -> str:
    """``refused`` when the service refused the request (a 4xx status other than 401),
    "service" otherwise: unreachable, a 5xx, an answer that is not the API's, or 401 (the
    service does not accept this site's access token: the deployment's fault)."""
    import aiohttp

    seen = error
    while seen is not None:
        if isinstance(seen, aiohttp.ClientResponseError):
            return refused if 400 <= seen.status < 500 and seen.status != 401 else "service"
        seen = seen.__cause__ or seen.__context__
    return "service"


def _session_info(credential: RemoteCredential):
    from pyhanko.sign.signers import csc_signer  # on first use (docs/decisions/0037)

    return csc_signer.CSCServiceSessionInfo(
        service_url=credential.service_url.rstrip("/"),
        credential_id=credential.credential_id,
        oauth_token=credential.access_token,
    )


async def _credential_info(session, credential: RemoteCredential):
    """The credential's certificates and properties (``credentials/info``); KeyUnavailable
    "key" when the service has no such credential, "service" when it cannot answer."""
    from pyhanko.sign.signers import csc_signer

    try:
        return await csc_signer.fetch_certs_in_csc_credential(
            session, _session_info(credential), timeout=TIMEOUT_S
        )
    except Exception as error:  # noqa: BLE001 - pyHanko wraps aiohttp's errors
        raise KeyUnavailable(
            f"cannot read the {credential}: {error!r}", _fault(error, "key")
        ) from error


def _authorization(session, credential: RemoteCredential, info):
    """pyHanko's authorisation manager sending the approver's PIN (and code) to
    ``credentials/authorize`` for each signature, with its digest when the credential pins
    authorisations to digests (SCAL 2); a refusal is remembered as ``fault``."""
    import aiohttp
    from pyhanko.sign.signers import csc_signer

    class PinAuthorization(csc_signer.CSCAuthorizationManager):
        fault: str | None = None

        async def authorize_signature(self, hash_b64s):
            pinned = self.credential_info.hash_pinning_required
            body = self.format_csc_auth_request(
                pin=credential.pin or None,
                otp=credential.otp or None,
                hash_b64s=hash_b64s if pinned else None,
            )
            url = self.csc_session_info.endpoint_url("credentials/authorize")
            try:
                async with session.post(
                    url,
                    headers=self.auth_headers,
                    json=body,
                    raise_for_status=True,
                    timeout=aiohttp.ClientTimeout(total=TIMEOUT_S),
                ) as response:
                    answer = await response.json()
            except Exception as error:  # noqa: BLE001 - remembered, re-raised by the caller
                self.fault = _fault(error, "pin")
                raise
            return self.parse_csc_auth_response(answer)

    return PinAuthorization(_session_info(credential), info)


def _run(coroutine_function, *args):
    return outside_event_loop(lambda: asyncio.run(coroutine_function(*args)))


async def _certificates(credential: RemoteCredential):
    import aiohttp

    async with aiohttp.ClientSession() as session:
        info = await _credential_info(session, credential)
    return info.signing_cert, list(info.chain)


def remote_certificates(credential: RemoteCredential):
    """``(certificate, chain)`` of the credential (asn1crypto), as the service lists them;
    KeyUnavailable ("key", "service") when they cannot be had."""
    return _run(_certificates, credential)


async def _sign(pdf, credential, request, location, config, level) -> bytes:
    import aiohttp
    from pyhanko.sign.signers import csc_signer

    async with aiohttp.ClientSession() as session:
        info = await _credential_info(session, credential)
        authorization = _authorization(session, credential, info)
        signer = csc_signer.CSCSigner(session, authorization)
        metadata, timestamper, level, visible = approval_parts(
            signer, request, location, config, level
        )
        try:
            return await async_sign_at(pdf, signer, metadata, timestamper, level, visible)
        except Exception as error:
            if authorization.fault is not None:  # the service refused the authorisation
                raise KeyUnavailable(
                    f"the {credential} refused the authorisation", authorization.fault
                ) from error
            raise


def sign_pdf_remotely_as(
    pdf: bytes,
    credential: RemoteCredential,
    request: SignatureRequest,
    location: str,
    config: SigningConfig | None = None,
    level: str = LEVEL_B,
) -> bytes:
    """As :func:`advisor.brief.signing.sign_pdf_as`, with the approver's key at the remote
    signing service: KeyUnavailable when the service refuses the PIN ("pin"), has no such
    credential ("key") or cannot be reached ("service")."""
    return _run(_sign, pdf, credential, request, location, config, level)
