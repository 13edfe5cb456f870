"""DNS rebinding: the server answers only to the host names it was started for and to IP
addresses (``CrossSiteGuard`` in ``web/guards.py``, ``--allowed-host`` in ``cli/serve.py``).

Issue: the server answered any ``Host``. A site that makes its own name resolve to 127.0.0.1
serves a page which, being then of the same origin as the local server, could drive it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from web_helpers import LiveServer, TestClient, hello
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from carcassonne.cli.errors import CommandError
from carcassonne.cli.main import build_parser
from carcassonne.cli.serve import allowed_host_names
from carcassonne.web import create_app
from carcassonne.web.guards import host_name

HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}]}
REFUSAL = {
    "error": "unknown-host",
    "message": "this server does not answer to this host name",
    "reason": "unknown_host",
    "params": {},
}


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost", "localhost"),
        ("LocalHost:8000", "localhost"),
        ("games.example.org.:443", "games.example.org"),
        ("127.0.0.1:8000", "127.0.0.1"),
        ("[::1]:8000", "::1"),
        ("[::1]", "::1"),
        ("", None),
        ("::1", None),  # an IPv6 address in Host must be bracketed
        ("[::1", None),
        ("[::1]x", None),
        ("localhost:http", None),
        (":8000", None),
    ],
)
def test_the_name_in_a_host_header(header: str, name: str | None) -> None:
    assert host_name(header) == name


def client_for(app: Any, host: str) -> TestClient:
    return TestClient(app, base_url=f"http://{host}")


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return create_app(tmp_path / "games.sqlite3", bot_delay=0)


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000",
                                  "192.168.1.20:8000", "[fe80::1]"])  # fmt: skip
def test_localhost_and_ip_addresses_are_answered(app: Any, host: str) -> None:
    with client_for(app, host) as client:
        created = client.post("/api/games", json=HUMANS)
        assert created.status_code == 201, created.text
        with client.websocket_connect(f"/ws/{created.json()['id']}") as ws:
            hello(ws, None)


@pytest.mark.parametrize("host", ["rebound.example", "rebound.example:8000", "localhost.example",
                                  "2130706433"])  # fmt: skip
def test_other_host_names_are_refused_saying_nothing(
    app: Any, host: str, caplog: pytest.LogCaptureFixture
) -> None:
    with client_for(app, "localhost") as local:
        game_id = local.post("/api/games", json=HUMANS).json()["id"]
    with client_for(app, host) as client:
        for response in (
            client.get("/"),
            client.get("/api/meta"),
            client.get(f"/api/games/{game_id}"),
            client.post("/api/games", json=HUMANS),
        ):
            assert response.status_code == 400
            assert response.json() == REFUSAL
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"/ws/{game_id}") as ws,
        ):
            ws.receive_json()
        assert refused.value.code == 1008
    with client_for(app, "localhost") as local:
        assert local.get("/api/meta").json()["languages"]  # no game was created meanwhile
    # the operator learns which name was refused, to allow it if it is theirs
    refusals = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert refusals and repr(host) in refusals[0].getMessage()


def test_named_hosts_are_answered(tmp_path: Path) -> None:
    app = create_app(
        tmp_path / "games.sqlite3",
        bot_delay=0,
        allowed_hosts=frozenset({"localhost", "Games.Example.org."}),
    )
    with client_for(app, "games.example.org:8443") as client:
        created = client.post("/api/games", json=HUMANS)
        assert created.status_code == 201
    with client_for(app, "other.example.org") as client:
        assert client.get("/api/meta").status_code == 400


def test_any_host_is_answered_when_allowed(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, allowed_hosts=frozenset({"*"}))
    with client_for(app, "anything.example") as client:
        assert client.get("/api/meta").status_code == 200


def serve_args(*flags: str) -> Any:
    return build_parser().parse_args(["serve", *flags])


def test_serve_answers_to_localhost_its_host_and_the_allowed_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CARCASSONNE_ALLOWED_HOSTS", raising=False)
    assert allowed_host_names(serve_args()) == {"localhost", "127.0.0.1"}
    args = serve_args("--host", "box.lan", "--allowed-host", "A.example", "--allowed-host", "[::1]")
    assert allowed_host_names(args) == {"localhost", "box.lan", "a.example", "::1"}
    monkeypatch.setenv("CARCASSONNE_ALLOWED_HOSTS", "b.example, c.example ,")
    assert allowed_host_names(serve_args()) == {"localhost", "127.0.0.1", "b.example", "c.example"}


@pytest.mark.parametrize(
    "bad", ["https://a.example", "a.example:8000", "a.example/x", "a..b", "-a"]
)
def test_serve_refuses_an_allowed_host_that_is_no_name(
    bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CARCASSONNE_ALLOWED_HOSTS", raising=False)
    with pytest.raises(CommandError, match="--allowed-host must be a host name"):
        allowed_host_names(serve_args(f"--allowed-host={bad}"))


# ------------------------------------------------------------------------------ real server


def test_a_real_server_refuses_a_rebound_name(tmp_path: Path) -> None:
    """Over HTTP and the websocket, as a browser sends them: the name in ``Host`` and, for the
    websocket, in ``Origin`` (which then matches the host, so the origin check alone let it in)."""
    with LiveServer(tmp_path / "games.sqlite3") as server:
        body = json.dumps(HUMANS).encode()
        json_type = {"content-type": "application/json"}
        rebound = f"rebound.example:{server.port}"
        headers = {**json_type, "host": rebound, "origin": f"http://{rebound}"}
        status, _, answer = server.request("POST", "/api/games", body, headers)
        assert (status, json.loads(answer)) == (400, REFUSAL)
        status, _, answer = server.request("POST", "/api/games", body, json_type)
        assert status == 201
        path = f"/ws/{json.loads(answer)['id']}"
        with pytest.raises(InvalidStatus) as refused:
            # the name is in the URL (so in Host), the connection goes to the server's address
            connect(f"ws://{rebound}{path}", sock=server.connect(), open_timeout=5)
        assert refused.value.response.status_code == 403
        local = f"localhost:{server.port}"
        origin = Origin(f"http://{local}")
        with connect(f"ws://{local}{path}", sock=server.connect(), origin=origin) as ws:
            ws.send(json.dumps({"type": "hello", "token": None}))
            assert json.loads(ws.recv(timeout=5))["type"] == "welcome"


def test_a_real_server_answers_its_allowed_host(tmp_path: Path) -> None:
    with LiveServer(tmp_path / "games.sqlite3", "--allowed-host", "games.example") as server:
        status, _, _ = server.request("GET", "/api/meta", headers={"host": "games.example"})
        assert status == 200
        status, _, _ = server.request("GET", "/api/meta", headers={"host": "other.example"})
        assert status == 400
