"""Replays cost little to read (issue 9, finding 8).

A long game's replay took 0.25 s of the event loop and 5-6 MB at every reading, unlimited. Now a
finished game's replay (and record) is built once and then served from a cache, its frames carry
only what changed from one view to the next, and reading them is rate-limited per client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, expand_frames, finished_game

from carcassonne.bots import make_bot
from carcassonne.formats.record_writer import record_from_game
from carcassonne.game import Game
from carcassonne.web import create_app, replay
from carcassonne.web.protocol import parse_options
from carcassonne.web.ratelimit import Limit, RateLimits


def long_game() -> Game:
    """A whole 4-player game with every expansion, played by random bots."""
    options = parse_options(
        {"bets": True, "abbot": True, "map": "france", "map_chips": True, "seed": 3}, 4
    )
    game = Game(options)
    bots = [make_bot("random", seat) for seat in range(4)]
    while not game.is_over:
        game.apply(bots[game.to_move].choose(game))
    return game


def test_compact_frames_rebuild_every_view_and_are_much_smaller() -> None:
    game = long_game()
    actions = [action for _, action in game.history]
    seats = [{"name": f"P{i}", "kind": "human"} for i in range(4)]
    data = replay.frames(game.options, game.history, seats, reveal=True)
    compact = len(json.dumps(data))
    assert "view" in data["frames"][0] and all("delta" in f for f in data["frames"][1:])
    views = [frame["view"] for frame in expand_frames(data)["frames"]]
    again = Game(game.options)
    assert views[0] == replay.revealed_view(again)
    for action, view in zip(actions, views[1:], strict=True):
        again.apply(action)
        assert view == replay.revealed_view(again)
    whole = len(json.dumps(data))  # every frame with its whole view, as before
    assert compact * 5 < whole, (compact, whole)


def test_a_finished_replay_is_built_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    for name in ("frames_of_room", "record_of"):
        real = getattr(replay, name)

        def counted(room: Any, real: Any = real, name: str = name) -> Any:
            built.append(name)
            return real(room)

        monkeypatch.setattr(replay, name, counted)
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        game_id = finished_game(client)
        first = client.get(f"/api/games/{game_id}/replay")
        second = client.get(f"/api/games/{game_id}/replay")
        assert first.status_code == second.status_code == 200
        assert first.content == second.content
        records = [client.get(f"/api/games/{game_id}/record") for _ in range(2)]
        assert records[0].content == records[1].content
        assert records[0].headers["content-disposition"] == (
            f'attachment; filename="carcassonne-{game_id}.json"'
        )
    assert built == ["frames_of_room", "record_of"]


def test_reading_replays_is_rate_limited(tmp_path: Path) -> None:
    limits = RateLimits(read=Limit(60, burst=2))
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0, limits=limits)) as client:
        game_id = finished_game(client)
        assert client.get(f"/api/games/{game_id}/replay").status_code == 200
        assert client.get(f"/api/games/{game_id}/record").status_code == 200
        refused = client.get(f"/api/games/{game_id}/replay")
        assert refused.status_code == 429 and refused.json()["error"] == "rate-limited"
        assert refused.headers["retry-after"] == "1"


def test_an_uploaded_record_replays_compactly(tmp_path: Path) -> None:
    """Issue: a 25 KB uploaded record returned 5.7 MB."""
    game = long_game()
    seats = [{"name": f"P{i}", "kind": "human"} for i in range(4)]
    record = record_from_game(game, seats)
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        response = client.post("/api/replay", json=record)
    assert response.status_code == 200
    assert len(response.content) < 12 * len(json.dumps(record))
