"""A refused batch tells its sender nothing it did not know when it sent it (issue 9, finding 6).

A batch is applied all or none: when a later action fails, the earlier ones are undone. If the
error depended on something an earlier action revealed (the next player's tile, a face-down map
chip), a player could probe hidden information and take the probe back. Each test sends the same
batch to two games that the sender cannot tell apart (they differ only in what is hidden from it)
and requires the same answer from both, with the game unchanged.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth

from carcassonne.actions import PASS
from carcassonne.board import encode
from carcassonne.expansions.mapchips import Chip, MapChips
from carcassonne.formats.actions import action_to_json
from carcassonne.game import Game
from carcassonne.web import create_app
from carcassonne.web.outbox import Principal
from carcassonne.web.protocol import parse_options, parse_seats

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
# Start tile D has its city to the north; base/E turned 180° closes it. The second tile, the
# next player's, is hidden from the first player: the two stacks differ only there.
STACKS = (["base/E", "base/U", "base/V"], ["base/E", "base/V", "base/U"])
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
# East of the start tile's road: base/U (a straight road) does not fit there turned this way.
NEXT_TILE_PROBE = {"type": "place-tile", "x": 1, "y": 0, "rotation": 0}


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as c:
        yield c


def hotseat_game(client: Any, stack: list[str]) -> tuple[str, str]:
    response = client.post(
        "/api/games",
        json={"seats": HUMANS, "options": {"stack": stack}, "hotseat": True},
    )
    assert response.status_code == 201, response.text
    return response.json()["id"], response.json()["hotseat_token"]


def answers(client: Any, games: list[tuple[str, str]], actions: list[Any]) -> list[Any]:
    """The answer of each game to the same batch (its id taken out), and that nothing moved."""
    out = []
    for game_id, token in games:
        before = client.get(f"/api/games/{game_id}/state", headers=auth(token)).json()["ply"]
        reply = client.post(
            f"/api/games/{game_id}/actions",
            headers=auth(token),
            json={"actions": actions, "ply": before},
        )
        after = client.get(f"/api/games/{game_id}/state", headers=auth(token)).json()["ply"]
        assert after == before, f"the batch changed game {game_id}: {reply.text}"
        out.append((reply.status_code, reply.text.replace(game_id, "<id>")))
    return out


def test_hotseat_batch_across_the_turn_does_not_name_the_next_tile(client: Any) -> None:
    """Issue: in hotseat, [place, pass, place-tile where it does not fit] named the next
    player's tile in its error (40 of 40 turns)."""
    games = [hotseat_game(client, stack) for stack in STACKS]
    first, second = answers(client, games, [CLOSE_CITY, PASS_JSON, NEXT_TILE_PROBE])
    assert first == second
    assert first[0] == 400 and "bad-message" in first[1]
    assert "base/U" not in first[1] and "base/V" not in first[1]


def test_after_the_tile_a_batch_cannot_reach_into_the_next_turn(client: Any) -> None:
    """The tile alone, then [pass, place-tile]: the pass would draw the next tile."""
    games = [hotseat_game(client, stack) for stack in STACKS]
    for game_id, token in games:
        reply = client.post(
            f"/api/games/{game_id}/actions",
            headers=auth(token),
            json={"actions": [CLOSE_CITY], "ply": 0},
        )
        assert reply.status_code == 200, reply.text
    first, second = answers(client, games, [PASS_JSON, NEXT_TILE_PROBE])
    assert first == second
    assert first[0] == 400 and "only a tile placement" in first[1]


def test_tile_and_figure_still_go_together(client: Any) -> None:
    game_id, token = hotseat_game(client, STACKS[0])
    figure = {"type": "place-figure", "figure": "meeple", "location": "S"}
    reply = client.post(
        f"/api/games/{game_id}/actions",
        headers=auth(token),
        json={"actions": [CLOSE_CITY, figure], "ply": 0},
    )
    assert reply.status_code == 200 and reply.json()["ply"] == 2
    assert reply.json()["view"]["scores"] == [4, 0]  # the 2-tile city, closed and scored


PASS_JSON = action_to_json(PASS)
#: France with Map-Chips, seed 0, after these random moves (random.Random(0)): the seat to move
#: may place its tile on a face-down light-blue 1 at (15, 8) and then export a wine; were that
#: chip a light-blue 2, it could export it alone, as the wine [2]
CHIP_SEED, CHIP_MOVES, CHIP_SQUARE = 0, 95, (15, 8)


def _moves_to_the_chip() -> list[Any]:
    game = Game(parse_options({"map": "france", "map_chips": True, "seed": CHIP_SEED}, 2))
    rng = random.Random(CHIP_SEED)
    moves = []
    for _ in range(CHIP_MOVES):
        action = rng.choice(game.legal_actions())
        moves.append(action)
        game.apply(action)
    return moves


def test_a_map_chip_probe_answers_the_same_whatever_the_chip(tmp_path: Path) -> None:
    """Issue: [place-tile on a chip square, pass, sell-wine(export, colour, chips), place-tile
    9999,9999] told from the step that failed whether the face-down chip made that wine."""
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    server = app.state.server
    options = parse_options({"map": "france", "map_chips": True, "seed": CHIP_SEED}, 2)
    moves = _moves_to_the_chip()
    tokens = []
    for chip in (Chip("light-blue", 1), Chip("light-blue", 2)):
        room, links = asyncio.run(server.create(parse_seats(HUMANS), options, False))
        for action in moves:
            asyncio.run(room.submit(Principal(frozenset({room.game.to_move})), [action]))
        face_down = room.game.expansion(MapChips).face_down
        square = encode(*CHIP_SQUARE)
        assert face_down[square] == Chip("light-blue", 1)  # the situation described above
        face_down[square] = chip  # the second game differs only in this hidden chip
        tokens.append((room.id, links["seats"][room.game.to_move]["token"]))
    x, y = CHIP_SQUARE
    sale = {"type": "sell-wine", "outlet": "export", "colour": "light-blue", "chips": [2]}
    probe = [
        {"type": "place-tile", "x": x, "y": y, "rotation": 0},
        PASS_JSON,
        sale,
        {"type": "place-tile", "x": 9999, "y": 9999, "rotation": 0},
    ]
    with TestClient(app) as client:
        first, second = answers(client, tokens, probe)
    assert first == second
    assert first[0] == 400 and "bad-message" in first[1]
