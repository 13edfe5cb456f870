"""The clock of a game on PostgreSQL shared by two ``carcassonne serve`` processes (issue 24):
the process holding the game's lease keeps its clock; ``kill -9`` it, and the other takes the
lease over and acts on the deadline to the second (from the times stored with the moves)."""

from __future__ import annotations

import time
from typing import Any

import psycopg
from test_multiprocess import PATIENCE, Serve

from carcassonne.game import GameOptions
from carcassonne.web.database import open_storage
from carcassonne.web.protocol import options_to_json
from carcassonne.web.storage import now_ms, token_digest

CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
ONE_MINUTE = {"kind": "real-time", "initial_ms": 60_000, "increment_ms": 0}
#: milliseconds left on seat 1's clock when the servers start: enough for both to start
LEFT_MS = 25_000


def seats() -> list[dict[str, Any]]:
    return [
        {"kind": "human", "bot": None, "name": name, "digest": token_digest(name)}
        for name in ("Ana", "Bo")
    ]


def lease_holder(db: str, game_id: str) -> str | None:
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT bot_owner FROM games WHERE id = %s", (game_id,)).fetchone()
    return None if row is None else row[0]


def changes_and_plies(db: str, game_id: str) -> tuple[list[Any], int]:
    with psycopg.connect(db) as conn:
        changes = conn.execute(
            "SELECT ply, seat, change, at_ms FROM seat_changes WHERE game_id = %s ORDER BY n",
            (game_id,),
        ).fetchall()
        (plies,) = conn.execute(
            "SELECT COUNT(*) FROM actions WHERE game_id = %s", (game_id,)
        ).fetchone() or (0,)
    return changes, int(plies)


def test_kill_9_of_the_clock_holder_and_the_other_acts_on_the_deadline(pg_url: str) -> None:
    # a game whose first turn was played a while ago: seat 1's minute runs out soon
    storage = open_storage(pg_url)
    options = {
        **options_to_json(GameOptions(players=2, stack=("base/E", "base/U") * 3, seed=1)),
        "table": {"clock": ONE_MINUTE, "stand_in": "greedy", "on_timeout": "stand-in"},
    }
    storage.create_game("timed", options, seats(), None)
    started = now_ms() - (60_000 - LEFT_MS)
    storage.append_actions(
        "timed", 0, [(0, CLOSE_CITY), (0, {"type": "pass"})], False, bot_turn=True, at_ms=started
    )
    storage.close()
    deadline = started + 60_000
    with Serve(pg_url) as one:
        waited = time.monotonic() + PATIENCE
        while not (lease_holder(pg_url, "timed") or "").startswith(f"{one.process.pid}-"):
            assert time.monotonic() < waited, "the first server did not take the clock's lease"
            time.sleep(0.1)
        with Serve(pg_url) as two:
            one.process.kill()  # kill -9 of the process holding the clock
            assert now_ms() < deadline - 5_000, "the servers took too long to start"
            assert changes_and_plies(pg_url, "timed") == ([], 2)
            waited = time.monotonic() + PATIENCE + LEFT_MS / 1000
            changes, plies = changes_and_plies(pg_url, "timed")
            while not changes or plies < 4:
                assert time.monotonic() < waited, "the deadline was not acted on"
                time.sleep(0.1)
                changes, plies = changes_and_plies(pg_url, "timed")
            holder = lease_holder(pg_url, "timed")
            state = two.get("/api/games/timed/state")
    ((ply, seat, change, at_ms),) = changes
    assert (ply, seat, change) == (2, 1, "stand-in")
    assert 0 <= at_ms - deadline < 1000  # acted on to the second, by the other process
    assert holder is None or holder.startswith(f"{two.process.pid}-")
    assert state["seat_status"][1] == {"status": "stood-in", "since_ply": 2}
    assert state["clocks"]["remaining_ms"][1] == 0  # out of time (an increment of 0 s)
