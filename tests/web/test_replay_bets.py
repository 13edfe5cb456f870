"""Bet chips in replays: face up once the game is over, face down while it runs.

A two-human game with The Bets: the first tile is a bookmaker tile, Ana bets 3/5 and Bo bets 4
on its office, and the game runs out of tiles three turns later, when both chips are settled at
final scoring against a 2-tile city (both pay 0). While it runs, nobody sees the other's chip and
no replay of it shows either; once it is over, its replay shows both chips on the office from
the turn they were placed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth, expand_frames

from carcassonne.formats.actions import action_from_json
from carcassonne.formats.record_writer import record_from_game
from carcassonne.game import Game
from carcassonne.web import create_app

STACK = ["bets/01", "base/E", "base/U", "base/V"]
CHOSEN_BETS = {0: "3/5", 1: "4"}
SEATS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as c:
        yield c


def state_of(client: Any, game_id: str, token: str | None) -> dict[str, Any]:
    headers = auth(token) if token else {}
    response = client.get(f"/api/games/{game_id}/state", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def choose(legal: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """The seat's chosen chip when it may bet; else the last legal action."""
    for action in legal:
        if action["type"] == "place-bet" and action["chip"] == CHOSEN_BETS[seat]:
            return action
    return legal[-1]


def play(client: Any, game_id: str, tokens: list[str], *, until_bets: bool) -> list[Any]:
    """Play until both chips lie on the office (``until_bets``) or the game is over; returns
    the actions played."""
    played: list[Any] = []
    for _ in range(40):
        view = state_of(client, game_id, tokens[0])["view"]
        if view["phase"] == "over":
            return played
        if until_bets:
            offices = view["expansions"]["bets"]["offices"]
            if offices and len(offices[0]["chips"]) == 2:
                return played
        mover = tokens[view["to_move"]]
        own = state_of(client, game_id, mover)
        action = choose(own["view"]["legal_actions"], view["to_move"])
        reply = client.post(
            f"/api/games/{game_id}/actions",
            headers=auth(mover),
            json={"actions": [action], "ply": own["ply"]},
        )
        assert reply.status_code == 200, reply.text
        played.append(action)
    raise AssertionError("the scripted game did not get there")


def office_chips(frame: dict[str, Any]) -> list[dict[str, Any]]:
    offices = frame["view"]["expansions"]["bets"]["offices"]
    return offices[0]["chips"] if offices else []


def start(client: Any) -> tuple[str, list[str]]:
    response = client.post(
        "/api/games", json={"seats": SEATS, "options": {"bets": True, "stack": STACK}}
    )
    assert response.status_code == 201, response.text
    created = response.json()
    return created["id"], [s["token"] for s in created["seats"]]


def test_chips_stay_face_down_while_the_game_runs(client: Any) -> None:
    game_id, tokens = start(client)
    played = play(client, game_id, tokens, until_bets=True)
    ana = office_chips(state_of(client, game_id, tokens[0]))
    bo = office_chips(state_of(client, game_id, tokens[1]))
    spectator = office_chips(state_of(client, game_id, None))
    assert ana == [{"seat": 0, "chip": "3/5"}, {"seat": 1, "chip": None}]
    assert bo == [{"seat": 0, "chip": None}, {"seat": 1, "chip": "4"}]
    assert spectator == [{"seat": 0, "chip": None}, {"seat": 1, "chip": None}]
    assert client.get(f"/api/games/{game_id}/replay").status_code == 409

    # A record of the running game (made with the engine, as its players could) replays with
    # the chips face down: a replay of an unfinished game reveals nothing more than play did.
    game = Game(bets=True, players=2, stack=tuple(STACK))
    for action in played:
        game.apply(action_from_json(action))
    assert not game.is_over
    replay = expand_frames(client.post("/api/replay", json=record_from_game(game, SEATS)).json())
    assert replay["revealed"] is False
    assert office_chips(replay["frames"][-1]) == spectator


def test_replay_of_a_finished_game_shows_every_chip(client: Any) -> None:
    game_id, tokens = start(client)
    play(client, game_id, tokens, until_bets=False)
    replay = expand_frames(client.get(f"/api/games/{game_id}/replay").json())
    assert replay["revealed"] is True
    placed = [office_chips(f) for f in replay["frames"] if office_chips(f)]
    # From the turn they are placed until final scoring, both chips show their values.
    assert placed[0] == [{"seat": 0, "chip": "3/5"}]
    assert placed[-1] == [{"seat": 0, "chip": "3/5"}, {"seat": 1, "chip": "4"}]
    assert all(c["chip"] is not None for chips in placed for c in chips)
    # The settlement events name each chip's owner and what it paid: 0 for both here.
    settled = [
        (e["detail"]["owner"], e["detail"]["chip"], e["detail"]["paid"], e["points"])
        for f in replay["frames"]
        for e in f["events"]
        if e.get("source") == "bet"
    ]
    assert settled == [(0, "3/5", 0, {"0": 0}), (1, "4", 0, {"1": 0})]
    # The uploaded record of the finished game reveals the same.
    record = client.get(f"/api/games/{game_id}/record").json()
    uploaded = expand_frames(client.post("/api/replay", json=record).json())
    assert uploaded["revealed"] is True
    assert [office_chips(f) for f in uploaded["frames"]] == [
        office_chips(f) for f in replay["frames"]
    ]
