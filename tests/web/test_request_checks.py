"""What the app checks on every request and message before it reaches a game: JSON it can
parse (no bombs), a JSON content type and the origin of browser requests, a ``ply`` on every
action, the websocket message rate per client, the hello deadline, uploaded seat names.

Each test reproduces a finding of the attack run against the old server.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from web_helpers import TestClient, auth, hello

import carcassonne
from carcassonne.formats.record_writer import record_from_game
from carcassonne.game import Game
from carcassonne.web import app as app_module
from carcassonne.web import create_app
from carcassonne.web.ratelimit import Limit, RateLimits

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
CITY_STACK = ["base/E", "base/U", "base/V"]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
JSON_TYPE = {"content-type": "application/json"}
#: more digits than Python turns into an int (ValueError), nesting deeper than its recursion
BOMBS = {
    "huge number": '{"seats": ' + "9" * 5000 + "}",
    "deep nesting": "[" * 20_000 + "]" * 20_000,  # within the 64 KiB a message may have
}


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as c:
        yield c


def create(client: Any, **extra: Any) -> dict[str, Any]:
    body = {"seats": HUMANS, "options": {"stack": CITY_STACK}}
    response = client.post("/api/games", json=body, **extra)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def no_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]


# ------------------------------------------------------------------------------ JSON bombs


@pytest.mark.parametrize("bomb", list(BOMBS), ids=list(BOMBS))
def test_json_bombs_over_http_are_bad_messages(
    client: Any, caplog: pytest.LogCaptureFixture, bomb: str
) -> None:
    """Issue: a plain-text 500 with a traceback."""
    for path in ("/api/games", "/api/replay"):
        response = client.post(path, content=BOMBS[bomb].encode(), headers=JSON_TYPE)
        assert response.status_code == 400
        assert response.json()["error"] == "bad-message"
        assert "Traceback" not in response.text
    no_errors_logged(caplog)


@pytest.mark.parametrize("bomb", list(BOMBS), ids=list(BOMBS))
def test_json_bombs_over_the_websocket_are_bad_messages(
    client: Any, caplog: pytest.LogCaptureFixture, bomb: str
) -> None:
    """Issue: code ``server`` and an 840-byte traceback in the log per message."""
    created = create(client)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        ws.send_text(BOMBS[bomb])  # before hello
        before = ws.receive_json()
        hello(ws, created["seats"][0]["token"])
        ws.send_text(BOMBS[bomb])  # and after
        after = ws.receive_json()
    for error in (before, after):
        assert error["type"] == "error" and error["code"] == "bad-message", error
    no_errors_logged(caplog)


# ------------------------------------------------------------------------------ cross-site


def test_a_body_that_is_not_declared_json_is_refused(client: Any) -> None:
    """Issue: a page of any site could create games with a text/plain POST (no preflight)."""
    body = '{"seats": [{"kind": "human"}, {"kind": "human"}]}'
    for headers in ({"content-type": "text/plain"}, {"content-type": "application/x-www-form"}):
        response = client.post("/api/games", content=body, headers=headers)
        assert response.status_code == 415
        assert response.json()["error"] == "bad-content-type"
    assert client.post("/api/replay", content=b"{}").status_code == 415  # none at all
    assert len(client.app.state.server.rooms) == 0
    charset = client.post(
        "/api/games", content=body, headers={"content-type": "application/json; charset=utf-8"}
    )
    assert charset.status_code == 201


def test_requests_from_pages_of_other_sites_are_refused(client: Any) -> None:
    evil = {"origin": "https://evil.example"}
    response = client.post("/api/games", json={"seats": HUMANS}, headers=evil)
    assert response.status_code == 403 and response.json()["error"] == "forbidden-origin"
    assert len(client.app.state.server.rooms) == 0
    # the server's own pages (Origin names the host the browser connected to) may
    create(client, headers={"origin": "http://localhost"})


def test_websockets_from_pages_of_other_sites_are_refused(client: Any) -> None:
    created = create(client)
    url = f"/ws/{created['id']}"
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(url, headers={"origin": "https://evil.example"}) as ws,
    ):
        ws.receive_json()
    assert refused.value.code == 1008
    with client.websocket_connect(url, headers={"origin": "http://localhost"}) as ws:
        hello(ws, None)


def test_an_allowed_origin_may_use_the_api(tmp_path: Path) -> None:
    app = create_app(
        tmp_path / "games.sqlite3",
        bot_delay=0,
        allowed_origins=frozenset({"https://front.example"}),
    )
    with TestClient(app) as client:
        created = create(client, headers={"origin": "https://front.example"})
        with client.websocket_connect(
            f"/ws/{created['id']}", headers={"origin": "https://front.example"}
        ) as ws:
            hello(ws, None)
        other = client.post(
            "/api/games", json={"seats": HUMANS}, headers={"origin": "https://other.example"}
        )
        assert other.status_code == 403


# ------------------------------------------------------------------------------ ply


def test_an_act_without_ply_is_refused(client: Any) -> None:
    """Issue: ``ply`` was optional, so a captured ``act`` was accepted again a turn later."""
    created = create(client)
    token = created["seats"][0]["token"]
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        hello(ws, token)
        ws.send_json({"type": "act", "actions": [CLOSE_CITY]})
        error = ws.receive_json()
        assert error["code"] == "bad-message" and "'ply'" in error["message"]
        ws.send_json({"type": "preview", "action": CLOSE_CITY})
        assert ws.receive_json()["code"] == "bad-message"
    url = f"/api/games/{created['id']}/actions"
    response = client.post(url, headers=auth(token), json={"actions": [CLOSE_CITY]})
    assert response.status_code == 400 and "'ply'" in response.json()["message"]
    assert client.app.state.server.rooms[created["id"]].game.history == []


# ------------------------------------------------------------------------------ message rate


def test_the_message_rate_is_per_client_not_per_connection(tmp_path: Path) -> None:
    """Issue: each connection had its own 100 a second, so more connections meant more."""
    frozen = 0.0
    limits = RateLimits(message=Limit(per_minute=60, burst=4))
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, limits=limits, clock=lambda: frozen)
    with TestClient(app) as client:
        created = create(client)
        url = f"/ws/{created['id']}"
        with client.websocket_connect(url) as first, client.websocket_connect(url) as second:
            hello(first, None)  # one message each so far
            hello(second, None)
            first.send_json({"type": "ping"})
            assert first.receive_json() == {"type": "pong"}
            second.send_json({"type": "ping"})
            assert second.receive_json() == {"type": "pong"}
            # four messages from this client: the fifth, on either connection, waits
            for ws in (first, second):
                ws.send_json({"type": "ping"})
                assert ws.receive_json()["code"] == "rate-limited"


# ------------------------------------------------------------------------------ hello deadline


def test_the_hello_deadline_is_not_extended_by_other_messages(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue: any frame every 20 s kept a silent socket open for good."""
    monkeypatch.setattr(app_module, "HELLO_TIMEOUT", 0.6)
    created = create(client)
    started = time.monotonic()
    replies = []
    with (
        client.websocket_connect(f"/ws/{created['id']}") as ws,
        pytest.raises(WebSocketDisconnect) as closed,
    ):
        while time.monotonic() - started < 3:
            ws.send_json({"type": "ping"})
            replies.append(ws.receive_json())
            time.sleep(0.1)
    assert closed.value.code == 4400
    assert time.monotonic() - started < 2
    assert replies[-1]["message"] == "no hello received"


# ------------------------------------------------------------------------------ records


def test_uploaded_records_hold_seat_names_to_the_lobby_limit(client: Any) -> None:
    """Issue: an uploaded record allowed any seat-name length (the lobby's limit is 24)."""
    game = Game(players=2, stack=tuple(CITY_STACK))
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    names = {"fits": "N" * 24, "too long": "N" * 25}
    answers = {}
    for case, name in names.items():
        record = record_from_game(game, [{"name": name, "kind": "human"}, {"kind": "human"}])
        answers[case] = client.post("/api/replay", json=record)
    assert answers["fits"].status_code == 200
    assert answers["fits"].json()["game"]["seats"][0]["name"] == "N" * 24
    refused = answers["too long"]
    assert refused.status_code == 400 and refused.json()["error"] == "bad-record"
    assert "at most 24 characters" in refused.json()["message"]


# ------------------------------------------------------------------------------ tile ids

#: a tile id longer than a file name may be (255 bytes), and the 1.9 MB one of the attack run
LONG_IDS = {"300 chars": "x" * 300 + "/A", "1.9 MB": "base/" + "x" * 1_900_000}
INSTALL_DIR = str(Path(carcassonne.__file__).parent)


def _refusal_is_short(response: Any, code: str) -> None:
    """A 400 of ``code`` quoting a few dozen characters of the id, naming no path."""
    assert response.status_code == 400, response.text[:300]
    error = response.json()
    assert error["error"] == code
    assert len(error["message"]) < 200 and INSTALL_DIR not in error["message"]
    assert "unknown tile" in error["message"]


@pytest.mark.parametrize("tile_id", list(LONG_IDS.values()), ids=list(LONG_IDS))
def test_an_uploaded_record_with_a_long_tile_id_is_a_bad_record(
    client: Any, caplog: pytest.LogCaptureFixture, tile_id: str
) -> None:
    """Issue 22: a tile id over 255 bytes was an uncaught OSError (500, a traceback quoting the
    whole id: 1.9 MB of log per request)."""
    game = Game(players=2, stack=tuple(CITY_STACK))
    game.apply(game.legal_actions()[0])
    record = record_from_game(game, [{"kind": "human"}, {"kind": "human"}])
    in_stack = {**record, "stack": [tile_id, *record["stack"][1:]]}
    in_move = {**record, "moves": [{**record["moves"][0], "tile": tile_id}]}
    for bad in (in_stack, in_move):
        _refusal_is_short(client.post("/api/replay", json=bad), "bad-record")
    no_errors_logged(caplog)


@pytest.mark.parametrize("tile_id", list(LONG_IDS.values()), ids=list(LONG_IDS))
def test_a_game_with_a_long_tile_id_is_refused_without_naming_a_path(
    client: Any, caplog: pytest.LogCaptureFixture, tile_id: str
) -> None:
    """Issue 22: the refusal quoted the OSError, which named the install's absolute path."""
    body = {"seats": HUMANS, "options": {"stack": [tile_id]}}
    _refusal_is_short(client.post("/api/games", json=body), "bad-options")
    no_errors_logged(caplog)


def test_a_tile_id_never_becomes_a_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the bundled tile sets are read, by name: the set named in an id is not a path."""
    from carcassonne import tiles

    opened: list[str] = []
    real_files = tiles.resources.files

    def files(package: str) -> Any:
        opened.append(package)
        return real_files(package)

    tiles.bundled_tile_sets()  # listed once, before
    monkeypatch.setattr(tiles.resources, "files", files)
    for tile_id in ("../../../etc/passwd/x", "nosuchset/A", "\x00/A", LONG_IDS["300 chars"]):
        with pytest.raises(KeyError):
            tiles.tile_by_id(tile_id)
    assert opened == []


# ------------------------------------------------------------------------------ lone surrogates

#: a JSON escape of half a UTF-16 pair: no character, and no UTF-8 for it
LONE = '"\\ud800"'


def test_a_seat_name_with_a_lone_surrogate_is_refused_before_anything_is_stored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 22: creation answered 500 but stored the game, whose info and state then failed
    for ever (an orphan counting against the caps)."""
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    with TestClient(app) as client:
        body = '{"seats": [{"kind": "human", "name": ' + LONE + '}, {"kind": "human"}]}'
        refused = client.post("/api/games", content=body, headers=JSON_TYPE)
        assert refused.status_code == 400 and refused.json()["error"] == "bad-message"
        assert "lone UTF-16 surrogate" in refused.json()["message"]
        assert app.state.storage.count_unfinished() == 0
        # a pair that belongs together is one character, and welcome
        paired = body.replace(LONE, '"Ana \\ud83d\\ude00"')
        created = client.post("/api/games", content=paired, headers=JSON_TYPE)
        assert created.status_code == 201, created.text
        assert created.json()["game"]["seats"][0]["name"] == "Ana \U0001f600"
    no_errors_logged(caplog)


def test_a_hello_token_with_a_lone_surrogate_is_a_bad_message(
    client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 22: a ``server`` error and a traceback instead of a refusal."""
    game = create(client)
    with client.websocket_connect(f"/ws/{game['id']}") as ws:
        for text in ('{"type": "hello", "token": ' + LONE + "}", '{"type": "hello\\udfff"}'):
            ws.send_text(text)
            error = ws.receive_json()
            assert (error["type"], error["code"]) == ("error", "bad-message")
        hello(ws, game["seats"][0]["token"])  # the connection goes on
    no_errors_logged(caplog)


# ------------------------------------------------------------------------------ origins, headers


def test_an_origin_of_this_host_by_another_scheme_is_refused(client: Any) -> None:
    """Issue 22: the Origin check compared the host only, so an ``https://`` page was taken
    for one of this ``http://`` server."""
    other_scheme = {"origin": "https://localhost"}
    response = client.post("/api/games", json={"seats": HUMANS}, headers=other_scheme)
    assert response.status_code == 403 and response.json()["error"] == "forbidden-origin"
    created = create(client, headers={"origin": "http://localhost"})
    url = f"/ws/{created['id']}"
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(url, headers=other_scheme) as ws,
    ):
        ws.receive_json()
    assert refused.value.code == 1008


def test_an_https_server_takes_its_own_pages_origin(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    with TestClient(app, base_url="https://localhost") as client:
        create(client, headers={"origin": "https://localhost"})
        refused = client.post(
            "/api/games", json={"seats": HUMANS}, headers={"origin": "http://localhost"}
        )
        assert refused.status_code == 403


def test_answers_holding_a_seats_secrets_are_not_stored_by_caches(client: Any) -> None:
    """Issue 22: the links (at creation) and a seat's view carried no Cache-Control."""
    response = client.post("/api/games", json={"seats": HUMANS, "options": {"stack": CITY_STACK}})
    assert response.headers["cache-control"] == "no-store"
    game = response.json()
    token = game["seats"][0]["token"]
    state = client.get(f"/api/games/{game['id']}/state", headers=auth(token))
    assert state.headers["cache-control"] == "no-store"
    moved = client.post(
        f"/api/games/{game['id']}/actions",
        json={"actions": [CLOSE_CITY], "ply": 0},
        headers=auth(token),
    )
    assert moved.status_code == 200 and moved.headers["cache-control"] == "no-store"


def test_too_many_or_too_large_headers_are_refused(client: Any) -> None:
    """Issue 22: a 64 KiB header and 10,000 headers were accepted."""
    many = {f"x-h{i}": "1" for i in range(101)}
    large = {"x-large": "x" * (16 * 1024)}
    for headers in (many, large):
        response = client.get("/api/meta", headers=headers)
        assert response.status_code == 431, response.text
        assert response.json()["error"] == "headers-too-large"
    assert client.get("/api/meta", headers={f"x-h{i}": "1" for i in range(90)}).status_code == 200
    created = create(client)
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/{created['id']}", headers=many) as ws,
    ):
        ws.receive_json()
    assert refused.value.code == 1008
