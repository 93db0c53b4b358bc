"""Where a webhook may be sent: public addresses only, checked at save and again at send.

A webhook URL makes the server send requests wherever an administrator points it. Without a
check, a URL naming a loopback, private, link-local or cloud metadata address (169.254.169.254,
Alibaba Cloud's 100.100.100.200, fd00:ec2::254) lets whoever configures endpoints reach
services behind the firewall (docs/decisions/0123-webhooks-own-lane.md). So the host is
resolved and every address it resolves to must be global unicast; an IPv4-mapped, 6to4 or
Teredo IPv6 address is refused too, since it stands for an IPv4 address. The operator may
allow-list networks (``ADVISOR_WEBHOOK_ALLOWED_NETWORKS``: a receiver on the intranet). The
sender connects to the address it checked, never resolving the name a second time (a DNS
answer that changes between the check and the connection is no way around it).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

DEFAULT_PORTS = {"http": 80, "https": 443}


class Refused(ValueError):
    """The URL may not be called; ``str()`` says why (for the log and the admin form)."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as in the URL: the Host header and, for HTTPS, the name the certificate names
    port: int
    address: str  # the checked address to connect to
    path: str  # path and query


def _allow_listed(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    for network in settings.WEBHOOK_ALLOWED_NETWORKS:
        network = ipaddress.ip_network(network, strict=False)
        if address.version == network.version and address in network:
            return True
    return False


def why_refused(text: str) -> str | None:
    """Why an address may not be called, or None when it may."""
    address = ipaddress.ip_address(text.split("%", 1)[0])
    if _allow_listed(address):
        return None
    if isinstance(address, ipaddress.IPv6Address) and (
        address.ipv4_mapped or address.sixtofour or address.teredo
    ):
        return f"{address} stands for an IPv4 address (mapped, 6to4 or Teredo)"
    if address.is_loopback:
        return f"{address} is a loopback address"
    if address.is_link_local:
        return f"{address} is a link-local address (cloud metadata services live there)"
    if address.is_multicast or address.is_unspecified:
        return f"{address} is not a unicast address"
    if not address.is_global:
        return f"{address} is a private or reserved address"
    return None


def check(url: str) -> Target:
    """The URL's target with a checked address to connect to; :class:`Refused` otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise Refused("only http:// and https:// URLs with a host")
    if parts.username or parts.password:
        raise Refused("no user name or password in the URL")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise Refused("the port is not a number from 1 to 65535") from None
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise Refused(f"{parts.hostname} does not resolve") from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    for address in addresses:  # every one: the name may resolve to any of them
        reason = why_refused(address)
        if reason:
            raise Refused(f"{parts.hostname} resolves to {reason}")
    path = parts.path or "/"
    return Target(
        scheme=parts.scheme,
        host=parts.hostname,
        port=port,
        address=addresses[0],
        path=f"{path}?{parts.query}" if parts.query else path,
    )
