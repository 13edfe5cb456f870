"""Bounds on a request's headers: their number and their size.

uvicorn's HTTP parser (h11) bounds only a request head that arrives in pieces (16 KiB while it
is incomplete); a whole head that arrives at once is taken whatever its size, and with it any
number of headers (a 64 KiB header and 10,000 headers were accepted, each costing the parser
and every middleware that reads them). No browser sends more than a few dozen headers of a few
kilobytes in all, so the app refuses more, before anything else reads them: an HTTP request
with a 431 in the API's error format, a websocket before its handshake completes.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

#: bytes of a request's header names and values together, at most (h11's own bound on a head
#: that arrives in pieces, which ``carcassonne serve`` sets to the same)
MAX_HEADER_BYTES = 16 * 1024
#: headers in one request, at most
MAX_HEADERS = 100


def header_refusal(headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why these headers are refused, or None when they are within the bounds."""
    if len(headers) > MAX_HEADERS:
        return f"a request may have at most {MAX_HEADERS} headers, not {len(headers)}"
    size = sum(len(name) + len(value) for name, value in headers)
    if size > MAX_HEADER_BYTES:
        return f"a request's headers may hold at most {MAX_HEADER_BYTES} bytes, not {size}"
    return None


class HeaderLimits:
    """Refuses requests and websockets whose headers are beyond :data:`MAX_HEADERS` or
    :data:`MAX_HEADER_BYTES`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        reason = (
            header_refusal(scope["headers"]) if scope["type"] in ("http", "websocket") else None
        )
        if reason is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            # closing before accepting: the server answers the handshake with a 403
            await send({"type": "websocket.close", "code": 1008, "reason": reason})
        else:
            body = {"error": "headers-too-large", "message": reason}
            # and the connection closes: its next request would only be as bad
            answer = JSONResponse(body, status_code=431, headers={"connection": "close"})
            await answer(scope, receive, send)
