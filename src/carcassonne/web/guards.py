"""What every request passes before a route sees it: the ASGI middlewares that guard the app.

:class:`SecurityHeaders` gives every answer a strict content security policy (the page runs
only its own scripts) and forbids guessing types and sending referrers; :class:`CrossSiteGuard`
refuses what a page of another web site could make a visitor's browser send (a foreign
``Origin``, a body that is not JSON, a ``Host`` this server was not started for).  The host
names it compares (:func:`host_name`, :func:`normal_host_name`, :func:`is_ip_address`) are
also how ``carcassonne serve`` checks its ``--allowed-host``.  The bounds on headers are
:mod:`.headerlimits`'s; the per-client rate limits are counted by each route
(:mod:`.ratelimit`).
"""

from __future__ import annotations

import ipaddress
import logging
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import ProtocolError, error_response

log = logging.getLogger("carcassonne.web")

#: host names every server answers to (an IP address in ``Host`` is always accepted: see
#: :class:`CrossSiteGuard`); ``carcassonne serve`` adds its ``--host`` and ``--allowed-host``
LOCAL_HOST_NAMES = frozenset({"localhost"})
#: in the allowed host names: any name at all (the check is left to a proxy in front)
ANY_HOST = "*"
#: methods that change nothing, which a page of another site may send (and not read the answer)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeaders:
    """Adds a strict content security policy: the client runs only its own scripts."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


class CrossSiteGuard:
    """Refuses what a page of another web site could make a visitor's browser send here.

    A browser sends a form or a ``text/plain`` POST to any site without asking it first, and
    opens a websocket to any site, so without this a page elsewhere could create games, upload
    records or play from its visitors' browsers. Such a request carries an ``Origin`` header: it
    must name this server (the ``Host`` the browser connected to, by the scheme it connected
    with: an ``http://`` page is not of an ``https://`` server's origin) or an allowed origin
    (``carcassonne serve --allow-origin``); and a request that changes something must have a
    JSON body (``application/json``), which no page can send to another site unasked. Clients
    that are not browsers send no ``Origin`` and are not affected.

    The ``Host`` must also be a name this server was started for (``allowed_hosts``) or an IP
    address. Otherwise a site could make its own name resolve to 127.0.0.1 (DNS rebinding):
    its page, loaded from that name, would then be of the same origin as this server and
    drive it from the visitor's browser, ``Origin`` and all. An IP address cannot be rebound
    (no page of another site is ever loaded from it), so a server on ``0.0.0.0`` answers to
    every address it is reached by; a name must be listed. A request without ``Host`` comes
    from no browser and is accepted.
    """

    def __init__(
        self,
        app: ASGIApp,
        allowed_origins: frozenset[str],
        allowed_hosts: frozenset[str] = LOCAL_HOST_NAMES,
    ) -> None:
        self.app = app
        self.allowed_origins = frozenset(origin.lower() for origin in allowed_origins)
        self.allowed_hosts = frozenset(normal_host_name(name) for name in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        error = self._refusal(scope, headers)
        if error is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            # closing before accepting: the server answers the handshake with a 403
            await send({"type": "websocket.close", "code": 1008, "reason": str(error)})
        else:
            await error_response(error)(scope, receive, send)

    def _refusal(self, scope: Scope, headers: Headers) -> ProtocolError | None:
        host = headers.get("host")
        if host is not None and not self._host_allowed(host):
            # said to the operator, who may have to name it with --allowed-host; the client is
            # told nothing of the names this server answers to
            log.warning("refused a request for the host %r (see --allowed-host)", host[:100])
            return ProtocolError.of("unknown_host")
        origin = headers.get("origin")
        if origin is not None and not self._allowed(
            origin, headers.get("host", ""), scope.get("scheme", "http")
        ):
            return ProtocolError.of("foreign_origin")
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            media_type = headers.get("content-type", "").partition(";")[0].strip().lower()
            if media_type != "application/json":
                return ProtocolError.of("bad_content_type")
        return None

    def _host_allowed(self, host: str) -> bool:
        if ANY_HOST in self.allowed_hosts:
            return True
        name = host_name(host)
        if name is None:
            return False
        return name in self.allowed_hosts or is_ip_address(name)

    def _allowed(self, origin: str, host: str, scheme: str) -> bool:
        origin = origin.lower()
        if origin in self.allowed_origins:
            return True
        # the scheme the client reached this server by (a websocket's ws/wss is its page's
        # http/https; behind a --trusted-proxy, the one the proxy was reached by)
        page_scheme = "https" if scheme in ("https", "wss") else "http"
        parts = urlsplit(origin)
        return bool(host) and parts.scheme == page_scheme and parts.netloc == host.lower()


def normal_host_name(name: str) -> str:
    """A host name as compared: lower case, without the brackets of an IPv6 address or the dot
    that may end a fully qualified name."""
    name = name.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        return name[1:-1]
    return name.removesuffix(".")


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_name(host: str) -> str | None:
    """The name in a ``Host`` header (``name``, ``name:port``, ``[v6]`` or ``[v6]:port``), or
    None when it is none of these."""
    name, port = host, ""
    if host.startswith("["):
        end = host.find("]")
        name, port = host[: end + 1], host[end + 1 :]
        if end < 0 or (port and not port.startswith(":")):
            return None
        port = port[1:]
    elif ":" in host:
        name, _, port = host.partition(":")
    elif not host:
        return None
    if port and not port.isdigit():
        return None
    return normal_host_name(name) or None
