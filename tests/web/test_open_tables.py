"""Open tables (issue 25, item 1) through the API, on both backends: seats left open, the game
waiting for them, taking a seat (once), the paged public list, the caps, the expiry of tables
that never fill, and every refusal naming what is wrong."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import TestClient, auth, hello

from carcassonne.game import GameOptions
from carcassonne.web import create_app
from carcassonne.web.database import open_storage
from carcassonne.web.opentables import PAGE_SIZE
from carcassonne.web.ratelimit import Limit, RateLimits
from carcassonne.web.server import (
    MAX_LISTED_PER_ADDRESS,
    UNCLAIMED_EXPIRE_AFTER,
    WAITING_EXPIRE_AFTER,
    GameServer,
)

PLENTY = Limit(per_minute=100_000, burst=10_000)
GENEROUS = RateLimits(create=PLENTY, read=PLENTY, join=PLENTY, state=PLENTY, action=PLENTY)
STACK = ["base/E", "base/U", "base/V"]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
ANA_AND_OPEN = [{"kind": "human", "name": "Ana"}, {"kind": "open"}]


def client_at(app: Any, address: str = "10.0.0.1") -> TestClient:
    return TestClient(app, client=(address, 1000))


@contextlib.contextmanager
def two_clients(app: Any) -> Iterator[tuple[TestClient, TestClient]]:
    """Clients at two addresses of one running app, on its one event loop as on a real server:
    two test clients entered apart would each start the app (twice its lifespan) on a loop of
    their own, and a room's lock taken from both loops fails when they contend."""
    with client_at(app) as first:
        second = client_at(app, "10.0.0.2")
        second.portal = first.portal  # its requests run on the first's loop
        yield first, second


def create(client: TestClient, seats: list[dict[str, Any]], **extra: Any) -> Any:
    answer = client.post("/api/games", json={"seats": seats, "options": {"stack": STACK}, **extra})
    assert answer.status_code == 201, answer.json()
    return answer.json()


def join(client: TestClient, game_id: str, seat: int, name: str = "Bo") -> Any:
    return client.post(f"/api/games/{game_id}/join", json={"seat": seat, "name": name})


def test_an_open_table_waits_until_its_seat_is_taken(games_db: str) -> None:
    app = create_app(games_db, bot_delay=0, limits=GENEROUS)
    with two_clients(app) as (ana, bo):
        created = create(ana, ANA_AND_OPEN, listed=True)
        game_id, token = created["id"], created["seats"][0]["token"]
        assert [s["seat"] for s in created["seats"]] == [0]  # no link for the open seat
        assert created["game"]["seats"][1]["kind"] == "open"
        assert created["game"]["seats"][1]["name"] == ""
        with ana.websocket_connect(f"/ws/{game_id}") as ws:
            state = hello(ws, token)
            assert state["waiting"] == [1] and "legal_actions" not in state["view"]
            ws.send_json({"type": "act", "actions": [CLOSE_CITY], "ply": 0})
            refused = ws.receive_json()
            assert refused["code"] == "table-waiting" and refused["params"] == {"seats": [2]}
            moved = ana.post(
                f"/api/games/{game_id}/actions",
                headers=auth(token),
                json={"actions": [CLOSE_CITY], "ply": 0},
            )
            assert moved.status_code == 409 and moved.json()["reason"] == "table_waiting"
            assert "seats [2] are open" in moved.json()["message"]
            taken = join(bo, game_id, 1, "  Bo  ")
            assert taken.status_code == 201
            assert taken.headers["cache-control"] == "no-store"
            answer = taken.json()
            assert set(answer) == {"id", "seat", "token"}
            assert answer["id"] == game_id and answer["seat"] == 1
            started = ws.receive_json()  # Ana's page hears the seat taken
            assert started["type"] == "state" and started["waiting"] == []
            assert "legal_actions" in started["view"]
            ws.send_json({"type": "act", "actions": [CLOSE_CITY], "ply": 0})
            assert ws.receive_json()["ply"] == 1
        bo_state = bo.get(f"/api/games/{game_id}/state", headers=auth(answer["token"])).json()
        assert bo_state["you"]["seats"] == [1] and bo_state["waiting"] == []
        assert bo_state["game"]["seats"][1]["name"] == "Bo"
        assert bo_state["game"]["seats"][1]["kind"] == "human"
        assert open_storage(games_db).load_game(game_id).claimed  # a stranger sat down


def test_a_seat_is_taken_once(games_db: str) -> None:
    app = create_app(games_db, bot_delay=0, limits=GENEROUS)
    seats = [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "bot": "random"}]
    with client_at(app) as client:
        game_id = create(client, seats)["id"]  # unlisted: taken by its link
        assert join(client, game_id, 1).status_code == 201
        for seat in (0, 1, 2):
            again = join(client, game_id, seat)
            assert again.status_code == 409 and again.json()["error"] == "seat-taken"
            assert again.json()["params"] == {"seat": seat + 1}
        beyond = join(client, game_id, 3)
        assert beyond.status_code == 400 and beyond.json()["reason"] == "join_seat"
        assert join(client, "nosuchgame", 0).status_code == 404
    stored = open_storage(games_db).load_game(game_id)
    assert [s["kind"] for s in stored.seats] == ["human", "human", "bot"]
    assert stored.seats[1]["name"] == "Bo" and stored.seats[1]["digest"]


def test_a_bot_waits_for_the_table_to_fill(games_db: str) -> None:
    app = create_app(games_db, bot_delay=0, limits=GENEROUS)
    seats = [{"kind": "bot", "bot": "random"}, {"kind": "open"}]
    with client_at(app) as client:
        game_id = create(client, seats, listed=True)["id"]
        time.sleep(0.3)
        assert client.get(f"/api/games/{game_id}/state").json()["ply"] == 0
        assert open_storage(games_db).orphaned_bot_games() == []  # nothing to tend yet
        bo = join(client, game_id, 1).json()
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            state = hello(ws, bo["token"])
            while state["ply"] == 0 or state["type"] != "state":
                state = ws.receive_json()
        assert state["ply"] >= 1  # the bot moved once the seat was taken


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"seats": ANA_AND_OPEN, "listed": "yes"}, "listed_not_boolean"),
        ({"seats": [{"kind": "human"}, {"kind": "human"}], "listed": True},
         "listed_without_open_seat"),
        ({"seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "open"}], "hotseat": True},
         "hotseat_open_seat"),
        ({"seats": [{"kind": "human"}, {"kind": "open", "name": "Eve"}]}, "seat_open_named"),
        ({"seats": [{"kind": "human"}, {"kind": "open", "bot": "random"}]}, "seat_not_bot"),
        ({"seats": [{"kind": "human"}, {"kind": "robot"}]}, "seat_kind"),
    ],
)  # fmt: skip
def test_a_bad_open_table_is_refused_naming_why(
    tmp_path: Any, body: dict[str, Any], reason: str
) -> None:
    with client_at(create_app(tmp_path / "g.sqlite3", limits=GENEROUS)) as client:
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 400 and answer.json()["reason"] == reason


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ([1], "join_request"),
        ({"name": "Bo"}, "join_request"),
        ({"seat": 1, "name": "Bo", "token": "x"}, "join_request"),
        ({"seat": "1"}, "join_seat"),
        ({"seat": True}, "join_seat"),
        ({"seat": -1}, "join_seat"),
        ({"seat": 1, "name": "B" * 25}, "seat_name"),
        ({"seat": 1, "name": 7}, "seat_name"),
    ],
)
def test_a_bad_join_is_refused_naming_why(tmp_path: Any, body: Any, reason: str) -> None:
    with client_at(create_app(tmp_path / "g.sqlite3", limits=GENEROUS)) as client:
        game_id = create(client, ANA_AND_OPEN)["id"]
        answer = client.post(f"/api/games/{game_id}/join", json=body)
        assert answer.status_code == 400 and answer.json()["reason"] == reason
        assert client.get(f"/api/games/{game_id}").json()["seats"][1]["kind"] == "open"


def test_a_blank_name_is_the_seats_default(tmp_path: Any) -> None:
    with client_at(create_app(tmp_path / "g.sqlite3", limits=GENEROUS)) as client:
        game_id = create(client, ANA_AND_OPEN)["id"]
        assert join(client, game_id, 1, " ").status_code == 201
        seat = client.get(f"/api/games/{game_id}").json()["seats"][1]
        assert seat["name"] == "Player 2" and seat["default_name"]


def test_the_list_holds_the_listed_tables_waiting_newest_first_by_pages(games_db: str) -> None:
    app = create_app(games_db, bot_delay=0, limits=GENEROUS)
    listed: list[str] = []
    clients = [client_at(app, f"10.0.1.{i}") for i in range(15)]
    with contextlib_all(clients):
        for client in clients:
            for _ in range(MAX_LISTED_PER_ADDRESS):
                listed.append(create(client, ANA_AND_OPEN, listed=True)["id"])
        first = clients[0]
        unlisted = create(first, ANA_AND_OPEN)["id"]
        create(first, [{"kind": "human"}, {"kind": "human"}])
        seen: list[str] = []
        pages = []
        cursor = None
        while True:
            query = "" if cursor is None else f"?page={cursor}"
            page = first.get(f"/api/tables{query}").json()
            pages.append(page)
            seen += [table["id"] for table in page["tables"]]
            cursor = page["next"]
            if cursor is None:
                break
        assert [len(p["tables"]) for p in pages] == [PAGE_SIZE, PAGE_SIZE, 5]
        assert seen == listed[::-1]  # newest first, each once
        assert unlisted not in seen
        entry = pages[0]["tables"][0]
        assert set(entry) == {"id", "seats", "options", "table", "created_ms", "open"}
        assert entry["open"] == [1] and entry["seats"][0]["name"] == "Ana"
        assert entry["table"]["clock"]["kind"] == "none"
        assert entry["options"]["fixed_stack"] is True
        # a table whose last seat is taken leaves the list
        assert join(first, seen[0], 1).status_code == 201
        after = first.get("/api/tables").json()["tables"]
        assert [t["id"] for t in after][:2] == seen[1:3]


class contextlib_all:
    """Enter every client, leave them all."""

    def __init__(self, clients: list[TestClient]) -> None:
        self.clients = clients

    def __enter__(self) -> None:
        for client in self.clients:
            client.__enter__()

    def __exit__(self, *exc: object) -> None:
        for client in self.clients:
            client.__exit__(*exc)


@pytest.mark.parametrize(
    "page",
    ["", "x", "1.5", "1.5~", "~abc", "nan~abc", "inf~abc", "1e999~abc", "1.5~a/b", "1~" + "a" * 33],
)
def test_a_bad_cursor_is_refused(tmp_path: Any, page: str) -> None:
    with client_at(create_app(tmp_path / "g.sqlite3", limits=GENEROUS)) as client:
        answer = client.get("/api/tables", params={"page": page})
        assert answer.status_code == 400 and answer.json()["reason"] == "bad_cursor"


def test_an_address_lists_at_most_three_tables_waiting(games_db: str) -> None:
    app = create_app(games_db, bot_delay=0, limits=GENEROUS)
    with two_clients(app) as (mine, other):
        ids = [create(mine, ANA_AND_OPEN, listed=True)["id"] for _ in range(3)]
        refused = mine.post("/api/games", json={"seats": ANA_AND_OPEN, "listed": True})
        assert refused.status_code == 503 and refused.json()["error"] == "too-many-open-tables"
        assert refused.json()["params"] == {"tables": 3}
        create(mine, ANA_AND_OPEN)  # unlisted: only the per-address cap of games counts
        create(other, ANA_AND_OPEN, listed=True)
        assert join(other, ids[0], 1).status_code == 201  # one filled: room for another
        create(mine, ANA_AND_OPEN, listed=True)


def test_the_join_rate_is_limited(tmp_path: Any) -> None:
    limits = RateLimits(create=PLENTY, join=Limit(per_minute=10, burst=2))
    with client_at(create_app(tmp_path / "g.sqlite3", limits=limits)) as client:
        seats = [{"kind": "human"}, *[{"kind": "open"}] * 3]
        game_id = create(client, seats)["id"]
        assert join(client, game_id, 1).status_code == 201
        assert join(client, game_id, 2).status_code == 201
        refused = join(client, game_id, 3)
        assert refused.status_code == 429 and refused.headers["retry-after"]
    assert RateLimits().join.per_minute == 10


class Clock:
    """Seconds since the epoch, moved by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def test_a_table_that_never_fills_expires_after_30_minutes(games_db: str) -> None:
    storage = open_storage(games_db)
    clock = Clock()
    server = GameServer(storage, bot_delay=0, clock=clock)
    seats = [
        {"kind": "human", "bot": None, "name": "Ana"},
        {"kind": "open", "bot": None, "name": ""},
    ]

    async def scenario() -> list[str]:
        options = GameOptions(stack=tuple(STACK))
        waiting, _ = await server.create(seats, options, False, "10.0.0.1", None, True)
        unlisted, _ = await server.create(seats, options, False, "10.0.0.1")
        filled, _ = await server.create(seats, options, False, "10.0.0.1")
        await filled.open_seats.take(1, "Bo")
        # past the expiry of games nobody took up: a waiting table is not one of those
        clock.now += UNCLAIMED_EXPIRE_AFTER + 1
        await server.sweep()
        assert storage.count_unfinished() == 2  # the filled one (nobody moved) is gone
        clock.now = time.time() + WAITING_EXPIRE_AFTER - 5
        await server.sweep()
        assert storage.count_unfinished() == 2
        clock.now += 10
        await server.sweep()
        return [waiting.id, unlisted.id, filled.id]

    ids = asyncio.run(scenario())
    why = [storage.load_game(game_id).expired for game_id in ids]
    assert why[0] == why[1] == "it expired: its open seats waited 30 minutes"
    assert why[2] is not None and "nobody joined it or moved" in why[2]
    assert storage.count_unfinished() == 0
    storage.close()


def test_a_waiting_table_refuses_seat_changes_and_runs_no_clock(games_db: str) -> None:
    app = create_app(games_db, bot_delay=0, limits=GENEROUS)
    table = {"clock": {"kind": "real-time", "initial_ms": 60_000, "increment_ms": 0}}
    with client_at(app) as client:
        created = create(client, ANA_AND_OPEN, table=table)
        game_id, token = created["id"], created["seats"][0]["token"]
        resign = client.post(
            f"/api/games/{game_id}/seat", headers=auth(token), json={"change": "resign", "ply": 0}
        )
        assert resign.status_code == 409 and resign.json()["reason"] == "table_waiting"
        state = client.get(f"/api/games/{game_id}/state", headers=auth(token)).json()
        assert state["may"] == {"resign": False, "return": False, "stand_in": []}
        assert state["clocks"]["running"] is None and state["clocks"]["deadline_ms"] is None
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            ws.send_json({"type": "hint", "ply": 0})
            assert ws.receive_json()["code"] == "table-waiting"
    assert open_storage(games_db).load_game(game_id).changes == []
