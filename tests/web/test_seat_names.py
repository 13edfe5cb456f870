"""Seats left unnamed get a default name the page shows in the viewer's own language.

The server keeps the English default ("Player 2", "Greedy bot") for records and the terminal, and
marks it ``default_name`` so a French page shows "Joueur 2" instead; a name a player typed is
never translated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient

from carcassonne import PASS, Game, PlaceTile
from carcassonne.formats.record import Seat
from carcassonne.formats.record_writer import record_from_game
from carcassonne.web import create_app
from carcassonne.web.protocol import ProtocolError, parse_seats


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as c:
        yield c


def test_unnamed_seats_get_marked_default_names() -> None:
    seats = parse_seats(
        [
            {"kind": "human", "name": "Ana"},
            {"kind": "human"},
            {"kind": "bot", "bot": "greedy", "name": "  "},
            {"kind": "bot", "bot": "random", "name": "Robo"},
        ]
    )
    assert [s["name"] for s in seats] == ["Ana", "Player 2", "Greedy bot", "Robo"]


def test_a_name_too_long_is_refused_by_seat() -> None:
    with pytest.raises(ProtocolError, match="seat 2: 'name' must be text of at most"):
        parse_seats([{"kind": "human"}, {"kind": "human", "name": "x" * 100}])


def test_public_info_and_replay_mark_the_default_names(client: Any) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}, {"kind": "human", "name": "Bo"}]
    response = client.post(
        "/api/games", json={"seats": seats, "options": {"stack": ["base/U"], "seed": 3}}
    )
    assert response.status_code == 201, response.text
    info = response.json()["game"]
    shown = [(s["name"], s["kind"], s["bot"], s["default_name"]) for s in info["seats"]]
    assert shown == [
        ("Player 1", "human", None, True),
        ("Greedy bot", "bot", "greedy", True),
        ("Bo", "human", None, False),
    ]
    # An uploaded record without names replays with default names, marked as such.
    game = Game(stack=("base/U",))
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PASS)
    record = record_from_game(game, [Seat(None, "human"), Seat("Robo", "random")])
    response = client.post("/api/replay", json=record)
    assert response.status_code == 200, response.text
    replay = response.json()["game"]["seats"]
    assert [(s["name"], s["default_name"]) for s in replay] == [
        ("Player 1", True),
        ("Robo", False),
    ]
    assert replay[1]["bot"] == "random"
