"""Shared web-test helpers (imported by name: tests/web is on sys.path).

Starlette's TestClient warns at import that it prefers ``httpx2``; the project pins ``httpx``
(the test extra), so the warning is silenced here once rather than in every module.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.request
import warnings
from pathlib import Path
from typing import Any, Self
from urllib.parse import urljoin

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette import testclient

from carcassonne.web.replay import apply_delta

__all__ = ["LiveServer", "TestClient", "expand_frames", "finished_game", "read_until_closed"]


class TestClient(testclient.TestClient):
    """Starlette's test client, reaching the app as a browser on this machine does (its own
    default host name, ``testserver``, is one the app refuses: no DNS rebinding)."""

    def __init__(self, app: Any, base_url: str = "http://localhost", **kwargs: Any) -> None:
        super().__init__(app, base_url=base_url, **kwargs)

    def websocket_connect(self, url: str, *args: Any, **kwargs: Any) -> Any:
        # Starlette joins the path to ws://testserver whatever the base URL
        base = "ws" + str(self.base_url).removeprefix("http")
        return super().websocket_connect(urljoin(base, url), *args, **kwargs)


def auth(token: str) -> dict[str, str]:
    """The header that proves a seat's token."""
    return {"authorization": f"Bearer {token}"}


def hello(ws: Any, token: str | None) -> dict[str, Any]:
    """Greet on a websocket and return the first state message."""
    ws.send_json({"type": "hello", "token": token})
    assert ws.receive_json()["type"] == "welcome"
    state = ws.receive_json()
    assert state["type"] == "state"
    return state


def finished_game(client: Any) -> str:
    """A hotseat game of one tile played to its end through the HTTP API; its id."""
    created = client.post(
        "/api/games",
        json={"seats": [{"kind": "human"}, {"kind": "human"}], "options": {"stack": ["base/E"]},
              "hotseat": True},
    ).json()  # fmt: skip
    closing_the_city = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
    played = client.post(
        f"/api/games/{created['id']}/actions",
        headers=auth(created["hotseat_token"]),
        json={"actions": [closing_the_city, {"type": "pass"}], "ply": 0},
    )
    assert played.json()["view"]["phase"] == "over"
    return str(created["id"])


def post_game(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """Create a game on the server at ``url`` (``POST /api/games``); its answer."""
    request = urllib.request.Request(
        f"{url}/api/games",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


class ThreadedServer:
    """An ASGI app served by uvicorn in a thread of this process, on a free loopback port bound
    first (no free-port race). Use as a context manager."""

    def __init__(self, app: Any, config: Any = None) -> None:
        import uvicorn

        from carcassonne.cli import serve

        self.app = app
        self.sock = serve.listen("127.0.0.1", 0)
        self.port: int = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = config or uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> Self:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started, "the server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


class LiveServer(ThreadedServer):
    """``carcassonne serve`` with these flags, in this process (uvicorn in a thread) on a free
    loopback port: the connection limits live below the ASGI app, where no TestClient reaches.
    Use as a context manager."""

    def __init__(self, db: Path, *flags: str) -> None:
        from carcassonne.cli import serve
        from carcassonne.cli.main import build_parser

        args = build_parser().parse_args(
            ["serve", "--db", str(db), "--bot-delay", "0", "--port", "0", *flags]
        )
        app, _ = serve.build_app(args)
        super().__init__(app, serve.server_config(app, args, serve.open_files_limit()))

    def connect(self, source: str = "127.0.0.1", timeout: float = 5.0) -> socket.socket:
        """A raw TCP connection from ``source`` (any 127.x.y.z is this machine)."""
        sock = socket.create_connection(
            ("127.0.0.1", self.port), timeout=timeout, source_address=(source, 0)
        )
        return sock

    def request(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        source: str = "127.0.0.1",
    ) -> tuple[int, dict[str, str], bytes]:
        """One HTTP request on a fresh connection: status, headers, body."""
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=5, source_address=(source, 0)
        )
        try:
            conn.request(method, path, body=body or None, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()


def read_until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and the seconds that took;
    fails if it is still open after ``limit`` seconds."""
    started = time.monotonic()
    sock.settimeout(0.1)
    received = b""
    while time.monotonic() - started < limit:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            break
        if not data:
            break
        received += data
    else:
        raise AssertionError(f"still open after {limit} s (received {received[:200]!r})")
    return received, time.monotonic() - started


def expand_frames(replay: dict[str, Any]) -> dict[str, Any]:
    """Give every frame of a replay its whole view, as the browser does (``expandFrames``)."""
    view: dict[str, Any] = {}
    for frame in replay["frames"]:
        if "delta" in frame:
            frame["view"] = apply_delta(view, frame.pop("delta"))
        view = frame["view"]
    return replay


def undo_schema_8(db: Any) -> None:
    """Within a transaction: take away what schema 8 added (open tables, rematch, reviews), so
    that a test can make an older database from a new one."""
    db.execute("DROP INDEX games_listed")
    db.execute("DROP TABLE reviews")
    for column in ("listed", "open_seats", "rematch"):
        db.execute(f"ALTER TABLE games DROP COLUMN {column}")
