"""Security and robustness of the web server: what an attacker or a damaged database can do.

* Cross-site scripting: the client never parses text as HTML, the CSP allows only its own
  scripts, and everything user-controlled travels as JSON.
* Injection and traversal: parameterised SQL, static files confined to ``web/static``, request
  size limits, game ids and tokens checked (tokens stored and compared as digests), no map file
  picked by a client.
* Hidden information: every message a seat or spectator can get is the same whatever the
  stack order, the face-down map chips and the other seats' bet chips are.
* Robustness: random websocket messages are refused without changing the game or ending the
  connection; an engine failure halfway through a move leaves the game as stored.
* Persistence: a move committed but never broadcast is there after a restart, exactly once;
  damaged database rows freeze their own game with a reason and the server serves the others.
"""

from __future__ import annotations

import ast
import asyncio
import json
import random
import re
import sqlite3
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_helpers import TestClient, auth, hello

import carcassonne.web as web_package
from carcassonne.expansions.bets import Bets
from carcassonne.expansions.mapchips import MapChips
from carcassonne.formats.actions import action_from_json
from carcassonne.game import Game
from carcassonne.web import create_app, rooms
from carcassonne.web.outbox import SPECTATOR, Principal
from carcassonne.web.protocol import ProtocolError, parse_options, parse_seats
from carcassonne.web.ratelimit import Limit, RateLimits

WEB = Path(web_package.__file__).parent
HUMAN = {"kind": "human", "name": "Ana"}
HUMANS = [HUMAN, {"kind": "human", "name": "Bo"}]
# Start tile D has its city to the north; base/E turned 180° closes it into a 2-tile city.
CITY_STACK = ["base/E", "base/U", "base/V"]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(db: Path) -> Any:
    with TestClient(create_app(db, bot_delay=0)) as c:
        yield c


def create(client: Any, seats: list[dict[str, Any]] = HUMANS, **options: Any) -> dict[str, Any]:
    hotseat = options.pop("hotseat", False)
    body = {"seats": seats, "options": options, "hotseat": hotseat}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


# ------------------------------------------------------------------------------ XSS

HTML_SINKS = re.compile(
    r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new Function"
    r"|createContextualFragment|DOMParser|srcdoc|javascript:|setTimeout\(\s*[\"'`]"
)


def test_client_never_parses_text_as_html() -> None:
    """Names, town names, record contents and error messages reach the page only as text."""
    scripts = sorted((WEB / "static" / "js").glob("*.js"))
    assert len(scripts) >= 10
    sinks = [
        f"{path.name}:{n}: {line.strip()}"
        for path in scripts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HTML_SINKS.search(line)
    ]
    assert sinks == []
    # The one element builder turns every string child into a text node.
    helper = (WEB / "static" / "js" / "svg.js").read_text(encoding="utf-8")
    assert "document.createTextNode(String(child))" in helper


def test_page_has_no_inline_script_or_handler() -> None:
    page = (WEB / "static" / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts and all(" src=" in tag for tag in scripts)
    assert not re.search(r"\son\w+\s*=", page)


@pytest.mark.parametrize("path", ["/", "/static/js/app.js", "/api/meta", "/api/games/nope"])
def test_every_response_forbids_foreign_and_inline_scripts(client: Any, path: str) -> None:
    headers = client.get(path).headers
    policy = dict(
        part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";")
    )
    assert policy["default-src"] == "'self'"
    assert "script-src" not in policy  # scripts fall back to default-src: own files only
    assert policy["frame-ancestors"] == "'none'" and policy["base-uri"] == "'none'"
    assert headers["x-content-type-options"] == "nosniff"


def test_hostile_names_and_echoed_input_travel_only_as_json(client: Any) -> None:
    evil = "<img src=x onerror=1>"
    created = create(client, [{"kind": "human", "name": evil}, {"kind": "human", "name": "Bo"}])
    info = client.get(f"/api/games/{created['id']}")
    assert info.headers["content-type"] == "application/json"
    assert info.json()["seats"][0]["name"] == evil  # stored as given, shown as text
    refused = client.post(
        f"/api/games/{created['id']}/actions",
        headers=auth(created["seats"][0]["token"]),
        json={"actions": [{"type": "<script>alert(1)</script>"}]},
    )
    assert refused.status_code == 400
    assert refused.headers["content-type"] == "application/json"
    assert "<script>" in refused.json()["message"]  # named, as text, for the JS to show as text


# ------------------------------------------------------------------------------ injection


@pytest.mark.parametrize("module", ["storage.py", "pgstorage.py"])
def test_sql_is_always_parameterised(module: str) -> None:
    """Every statement of both backends is a literal string (or a constant script or migration
    step of web/schema.py, or the statement a wrapper was given, itself always a literal);
    values go in as parameters."""
    tree = ast.parse((WEB / module).read_text(encoding="utf-8"))
    wrappers = {"execute", "executemany", "_rows"}
    calls = [
        (function.name, node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in (*wrappers, "executescript")
    ]
    assert len(calls) >= 8 if module == "storage.py" else len(calls) >= 5
    scripts = {"SQLITE_SCHEMA", "POSTGRES_SCHEMA", "step"}  # of web/schema.py (step: migrations)
    for function, call in calls:
        sql = call.args[0]
        if isinstance(sql, ast.Call) and ast.unparse(sql.func) == "_placeholders":
            sql = sql.args[0]  # PostgreSQL's placeholders for the contract's: the same check
        literal = isinstance(sql, ast.Constant) and isinstance(sql.value, str)
        if isinstance(sql, ast.Name) and sql.id == "sql":
            assert function in wrappers, ast.unparse(call)  # passing on a statement given it
            continue
        assert literal or (isinstance(sql, ast.Name) and sql.id in scripts), ast.unparse(call)


@pytest.mark.parametrize(
    "game_id", ["x' OR '1'='1", "a" * 200, "%00", "id;DROP TABLE games", "é" * 8]
)
def test_odd_game_ids_are_simply_not_found(client: Any, game_id: str) -> None:
    created = create(client)
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 404 and response.json()["error"] == "not-found"
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        assert ws.receive_json()["code"] == "not-found"
    assert client.get(f"/api/games/{created['id']}").status_code == 200


async def _asgi_get(app: Any, raw_path: bytes) -> int:
    """Status of a GET whose path reaches the app exactly as given (no client normalising)."""
    from urllib.parse import unquote_to_bytes

    sent: list[dict[str, Any]] = []
    requests = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive() -> dict[str, Any]:
        if requests:
            return requests.pop()
        await anyio.sleep_forever()  # the client stays connected until the answer is sent
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote_to_bytes(raw_path).decode("utf-8", "replace"),
        "raw_path": raw_path,
        "query_string": b"",
        "headers": [(b"host", b"localhost")],
        "server": ("localhost", 80),
        "client": ("testclient", 1),
        "root_path": "",
        "app": app,
    }
    await app(scope, receive, send)
    return int(sent[0]["status"])


@pytest.mark.parametrize(
    "raw_path",
    [
        b"/static/../app.py",
        b"/static/%2e%2e/app.py",
        b"/static/..%2fstorage.py",
        b"/static/js/../../rooms.py",
        b"/static/%2e%2e/%2e%2e/formats/record.py",
        b"/static//etc/passwd",
    ],
)
def test_static_files_stay_inside_the_static_folder(client: Any, raw_path: bytes) -> None:
    app = client.app
    assert client.portal.call(_asgi_get, app, b"/static/js/app.js") == 200
    assert client.portal.call(_asgi_get, app, raw_path) == 404


def test_oversized_bodies_are_refused_as_they_arrive(client: Any) -> None:
    limit = 2 * 1024 * 1024
    json_type = {"content-type": "application/json"}
    declared = client.post(
        "/api/replay", content=b"{}", headers={**json_type, "content-length": str(limit * 100)}
    )
    assert declared.status_code == 413
    streamed = client.post(
        "/api/replay", content=(b" " * 65536 for _ in range(40)), headers=json_type
    )
    assert streamed.status_code == 413
    assert "larger than" in streamed.json()["message"]


def _record(**options: Any) -> dict[str, Any]:
    return {"format": "carcassonne-record/1", "options": options, "moves": []}


def test_an_uploaded_record_cannot_make_the_server_read_a_file(client: Any, tmp_path: Path) -> None:
    """A record's map may be a file path for the command line; never on the server."""
    own_map = tmp_path / "secret.json"
    own_map.write_text('{"format": "carcassonne-map/1", "secret": "hunter2"}', encoding="utf-8")
    for name in (str(own_map), "/dev/zero", "../maps/france"):
        response = client.post("/api/replay", json=_record(map=name, start_squares=["A", "B"]))
        assert response.status_code == 400, name
        body = response.json()
        assert body["error"] == "bad-record" and "unknown map" in body["message"]
        assert "hunter2" not in body["message"]
    bundled = {**_record(map="france"), "seed": 1}
    assert client.post("/api/replay", json=bundled).status_code == 200


def test_a_client_cannot_pick_a_map_file_for_a_new_game(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not by path, nor by a name that happens to be a file in the server's directory."""
    tiny = (WEB.parent / "data" / "maps" / "test-tiny.json").read_text(encoding="utf-8")
    (tmp_path / "mymap").write_text(tiny, encoding="utf-8")
    (tmp_path / "x.json").write_text(tiny, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in (str(tmp_path / "x.json"), "/dev/zero", "mymap", "../maps/france"):
        response = client.post("/api/games", json={"seats": HUMANS, "options": {"map": name}})
        assert response.status_code == 400, name
        assert "unknown map" in response.json()["message"]


def test_an_uploaded_record_is_bounded_in_size(client: Any) -> None:
    response = client.post("/api/replay", json=_record(copies=8))
    assert response.status_code == 400
    assert "'copies' must be from 1 to 3" in response.json()["message"]


def test_tokens_are_stored_only_as_digests(client: Any, db: Path) -> None:
    created = create(client, [HUMAN, {"kind": "human"}, {"kind": "bot", "bot": "random"}])
    hotseat = create(client, hotseat=True)
    tokens = [s["token"] for s in created["seats"]] + [hotseat["hotseat_token"]]
    content = b"".join(p.read_bytes() for p in db.parent.glob(f"{db.name}*"))
    assert content
    for token in tokens:
        assert token.encode() not in content
    # Comparison is of fixed-length digests in constant time, never of the tokens themselves.
    source = (WEB / "rooms.py").read_text(encoding="utf-8")
    assert "compare_digest(digest" in source
    assert "token ==" not in source and "== token" not in source


def test_near_miss_and_oversized_tokens_are_refused(client: Any) -> None:
    created = create(client)
    game_id, token = created["id"], created["seats"][0]["token"]
    for bad in (token[:-1] + ("A" if token[-1] != "A" else "B"), token + " x", "x" * 5000):
        response = client.get(f"/api/games/{game_id}/state", headers=auth(bad))
        assert response.status_code == 403, bad[:20]
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        ws.send_json({"type": "hello", "token": "x" * 5000})
        assert ws.receive_json()["code"] == "bad-message"


def test_there_is_no_list_of_games(client: Any) -> None:
    create(client)
    assert client.get("/api/games").status_code == 405


# ------------------------------------------------------------------------------ hidden information


def _hidden_info_room(db: Path) -> Any:
    """A France game with The Bets and Map-Chips, played by random legal moves until both seats
    have a chip on an office, face-down map chips remain and seat 0 is to place a tile."""
    app = create_app(db, bot_delay=0)
    seats = parse_seats(HUMANS)
    options = parse_options({"bets": True, "map": "france", "map_chips": True, "seed": 5}, 2)
    room, _ = asyncio.run(app.state.server.create(seats, options, False))
    game, rng = room.game, random.Random(3)
    for _ in range(600):
        bets, chips = game.expansion(Bets), game.expansion(MapChips)
        owners = {seat for office in bets.offices.values() for seat, _ in office}
        if owners == {0, 1} and game.phase == "tile" and game.to_move == 0 and chips.face_down:
            return room
        legal = game.legal_actions()
        bet = [a for a in legal if type(a).__name__ == "PlaceBet"]
        game.apply(bet[0] if bet else rng.choice(legal))
    raise AssertionError("the random game never had both seats' chips on an office")


def _everything_sent(room: Any) -> dict[str, Any]:
    """Every message each principal can get now: welcome, state, a preview, refusals."""
    game = room.game
    seat0, seat1 = Principal(frozenset({0})), Principal(frozenset({1}))
    out: dict[str, Any] = {"info": room.public_info()}
    for name, who in (("seat 0", seat0), ("seat 1", seat1), ("spectator", SPECTATOR)):
        out[name] = [room.welcome(who), room.state(who)]
    placement = game.legal_actions()[0]
    out["seat 0"].append(room.preview(seat0, placement, None))
    for who, data in (
        (seat0, {"type": "place-tile", "x": 40, "y": 40, "rotation": 0}),
        (seat0, {"type": "place-bet", "chip": "4"}),
        (seat0, {"type": "sell-wine", "outlet": "town", "colour": "orange", "chips": [2]}),
        (seat1, {"type": "pass"}),
        (seat0, {"type": "place-tile", "x": placement.x, "y": placement.y, "rotation": 45}),
    ):
        with pytest.raises(ProtocolError) as refused:
            asyncio.run(room.submit(who, [action_from_json(data)]))
        out["seat 0" if who is seat0 else "seat 1"].append(str(refused.value))
    return out


def test_no_message_depends_on_what_is_hidden(db: Path) -> None:
    """Change only hidden things (the stack order, the face-down map chips, seat 0's chips on
    the offices): nothing any other seat or a spectator can receive may change."""
    room = _hidden_info_room(db)
    game = room.game
    before = json.dumps(_everything_sent(room), sort_keys=True)

    game.stack.reverse()
    chips = game.expansion(MapChips)
    squares = list(chips.face_down)
    values = [chips.face_down[pos] for pos in squares]
    assert len(set(values)) > 1
    chips.face_down = dict(zip(squares, values[1:] + values[:1], strict=True))
    after_public = json.dumps(_everything_sent(room), sort_keys=True)
    assert after_public == before

    bets = game.expansion(Bets)
    for office in bets.offices.values():
        office[:] = [(s, "5/8+" if c != "5/8+" else "2/6") if s == 0 else (s, c) for s, c in office]
    after = _everything_sent(room)
    original = json.loads(before)
    for name in ("info", "seat 1", "spectator"):
        assert json.dumps(after[name], sort_keys=True) == json.dumps(original[name], sort_keys=True)
    # ... while seat 0 does see its own chips: the comparison can tell a difference.
    assert json.dumps(after["seat 0"], sort_keys=True) != json.dumps(
        original["seat 0"], sort_keys=True
    )


def test_a_chosen_seed_is_announced_but_never_sent(client: Any) -> None:
    chosen = create(client, seed=987654321)
    drawn = create(client)
    info = client.get(f"/api/games/{chosen['id']}").json()
    assert info["options"]["fixed_seed"] is True
    assert "987654321" not in json.dumps(info)
    state = client.get(f"/api/games/{chosen['id']}/state").json()
    assert "987654321" not in json.dumps(state)
    assert client.get(f"/api/games/{drawn['id']}").json()["options"]["fixed_seed"] is False


# ------------------------------------------------------------------------------ robustness

SCALARS = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=6)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
SMALL = st.integers(-2, 2)


def _of(kind: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Messages or actions of type ``kind`` with the given field strategies."""
    return st.fixed_dictionaries({"type": st.just(kind), **fields})


ACTIONS = st.one_of(
    _of("place-tile", x=SMALL, y=SMALL, rotation=st.sampled_from([0, 90, 180, 270, 45, -90])),
    _of(
        "place-figure",
        figure=st.sampled_from(["meeple", "abbot", "dragon"]),
        location=st.sampled_from(["N", "S", "NL", "monastery", "office", ""]),
    ),
    _of("pass"),
    _of("place-bet", chip=st.sampled_from(["4", "2/6", "9"])),
    _of("recall-abbot", x=SMALL, y=SMALL),
    _of("sell-wine", outlet=st.just("town"), colour=st.just("orange"), chips=st.lists(JSON)),
    st.dictionaries(st.sampled_from(["type", "x", "y", "rotation", "chip"]), JSON, max_size=4),
)
PLY = st.none() | st.integers(-1, 8) | JSON
MESSAGES = st.one_of(
    JSON,
    _of("act", actions=st.lists(ACTIONS, max_size=5), ply=PLY),
    _of("act", actions=st.lists(ACTIONS, min_size=1, max_size=2)),
    _of("preview", action=ACTIONS | JSON, ply=PLY),
    _of("hello", token=JSON),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["act", "preview", "ping", "hello", "bye"])},
        optional={"actions": JSON, "action": JSON, "ply": JSON, "extra": JSON},
    ),
)
REFUSALS = {
    "bad-message", "illegal", "not-your-turn", "stale", "game-over", "unauthorised", "rate-limited"
}  # fmt: skip


def _snapshot(room: Any) -> tuple[Any, ...]:
    stored = room.storage.load_game(room.id)
    return len(room.game.history), json.dumps(room.game.view(None)), len(stored.actions)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(messages=st.lists(MESSAGES | st.text(max_size=30), min_size=1, max_size=4))
def test_random_websocket_messages_never_corrupt_the_game_or_the_connection(
    live: tuple[Any, Any], messages: list[Any]
) -> None:
    room, ws = live
    for message in messages:
        before = _snapshot(room)
        ws.send_text(message if isinstance(message, str) else json.dumps(message))
        reply = ws.receive_json()
        if reply["type"] == "error":
            assert reply["code"] in REFUSALS and reply["message"], reply
            assert _snapshot(room) == before
        else:
            assert reply["type"] in ("state", "preview", "pong")
        history, _, stored = _snapshot(room)
        assert history == stored  # what is played is what is stored
    ws.send_json({"type": "ping"})
    assert ws.receive_json() == {"type": "pong"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: Any) -> Any:
    """One hotseat game (every seat may act) and its open websocket, shared by the examples."""
    # the fuzzer sends faster than a person
    fast = RateLimits(message=Limit(per_minute=10**9, burst=10**6))
    db = tmp_path_factory.mktemp("fuzz") / "games.sqlite3"
    with TestClient(create_app(db, bot_delay=0, limits=fast)) as c:
        stack = ["base/E", "bets/01", "base/B", "base/U", "base/D"]
        created = create(c, hotseat=True, bets=True, abbot=True, stack=stack)
        with c.websocket_connect(f"/ws/{created['id']}") as ws:
            hello(ws, created["hotseat_token"])
            yield c.app.state.server.rooms[created["id"]], ws


def test_an_engine_failure_halfway_through_a_move_leaves_the_game_as_stored(client: Any) -> None:
    created = create(client, stack=CITY_STACK)
    game_id, token = created["id"], created["seats"][0]["token"]
    room = client.app.state.server.rooms[game_id]
    figure = {"type": "place-figure", "figure": "meeple", "location": "S"}
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        ws.send_json({"type": "act", "actions": [CLOSE_CITY], "ply": 0})
        assert ws.receive_json()["ply"] == 1
        # A simulated engine bug: with no score to add to, scoring the city the figure is put
        # on fails (IndexError) after the figure is down.  (Patching an engine method would not
        # work in the compiled build.)
        room.game.scores = []
        ws.send_json({"type": "act", "actions": [figure], "ply": 1})
        error = ws.receive_json()
        assert error["code"] == "server" and "index" not in error["message"]
        # the figure was put down before scoring failed: the game is rebuilt without it
        assert len(room.game.history) == 1 and room.game.figures == {}
        assert room.game.phase == "figure" and room.game.scores == [0, 0]
        ws.send_json({"type": "act", "actions": [figure], "ply": 1})
        state = ws.receive_json()
    assert state["type"] == "state" and state["view"]["scores"] == [4, 0]


# ------------------------------------------------------------------------------ persistence


def test_a_move_committed_but_never_broadcast_is_there_once_after_a_restart(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(db, bot_delay=0)
    seats = parse_seats(HUMANS)
    room, links = asyncio.run(
        app.state.server.create(seats, parse_options({"stack": CITY_STACK}, 2), False)
    )
    token = links["seats"][0]["token"]

    def power_cut(self: Any) -> None:
        raise SystemExit("the server stopped before telling anyone")

    monkeypatch.setattr(rooms.Room, "broadcast", power_cut)
    with pytest.raises(SystemExit):
        asyncio.run(room.submit(Principal(frozenset({0})), [action_from_json(CLOSE_CITY)], 0))
    monkeypatch.undo()

    with TestClient(create_app(db, bot_delay=0)) as client:
        state = client.get(f"/api/games/{room.id}/state", headers=auth(token)).json()
        assert state["ply"] == 1 and state["broken"] is None
        assert [t["tile"] for t in state["view"]["tiles"]] == ["base/D", "base/E"]
        # the client that never heard back sends the move again: refused, not applied twice
        again = client.post(
            f"/api/games/{room.id}/actions",
            headers=auth(token),
            json={"actions": [CLOSE_CITY], "ply": 0},
        )
        assert again.status_code == 409 and again.json()["error"] == "stale"
    assert len(app.state.storage.load_game(room.id).actions) == 1


def _damage(db: Path, sql: str, *params: Any) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(sql, params)


def test_damaged_rows_break_only_their_own_game(db: Path) -> None:
    app = create_app(db, bot_delay=0)
    server = app.state.server
    figure = {"type": "place-figure", "figure": "meeple", "location": "S"}
    games = {}
    for name in ("good", "bad-json", "illegal", "options", "options-json", "seats", "bot"):
        seats = parse_seats(HUMANS if name != "bot" else [HUMAN, {"kind": "bot", "bot": "random"}])
        room, links = asyncio.run(
            server.create(seats, parse_options({"stack": CITY_STACK}, 2), False)
        )
        moves = [action_from_json(a) for a in (CLOSE_CITY, figure)]
        asyncio.run(room.submit(Principal(frozenset({0})), moves))
        games[name] = (room.id, links["seats"][0]["token"])
    app.state.storage.close()
    _damage(
        db, "UPDATE actions SET action='{not json' WHERE game_id=? AND ply=1", games["bad-json"][0]
    )
    _damage(
        db,
        "UPDATE actions SET action=? WHERE game_id=? AND ply=1",
        json.dumps({"type": "place-figure", "figure": "meeple", "location": "W"}),
        games["illegal"][0],
    )
    _damage(
        db,
        'UPDATE games SET options=\'{"players": 2, "colour": 1}\' WHERE id=?',
        games["options"][0],
    )
    _damage(db, "UPDATE games SET options='{' WHERE id=?", games["options-json"][0])
    _damage(db, "UPDATE games SET seats='[1, 2]' WHERE id=?", games["seats"][0])
    _damage(db, "UPDATE games SET seats=replace(seats, 'random', 'oracle') WHERE id=?",
            games["bot"][0])  # fmt: skip

    with TestClient(create_app(db, bot_delay=0)) as client:  # starting resumes every game
        good_id, good_token = games["good"]
        state = client.get(f"/api/games/{good_id}/state", headers=auth(good_token)).json()
        assert state["broken"] is None and state["view"]["scores"] == [4, 0]

        for name, reason in (("bad-json", "stored action 2 is not JSON"),
                             ("illegal", "stored action 2 no longer replays")):  # fmt: skip
            game_id, token = games[name]
            state = client.get(f"/api/games/{game_id}/state", headers=auth(token)).json()
            assert reason in state["broken"]
            assert state["ply"] == 1  # frozen just before the damaged action
            refused = client.post(
                f"/api/games/{game_id}/actions",
                headers=auth(token),
                json={"actions": [figure], "ply": state["ply"]},
            )
            assert refused.status_code == 409 and refused.json()["error"] == "broken"

        for name, reason in (
            ("options", "stored setup no longer works: TypeError"),
            ("options-json", "its stored setup is not JSON"),
            ("seats", "stored setup no longer works: stored seat 1 is malformed"),
            (
                "bot",
                "stored setup no longer works: stored seat 2 has no usable bot: "
                "unknown bot 'oracle'",
            ),
        ):
            game_id, token = games[name]
            response = client.get(f"/api/games/{game_id}", headers=auth(token))
            assert response.status_code == 409, name
            body = response.json()
            assert body["error"] == "broken" and reason in body["message"]
            with client.websocket_connect(f"/ws/{game_id}") as ws:
                assert ws.receive_json()["code"] == "broken"

        # ... and the server still creates and plays new games
        fresh = create(client, stack=CITY_STACK)
        moved = client.post(
            f"/api/games/{fresh['id']}/actions",
            headers=auth(fresh["seats"][0]["token"]),
            json={"actions": [CLOSE_CITY, figure], "ply": 0},
        )
        assert moved.status_code == 200 and moved.json()["view"]["scores"] == [4, 0]


def test_a_stored_action_that_no_longer_decodes_breaks_the_game_at_its_own_ply(db: Path) -> None:
    """Stored actions are decoded as they are replayed: JSON that is no action (e.g. written by
    a later version) is named by its ply, and the game is kept up to just before it."""
    app = create_app(db, bot_delay=0)
    figure = {"type": "place-figure", "figure": "meeple", "location": "S"}
    room, links = asyncio.run(
        app.state.server.create(parse_seats(HUMANS), parse_options({"stack": CITY_STACK}, 2), False)
    )
    asyncio.run(
        room.submit(Principal(frozenset({0})), [action_from_json(a) for a in (CLOSE_CITY, figure)])
    )
    app.state.storage.close()
    not_an_action = json.dumps({"type": "fly"})
    _damage(db, "UPDATE actions SET action=? WHERE game_id=? AND ply=1", not_an_action, room.id)
    with TestClient(create_app(db, bot_delay=0)) as client:
        token = links["seats"][0]["token"]
        state = client.get(f"/api/games/{room.id}/state", headers=auth(token)).json()
        assert state["broken"].startswith(
            "stored action 2 no longer replays: unknown action type 'fly'"
        )
        assert state["ply"] == 1  # the city placed, the figure not


# ------------------------------------------------------------------------------ XSS in a browser

CHROMIUM = Path("/usr/bin/chromium")
# Each would run script if it were parsed as HTML; 24 characters at most (a seat name's limit).
HOSTILE = ["<img src=x onerror=X=1>", "<svg onload=X=2>", "<script>X=3</script>"]


@pytest.fixture
def live_server(db: Path) -> Any:
    """The app on a loopback port in this process (uvicorn in a thread)."""
    import threading
    import time

    import uvicorn

    from carcassonne.cli import serve

    sock = serve.listen("127.0.0.1", 0)  # bound here: no other program can take the port
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(db, bot_delay=0.05), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
    sock.close()


@pytest.mark.skipif(
    not CHROMIUM.exists() and not __import__("os").environ.get("CI"),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
)
def test_hostile_text_is_shown_as_text_in_the_browser(live_server: str, tmp_path: Path) -> None:
    """Seat names in the lobby, the game and a replay, an uploaded record's names and info,
    and a server error quoting the upload: all appear as text, none becomes an element."""
    from playwright.sync_api import expect, sync_playwright

    def post(path: str, body: Any) -> Any:
        request = urllib.request.Request(
            f"{live_server}{path}",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())

    seats = [
        {"kind": "human", "name": HOSTILE[0]},
        {"kind": "bot", "bot": "random", "name": HOSTILE[1]},
    ]
    created = post("/api/games", {"seats": seats, "options": {"stack": CITY_STACK}})
    finished = Game(players=2, stack=tuple(CITY_STACK))
    while not finished.is_over:
        finished.apply(finished.legal_actions()[0])
    from carcassonne.formats.record_writer import record_from_game

    # a record's names are held to the lobby's 24 characters, which every hostile text fits
    record = record_from_game(finished, [{"name": h, "kind": "human"} for h in HOSTILE[:2]])
    record["info"] = {"event": HOSTILE[2], "note": HOSTILE[0]}
    (tmp_path / "record.json").write_text(json.dumps(record), encoding="utf-8")
    bad = {**record, "moves": [{"seat": 0, "tile": HOSTILE[0], "x": 0, "y": 1, "rotation": 0}]}
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")

    def no_injected_elements(page: Any) -> None:
        assert page.evaluate("typeof X") == "undefined"
        assert page.locator("img, script:not([src]), svg[onload]").count() == 0

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        token = created["seats"][0]["token"]
        page.goto(f"{live_server}/#/play/{created['id']}/{token}")
        expect(page.locator(".scores .name").first).to_have_text(HOSTILE[0])
        no_injected_elements(page)
        page.goto(f"{live_server}/#/")  # the lobby lists this browser's games with their seats
        expect(page.get_by_text(HOSTILE[1]).first).to_be_visible()
        no_injected_elements(page)
        page.goto(f"{live_server}/#/replay")
        page.locator("[data-upload]").set_input_files(str(tmp_path / "bad.json"))
        expect(page.locator(".error-box")).to_contain_text(HOSTILE[0])
        no_injected_elements(page)
        page.locator("[data-upload]").set_input_files(str(tmp_path / "record.json"))
        expect(page.locator('[data-step="back"]')).to_be_visible()
        expect(page.locator(".scores .name").first).to_have_text(HOSTILE[0])
        no_injected_elements(page)
        browser.close()
    assert errors == []


def test_unreadable_rows_break_only_their_own_game(db: Path) -> None:
    """SQLite reports a damaged page only when it is read: that game is refused with the
    reason, and the server goes on with the others."""
    app = create_app(db, bot_delay=0)
    server, storage = app.state.server, app.state.storage
    seats, options = parse_seats(HUMANS), parse_options({"stack": CITY_STACK}, 2)
    damaged, _ = asyncio.run(server.create(seats, options, False))
    server.rooms.clear()  # as after a restart: games are read again when asked for

    class DamagedPage:
        def __init__(self, real: sqlite3.Connection) -> None:
            self.real = real

        def execute(self, sql: str, params: Any = ()) -> Any:
            if "FROM actions" in sql and params == (damaged.id,):
                raise sqlite3.DatabaseError("database disk image is malformed")
            return self.real.execute(sql, params)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.real, name)

    storage._db = DamagedPage(storage._db)
    with pytest.raises(ProtocolError, match="its rows cannot be read .*malformed") as refused:
        asyncio.run(server.get(damaged.id))
    assert refused.value.code == "broken"
    asyncio.run(server.resume())  # starting up skips it
    other, _ = asyncio.run(server.create(seats, options, False))
    asyncio.run(other.submit(Principal(frozenset({0})), [action_from_json(CLOSE_CITY)]))
    assert len(storage.load_game(other.id).actions) == 1
