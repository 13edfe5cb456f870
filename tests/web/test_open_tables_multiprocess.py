"""Open tables on PostgreSQL shared by two ``carcassonne serve`` processes (issue 25): two
strangers asking for the same seat at once, one on each process, get it once between them; the
list is the same on both; the creator's page on one process hears the table fill on the other,
and the game starts there."""

from __future__ import annotations

import json
import threading
import urllib.error
from typing import Any

from test_multiprocess import Serve, state_at

ANA_AND_TWO_OPEN = [{"kind": "human", "name": "Ana"}, {"kind": "open"}, {"kind": "open"}]
STACK = ["base/E", "base/U", "base/V"]


def try_join(server: Serve, game_id: str, seat: int, name: str) -> tuple[int, Any]:
    """The status and answer of taking ``seat`` through ``server``."""
    try:
        return 201, server.post(f"/api/games/{game_id}/join", {"seat": seat, "name": name})
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_two_processes_give_a_seat_once_and_start_the_game_on_both(pg_url: str) -> None:
    with Serve(pg_url) as one, Serve(pg_url) as two:
        body = {"seats": ANA_AND_TWO_OPEN, "options": {"stack": STACK}, "listed": True}
        created = one.post("/api/games", body)
        game_id = created["id"]
        assert [t["id"] for t in two.get("/api/tables")["tables"]] == [game_id]
        with one.socket(game_id, created["seats"][0]["token"]) as ana:
            assert state_at(ana, 0)["waiting"] == [1, 2]
            answers: dict[str, tuple[int, Any]] = {}

            def race(server: Serve, name: str) -> None:
                answers[name] = try_join(server, game_id, 1, name)

            racers = [
                threading.Thread(target=race, args=pair) for pair in ((one, "Bo"), (two, "Cy"))
            ]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join()
            statuses = sorted(status for status, _ in answers.values())
            assert statuses == [201, 409]
            loser = next(answer for status, answer in answers.values() if status == 409)
            assert loser["error"] == "seat-taken"
            # the seat taken on either process is seen on both
            for server in (one, two):
                seats = server.get(f"/api/games/{game_id}")["seats"]
                assert [s["kind"] for s in seats] == ["human", "human", "open"]
            status, dee = try_join(two, game_id, 2, "Dee")
            assert status == 201
            started = state_at(ana, 0)
            while started["waiting"]:
                started = state_at(ana, 0)
            assert "legal_actions" in started["view"]  # Ana's turn, heard from the other process
            assert two.get("/api/tables")["tables"] == one.get("/api/tables")["tables"] == []
            with two.socket(game_id, dee["token"]) as dee_socket:
                assert state_at(dee_socket, 0)["waiting"] == []
                action = started["view"]["legal_actions"][0]
                ana.send(json.dumps({"type": "act", "actions": [action], "ply": 0}))
                assert state_at(dee_socket, 1)["ply"] == 1
