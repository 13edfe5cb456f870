"""Socket limits below the ASGI app (not :class:`.outbox.Connection`, a client of a game): caps per
client address and in total, and deadlines for a request's headers and body.

uvicorn (the server ``carcassonne serve`` runs) accepts every connection and gives one that has
not yet sent a whole request no deadline at all (its keep-alive timer starts only after a
response), so a client could hold sockets until the server ran out of file descriptors. The
ASGI app never sees such a socket, hence this layer: subclasses of uvicorn's HTTP/1.1 (h11) and
websocket protocols that count every connection, from its accept to its close (an upgraded
websocket keeps the slot of the HTTP connection it came from), and close the ones that are too
slow. A refused connection gets a short 503 in the API's JSON error format and is closed at
once, so it holds a file descriptor only for an instant.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .addresses import DEFAULT_GROUPS, AddressGroups
from .errors import ProtocolError

log = logging.getLogger("carcassonne.web")

#: seconds a websocket client has to answer the server's close before the connection is cut
CLOSE_TIMEOUT = 2.0


@dataclass(frozen=True)
class ConnectionLimits:
    """The connection limits of one server; the defaults suit a server for friends and a
    class room (a browser tab uses one websocket and a few short HTTP connections)."""

    #: connections open at once, all clients together
    max_connections: int = 2000
    #: connections open at once from one client (an address group: :mod:`.addresses`; a
    #: trusted proxy is not capped)
    max_per_address: int = 100
    #: seconds a client has to send a request's line and headers, from connecting (or from
    #: the end of its previous response)
    header_timeout: float = 10.0
    #: seconds a client has to send a request's whole body once its headers are in
    body_timeout: float = 30.0

    def __post_init__(self) -> None:
        if self.max_connections < 1 or self.max_per_address < 1:
            raise ValueError(f"connection caps must be at least 1: {self}")
        if not (self.header_timeout > 0 and self.body_timeout > 0):
            raise ValueError(f"timeouts must be positive: {self}")


class ConnectionGuard:
    """Counts the open connections of one server, per client (address group) and in total."""

    def __init__(
        self,
        limits: ConnectionLimits,
        uncapped: frozenset[str] = frozenset(),
        groups: AddressGroups = DEFAULT_GROUPS,
    ) -> None:
        self.limits = limits
        #: addresses with no cap of their own (trusted proxies: every client comes through them)
        self.uncapped = uncapped
        self.groups = groups
        self._open: dict[asyncio.BaseTransport, str] = {}
        self._per_address: Counter[str] = Counter()
        #: connections refused so far (for the operator; the log is rate-limited)
        self.refused = 0

    def __len__(self) -> int:
        return len(self._open)

    def admit(self, transport: asyncio.BaseTransport, address: str) -> ProtocolError | None:
        """Count a new connection, or say why it is refused (and do not count it)."""
        client = address if address in self.uncapped else self.groups.key(address)
        if len(self._open) >= self.limits.max_connections:
            reason = ProtocolError.of("too_many_connections")
        elif (
            address not in self.uncapped
            and self._per_address[client] >= self.limits.max_per_address
        ):
            reason = ProtocolError.of("too_many_from_address")
        else:
            self._open[transport] = client
            self._per_address[client] += 1
            return None
        self.refused += 1
        return reason

    def release(self, transport: asyncio.BaseTransport) -> None:
        """Forget a closed connection (again is harmless: an upgrade hands one over)."""
        address = self._open.pop(transport, None)
        if address is not None:
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]


def _refusal(reason: ProtocolError) -> bytes:
    body = json.dumps({"error": reason.code, **reason.to_json()}).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 10\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the guard's caps and the header and body deadlines."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: refused, or handed over to the websocket protocol: nothing more to watch
        self._done = False
        #: what the client is late with: "headers", "body" or None (nothing is due)
        self._due: str | None = None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else ""
        reason = self.guard.admit(transport, address)
        if reason is not None:
            self._done = True
            log.warning("refused a connection from %s: %s", address, reason)
            transport.write(_refusal(reason))
            transport.close()
            return
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._set_due(None)
        self.guard.release(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._done:
            return
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # the websocket protocol takes over the transport and, with it, the guard's slot
        self._done = True
        self._set_due(None)
        super().handle_websocket_upgrade(event)

    def _watch(self) -> None:
        """Start the deadline for what the client owes now, keeping one already running (a
        deadline is absolute: sending a byte now and then does not extend it)."""
        if self._done or self.transport.is_closing():
            due = None
        elif self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            due = "headers"
        elif self.conn.their_state is h11.SEND_BODY:
            due = "body"
        else:
            due = None
        self._set_due(due)

    def _set_due(self, due: str | None) -> None:
        if due == self._due:
            return
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._due = due
        if due is not None:
            limits = self.guard.limits
            seconds = limits.header_timeout if due == "headers" else limits.body_timeout
            self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _too_slow(self) -> None:
        """Close a connection that did not send its headers or body in time. A body's request
        is already in the app, which sees the client leave as a disconnect."""
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._due == "headers" and self.conn.their_state is h11.IDLE:
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        self._due = None
        self.transport.close()


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol, giving the connection's slot back when it closes, and
    waiting :data:`CLOSE_TIMEOUT` seconds (not uvicorn's 10) for a client to answer the
    server's close (a browser answers at once; a client that does not would hold its slot)."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.close_timeout = CLOSE_TIMEOUT

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.release(self.transport)
        super().connection_lost(exc)


def guarded_protocols(
    guard: ConnectionGuard,
) -> tuple[type[GuardedH11Protocol], type[GuardedWebSocketProtocol]]:
    """The HTTP and websocket protocol classes for ``uvicorn.Config(http=..., ws=...)``, bound to
    ``guard`` (uvicorn builds protocols from a class, so the guard travels as a class field)."""
    http = type("ServerH11Protocol", (GuardedH11Protocol,), {"guard": guard})
    ws = type("ServerWebSocketProtocol", (GuardedWebSocketProtocol,), {"guard": guard})
    return http, ws
