"""Play again (issue 25, item 3): a seat of a finished game makes the next one, with the same
options (a new seed), table settings and seats rotated by one, each human keeping their token;
made once however many ask at once, in one process or two; offered to every connection of the
old game; counted as the asker's new game (caps, rate limit); on both backends."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
from test_chat import next_of
from test_multiprocess import Serve, state_at
from web_helpers import TestClient, auth

from carcassonne.clocks import PRESETS
from carcassonne.web import create_app
from carcassonne.web.database import open_storage
from carcassonne.web.ratelimit import Limit, RateLimits
from carcassonne.web.storage import RematchTaken, Storage

SEATS = [
    {"kind": "human", "name": "Ana"},
    {"kind": "bot", "bot": "random", "name": "Robo"},
    {"kind": "human", "name": "Bo"},
]
#: one tile: the first move ends the game
ONE_TILE = ["base/E"]
TABLE = {"clock": PRESETS["3d"].to_json(), "aids": False}


def finished(client: TestClient, seats: list[dict[str, Any]] = SEATS) -> dict[str, Any]:
    """A game of ``seats`` (seat 0 a person) ended by seat 0's one move: its creation answer."""
    created = client.post(
        "/api/games",
        json={"seats": seats, "options": {"stack": ONE_TILE, "seed": 77}, "table": TABLE},
    ).json()
    token = created["seats"][0]["token"]
    state = client.get(f"/api/games/{created['id']}/state", headers=auth(token)).json()
    move = state["view"]["legal_actions"][0]
    actions = f"/api/games/{created['id']}/actions"
    played = client.post(actions, headers=auth(token), json={"actions": [move], "ply": 0}).json()
    if played["view"]["phase"] != "over":  # a figure may be placed: pass it
        passing = {"actions": [{"type": "pass"}], "ply": 1}
        played = client.post(actions, headers=auth(token), json=passing).json()
    assert played["view"]["phase"] == "over"
    return created  # type: ignore[no-any-return]


def rematch(client: TestClient, game_id: str, token: str | None, body: Any = None) -> Any:
    """``POST /api/games/{id}/rematch`` with the seat's token and ``body`` (default: none)."""
    headers = {"content-type": "application/json", **({} if token is None else auth(token))}
    content = b"" if body is None else json.dumps(body).encode()
    return client.post(f"/api/games/{game_id}/rematch", headers=headers, content=content)


def test_the_rematch_rotates_the_seats_keeps_the_tokens_options_and_table(games_db: str) -> None:
    with TestClient(create_app(games_db, bot_delay=0)) as client:
        old = finished(client)
        ana, bo = (s["token"] for s in old["seats"])
        asked = rematch(client, old["id"], ana)
        assert asked.status_code == 201, asked.json()
        assert asked.headers["cache-control"] == "no-store"
        new_id = asked.json()["id"]
        assert new_id != old["id"] and asked.json()["seats"] == [2]  # old seat 0 -> 2
        again = rematch(client, old["id"], bo)  # the others join it
        assert again.status_code == 200 and again.json() == {"id": new_id, "seats": [1]}
        info = client.get(f"/api/games/{new_id}").json()
        assert [(s["name"], s["kind"], s["bot"]) for s in info["seats"]] == [
            ("Robo", "bot", "random"),
            ("Bo", "human", None),
            ("Ana", "human", None),
        ]  # the second player starts
        old_info = client.get(f"/api/games/{old['id']}").json()
        assert info["table"] == old_info["table"] and info["table"]["aids"] is False
        # the same rules and stack; the seed chosen for the old game is not kept
        assert info["options"] == {**old_info["options"], "fixed_seed": False}
        for token, seat in ((ana, 2), (bo, 1)):
            state = client.get(f"/api/games/{new_id}/state", headers=auth(token)).json()
            assert state["you"]["seats"] == [seat]
        old_state = client.get(f"/api/games/{old['id']}/state", headers=auth(bo)).json()
        assert old_state["rematch"] == new_id
        assert client.get(f"/api/games/{new_id}/state").json()["rematch"] is None
        deadline = time.monotonic() + 10
        while client.get(f"/api/games/{new_id}/state").json()["ply"] == 0:  # the bot starts
            assert time.monotonic() < deadline, "the bot of seat 0 never moved"
            time.sleep(0.05)
    storage = open_storage(games_db)
    try:
        stored_old, stored_new = storage.load_game(old["id"]), storage.load_game(new_id)
    finally:
        storage.close()
    assert stored_old is not None and stored_new is not None
    assert stored_old.rematch == new_id and stored_new.rematch is None
    assert stored_new.options["seed"] != stored_old.options["seed"] == 77
    assert stored_new.options["seed_chosen"] is False
    assert stored_new.options["stack"] == ONE_TILE
    assert [s["digest"] for s in stored_new.seats] == [
        stored_old.seats[(i + 1) % 3]["digest"] for i in range(3)
    ]


def test_an_unnamed_seat_takes_the_default_name_of_its_new_place(games_db: str) -> None:
    """Default names are by place ("Player 2"), and pages show them in their own language:
    moved one seat earlier, "Player 2" is "Player 1", still a default name; a name the
    creator gave moves with its player."""
    seats = [{"kind": "human", "name": ""}, {"kind": "human", "name": ""}, SEATS[1]]
    with TestClient(create_app(games_db, bot_delay=0)) as client:
        old = finished(client, seats)
        old_info = client.get(f"/api/games/{old['id']}").json()
        assert [s["name"] for s in old_info["seats"]] == ["Player 1", "Player 2", "Robo"]
        new_id = rematch(client, old["id"], old["seats"][0]["token"]).json()["id"]
        info = client.get(f"/api/games/{new_id}").json()
        assert [(s["name"], s["default_name"]) for s in info["seats"]] == [
            ("Player 1", True),  # the old second seat
            ("Robo", False),
            ("Player 3", True),  # the old first seat
        ]


def test_only_a_seat_of_a_game_that_is_over_may_ask(games_db: str) -> None:
    with TestClient(create_app(games_db, bot_delay=0)) as client:
        old = finished(client)
        spectator = rematch(client, old["id"], None)
        assert spectator.status_code == 403 and spectator.json()["reason"] == "spectator"
        stranger = rematch(client, old["id"], "not-a-token")
        assert stranger.status_code == 403 and stranger.json()["reason"] == "bad_token"
        body = rematch(client, old["id"], old["seats"][0]["token"], {"seats": []})
        assert body.status_code == 400 and body.json()["reason"] == "rematch_request"
        unknown = rematch(client, "nosuchgame", old["seats"][0]["token"])
        assert unknown.status_code == 404
        playing = client.post("/api/games", json={"seats": SEATS, "options": {"stack": ONE_TILE}})
        created = playing.json()
        not_over = rematch(client, created["id"], created["seats"][0]["token"])
        assert not_over.status_code == 409 and not_over.json()["reason"] == "rematch_not_over"
        assert client.get(f"/api/games/{old['id']}/state").json()["rematch"] is None


def test_the_rematch_counts_against_the_askers_caps_and_create_limit(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(db, bot_delay=0, max_games_per_address=1)) as client:
        old = finished(client)
        client.post("/api/games", json={"seats": SEATS, "options": {"stack": ONE_TILE}})
        capped = rematch(client, old["id"], old["seats"][0]["token"])
        assert capped.status_code == 503 and capped.json()["reason"] == "too_many_of_yours"
    limits = RateLimits(create=Limit(per_minute=1, burst=2))
    with TestClient(create_app(db, bot_delay=0, limits=limits)) as client:
        old = finished(client)  # the first game created
        assert rematch(client, old["id"], old["seats"][0]["token"]).status_code == 201
        limited = rematch(client, old["id"], old["seats"][1]["token"])
        assert limited.status_code == 429 and "retry-after" in limited.headers


def greet(ws: Any, token: str | None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "token": token})
    assert ws.receive_json()["type"] == "welcome"
    state = ws.receive_json()
    assert state["type"] == "state"
    return state  # type: ignore[no-any-return]


def test_every_connection_of_the_old_game_is_offered_its_seats(games_db: str) -> None:
    with TestClient(create_app(games_db, bot_delay=0)) as client:
        old = finished(client)
        ana, bo = (s["token"] for s in old["seats"])
        path = f"/ws/{old['id']}"
        with (
            client.websocket_connect(path) as ana_ws,
            client.websocket_connect(path) as bo_ws,
            client.websocket_connect(path) as watcher,
        ):
            assert greet(ana_ws, ana)["rematch"] is None
            greet(bo_ws, bo)
            greet(watcher, None)
            bo_ws.send_json({"type": "rematch"})
            offer = next_of(bo_ws, "rematch")
            new_id = offer["game"]
            assert offer == {"type": "rematch", "game": new_id, "by": 2, "seats": [1]}
            assert next_of(ana_ws, "rematch") == {**offer, "seats": [2]}
            assert next_of(watcher, "rematch") == {**offer, "seats": []}
            ana_ws.send_json({"type": "rematch"})  # asked again: the same game
            assert next_of(ana_ws, "rematch") == {**offer, "by": None, "seats": [2]}
            watcher.send_json({"type": "rematch"})
            assert next_of(watcher, "error")["reason"] == "spectator"
        with client.websocket_connect(path) as later:
            seen = greet(later, bo)
            assert seen["rematch"] == new_id  # a page opened later sees it
        # the new game's seed stays hidden: the offer and the old game's state name its id only
        seed = client.app.state.storage.load_game(new_id).options["seed"]
        assert all(str(seed) not in json.dumps(message) for message in (offer, seen))


def test_a_hotseat_screen_plays_again_on_its_token(games_db: str) -> None:
    with TestClient(create_app(games_db, bot_delay=0)) as client:
        humans = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
        created = client.post(
            "/api/games", json={"seats": humans, "options": {"stack": ONE_TILE}, "hotseat": True}
        ).json()
        token = created["hotseat_token"]
        closing_the_city = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
        client.post(
            f"/api/games/{created['id']}/actions",
            headers=auth(token),
            json={"actions": [closing_the_city, {"type": "pass"}], "ply": 0},
        )
        asked = rematch(client, created["id"], token)
        assert asked.status_code == 201 and asked.json()["seats"] == [0, 1]
        state = client.get(f"/api/games/{asked.json()['id']}/state", headers=auth(token)).json()
        assert state["you"] == {"seats": [0, 1], "hotseat": True, "spectator": False}
        assert [s["name"] for s in state["game"]["seats"]] == ["Bo", "Ana"]


def test_two_asks_at_once_make_one_game(games_db: str) -> None:
    """Two requests (two connections to the database, as two processes have) ask for the
    rematch of one finished game at the same moment, five times over: one stores it, the other
    hears which game it is, and nothing else is stored."""
    storages = [open_storage(games_db) for _ in range(2)]
    try:
        for round_ in range(5):
            old_id = f"old{round_}"
            storages[0].create_game(old_id, {"stack": ONE_TILE}, [], None)
            storages[0].append_actions(old_id, 0, [(0, {"type": "pass"})], over=True)
            outcomes = race(storages, old_id, [f"new{round_}-{i}" for i in range(2)])
            (winner,) = (i for i, outcome in enumerate(outcomes) if outcome == "made")
            loser = 1 - winner
            assert outcomes[loser] == f"new{round_}-{winner}"
            assert storages[0].rematch_of(old_id) == f"new{round_}-{winner}"
            assert storages[1].load_game(f"new{round_}-{loser}") is None
    finally:
        for storage in storages:
            storage.close()


def race(storages: list[Storage], old_id: str, new_ids: list[str]) -> list[str]:
    """Each storage stores ``new_ids[i]`` as the rematch of ``old_id``, all at once: "made", or
    the game :class:`RematchTaken` named, for each."""
    start = threading.Barrier(len(storages))
    outcomes = ["" for _ in storages]

    def ask(i: int) -> None:
        start.wait()
        try:
            storages[i].create_game(new_ids[i], {}, [], None, rematch_of=(old_id, i))
            outcomes[i] = "made"
        except RematchTaken as taken:
            outcomes[i] = taken.game_id

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(storages))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return outcomes


def post(port: int, path: str, token: str, body: Any = None) -> tuple[int, Any]:
    """A POST to the server on ``port`` with a seat's token: its status and JSON."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps({} if body is None else body).encode(),
        headers={"content-type": "application/json", **auth(token)},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, json.loads(response.read())


def finished_on(server: Serve) -> dict[str, Any]:
    """A game of two people ended by seat 0's one move, through ``server``."""
    humans = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
    created = server.post("/api/games", {"seats": humans, "options": {"stack": ONE_TILE}})
    closing_the_city = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
    _, played = post(
        server.port,
        f"/api/games/{created['id']}/actions",
        created["seats"][0]["token"],
        {"actions": [closing_the_city, {"type": "pass"}], "ply": 0},
    )
    assert played["view"]["phase"] == "over"
    return created  # type: ignore[no-any-return]


def next_rematch(ws: Any) -> dict[str, Any]:
    """The next ``rematch`` message on a websocket of :class:`Serve` (states are skipped)."""
    deadline = time.monotonic() + 60
    while True:
        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if message["type"] == "rematch":
            return message  # type: ignore[no-any-return]
        assert message["type"] in ("welcome", "state", "presence"), message


def test_two_servers_offer_the_rematch_and_make_it_once(pg_url: str) -> None:
    with Serve(pg_url) as one, Serve(pg_url) as two:
        old = finished_on(one)
        ana, bo = (s["token"] for s in old["seats"])
        with two.socket(old["id"], bo) as bo_ws:
            assert state_at(bo_ws, 0)["rematch"] is None
            status, asked = post(one.port, f"/api/games/{old['id']}/rematch", ana)
            assert status == 201
            # Bo's page, on the other process, is offered its seat: the second one starts
            assert next_rematch(bo_ws) == {"type": "rematch", "game": asked["id"], "by": 0,
                                           "seats": [0]}  # fmt: skip
        # both ask at once, each on its own process: one game, both told of it
        old = finished_on(one)
        ana, bo = (s["token"] for s in old["seats"])
        start = threading.Barrier(2)
        answers: dict[str, tuple[int, Any]] = {}

        def ask(who: str, server: Serve, token: str) -> None:
            start.wait()
            answers[who] = post(server.port, f"/api/games/{old['id']}/rematch", token)

        threads = [
            threading.Thread(target=ask, args=("ana", one, ana)),
            threading.Thread(target=ask, args=("bo", two, bo)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert sorted(status for status, _ in answers.values()) == [200, 201]
        assert answers["ana"][1]["id"] == answers["bo"][1]["id"]
        assert (answers["ana"][1]["seats"], answers["bo"][1]["seats"]) == ([1], [0])
    with psycopg.connect(pg_url) as conn:
        (games,) = conn.execute("SELECT COUNT(*) FROM games").fetchone()  # type: ignore[misc]
    assert games == 4  # two finished games and one rematch of each


def test_a_rematch_made_while_news_was_missed_is_offered_when_read_again(tmp_path: Path) -> None:
    """A process that may have missed news (its listening connection broke) reads whether
    another made the rematch of its finished rooms, and offers it (who asked is not known)."""
    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(db, bot_delay=0)) as client:
        old = finished(client)
        with client.websocket_connect(f"/ws/{old['id']}") as ana_ws:
            greet(ana_ws, old["seats"][0]["token"])
            elsewhere = open_storage(db)  # as another process would store it
            try:
                elsewhere.create_game("made-elsewhere", {}, [], None, rematch_of=(old["id"], 2))
            finally:
                elsewhere.close()
            server = client.app.state.server  # type: ignore[attr-defined]

            async def missed_news() -> None:
                server.hear(None)
                await asyncio.gather(*server._catching_up)

            client.portal.call(missed_news)  # type: ignore[union-attr]
            ana_ws.send_json({"type": "ping"})  # its pong comes after the offer, if any
            assert next_of(ana_ws, "rematch") == {
                "type": "rematch", "game": "made-elsewhere", "by": None, "seats": [2]
            }  # fmt: skip
