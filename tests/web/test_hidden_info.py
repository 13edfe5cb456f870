"""Nothing sent to a seat reveals what the rules hide from it.

A whole game with The Bets and Map-Chips on the France map is played over the websocket: seat 0
by this test (a random legal action each time), seat 1 by a server-side bot. Every message seat 0
receives is checked against the true state on the server: another seat's unflipped bet, the value
or colour of a face-down map chip and the order of the stack must never appear.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from web_helpers import TestClient

from carcassonne import PlaceTile
from carcassonne.board import decode
from carcassonne.expansions.mapchips import MapChips
from carcassonne.web import create_app

TILE_ID = re.compile(r'"((?:base|river|bets|map)/[\w-]+)"')
#: what a logged placement may tell: the tile placed, where, by whom, and the figure put on it
PLACEMENT_KEYS = {"ply", "turn", "seat", "tile", "x", "y", "rotation", "figure"}


def aids_leaks(aids: dict[str, Any], view: dict[str, Any]) -> list[str]:
    """What the information aids (issue 25) tell beyond public facts: their remaining tiles must
    be a count per kind in the kinds' own order (never the stack's) adding up to the tiles left,
    their holes bare squares, their open features a kind, points and squares."""
    leaks = []
    if set(aids) != {"remaining", "unfillable", "features"}:
        leaks.append(f"the aids hold {sorted(aids)}")
    remaining = aids.get("remaining") or {}
    if list(remaining) != sorted(remaining):
        leaks.append("the remaining tiles are not in the order of their ids")
    if not all(isinstance(n, int) and n > 0 for n in remaining.values()):
        leaks.append("the remaining tiles are not counts")
    if sum(remaining.values()) != view.get("tiles_left"):
        leaks.append(f"{sum(remaining.values())} remaining tiles for {view.get('tiles_left')} left")
    for square in aids.get("unfillable", []):
        if set(square) != {"x", "y"}:
            leaks.append(f"an unfillable square tells {sorted(square)}")
    for feature in aids.get("features", []):
        if set(feature) != {"kind", "points", "squares"}:
            leaks.append(f"an open feature tells {sorted(feature)}")
    return leaks


def hidden_leaks(message: dict[str, Any], chip_squares: set[tuple[int, int]]) -> list[str]:
    """What in ``message`` (sent to seat 0) seat 0 must not know; ``chip_squares`` are where
    the map chips lay at the start (the server's truth)."""
    leaks = []
    if message["type"] == "tables":
        return tables_leaks(message)
    view = message.get("view", {})
    aids = message.get("aids")
    if aids is not None:
        leaks += aids_leaks(aids, view)
    # The aids' remaining tiles name undrawn kinds by design (checked above): not the stack.
    text = json.dumps({key: value for key, value in message.items() if key != "aids"})
    # The stack: any tile id must be on the board, drawn now, or discarded (public).
    if message["type"] == "state":
        visible = {t["tile"] for t in view["tiles"]} | set(view["discarded"])
        if view["current_tile"]:
            visible.add(view["current_tile"])
        for tile_id in TILE_ID.findall(text):
            if tile_id not in visible and not tile_id.startswith("map/"):
                leaks.append(f"tile {tile_id} is neither placed, drawn nor discarded")
        if "stack" in view:
            leaks.append("the view has a stack")
    expansions = view.get("expansions", {})
    bets = expansions.get("bets")
    if bets is not None:
        for office in bets["offices"]:
            for chip in office["chips"]:
                if chip["seat"] != 0 and chip["chip"] is not None:
                    leaks.append(f"seat {chip['seat']}'s chip {chip['chip']} is shown face up")
        if bets["supply"] is not None and len(bets["supply"]) != bets["supply_counts"][0]:
            leaks.append("the supply shown is not seat 0's")
    chips = expansions.get("map-chips")
    if chips is not None:
        for entry in chips["face_down"]:
            if set(entry) != {"x", "y"}:
                leaks.append(f"a face-down chip shows {sorted(entry)}")
        shown = {(e["x"], e["y"]) for e in chips["face_down"]}
        if not shown <= chip_squares:
            leaks.append("face-down chips are shown where the server has none")
    for event in message.get("events", []):
        private = event.get("type") == "event" and event["event"] in ("bet", "bet-pass")
        if private and "chip" in event["detail"]:
            leaks.append(f"a {event['event']} event names the chip")
    # The move log: tiles (checked above with every tile id) and figures, never a bet's chip.
    for placement in message.get("placements", []):
        if set(placement) != PLACEMENT_KEYS or "chip" in json.dumps(placement):
            leaks.append(f"a placement tells more than its tile and figure: {placement}")
    return leaks


#: what no entry of the open tables' list may hold (issue 25): the setup's secrets
SECRET_KEYS = {"seed", "stack", "digest", "token", "hotseat_digest", "creator", "tokens"}


def tables_leaks(page: dict[str, Any]) -> list[str]:
    """What the open tables' list (a page of ``GET /api/tables``, given ``"type": "tables"``)
    tells beyond a game's public setup: no tile id (nothing is placed yet, so any would be the
    stack's), no secret key, nothing of a seat but its public description."""
    leaks = [f"the list names tile {tile}" for tile in TILE_ID.findall(json.dumps(page))]
    for table in page["tables"]:
        keys = {key for key in _keys(table)}
        leaks += [f"table {table['id']} holds {key!r}" for key in sorted(keys & SECRET_KEYS)]
        for seat in table["seats"]:
            if set(seat) != {"seat", "name", "kind", "bot", "think", "default_name"}:
                leaks.append(f"a seat of table {table['id']} tells {sorted(seat)}")
    return leaks


def _keys(data: Any) -> set[str]:
    """Every key of every object in ``data``."""
    if isinstance(data, dict):
        return set(data).union(*(_keys(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(_keys(value) for value in data))
    return set()


def test_the_open_tables_list_tells_no_secret(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    seed = 987_654_321_123
    with TestClient(app) as client:
        created = client.post(
            "/api/games",
            json={
                "seats": [{"kind": "human", "name": "Ana"}, {"kind": "open"}],
                "options": {"bets": True, "map": "france", "map_chips": True, "seed": seed},
                "listed": True,
            },
        ).json()
        with_stack = client.post(
            "/api/games",
            json={
                "seats": [{"kind": "open"}, {"kind": "bot", "bot": "random"}],
                "options": {"stack": ["base/E", "base/U"]},
                "listed": True,
            },
        ).json()
        page = client.get("/api/tables").json()
    text = json.dumps(page)
    assert [t["id"] for t in page["tables"]] == [with_stack["id"], created["id"]]
    assert hidden_leaks({"type": "tables", **page}, set()) == []
    assert str(seed) not in text and created["seats"][0]["token"] not in text
    # the test sees what it guards: a stack's tiles, a key that is secret
    assert tables_leaks({"tables": [{"id": "g", "seats": [], "seed": 1}], "x": "base/E"}) == [
        "the list names tile base/E",
        "table g holds 'seed'",
    ]


def test_seat_never_receives_hidden_information(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    rng = random.Random(2024)
    with TestClient(app) as client:
        created = client.post(
            "/api/games",
            json={
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
                "options": {"bets": True, "map": "france", "map_chips": True, "seed": 11},
            },
        ).json()
        game_id, token = created["id"], created["seats"][0]["token"]
        room = app.state.server.rooms[game_id]
        chip_squares = {decode(pos) for pos in room.game.expansion(MapChips).face_down}
        received: list[dict[str, Any]] = []
        leaks: list[str] = []
        bets_seen = face_down_seen = placements_seen = aids_seen = 0
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            ws.send_json({"type": "hello", "token": token})
            while True:
                message = ws.receive_json()
                received.append(message)
                assert message["type"] != "error", message
                leaks += hidden_leaks(message, chip_squares)
                if message["type"] != "state":
                    continue
                view = message["view"]
                bets_seen += sum(
                    1
                    for office in view["expansions"]["bets"]["offices"]
                    for chip in office["chips"]
                    if chip["seat"] == 1
                )
                face_down_seen += len(view["expansions"]["map-chips"]["face_down"])
                placements_seen = max(placements_seen, len(message["placements"]))
                aids_seen += bool(message["aids"]["remaining"])
                if view["phase"] == "over":
                    break
                legal = view.get("legal_actions")
                if legal and message["ply"] == len(room.game.history):
                    action = rng.choice(legal)
                    if action["type"] == "place-tile":
                        ws.send_json({"type": "preview", "action": action, "ply": message["ply"]})
                        preview = ws.receive_json()
                        received.append(preview)
                        leaks += hidden_leaks(preview, chip_squares)
                        figure = rng.choice(preview["legal_actions"])
                        actions = [action, figure]
                    else:
                        actions = [action]
                    ws.send_json({"type": "act", "actions": actions, "ply": message["ply"]})
    assert leaks == []
    # The test saw what it guards: the bot's chips on offices and face-down map chips.
    assert bets_seen > 0 and face_down_seen > 0 and aids_seen > 0
    tiles_placed = sum(1 for _, a in room.game.history if isinstance(a, PlaceTile))
    assert placements_seen == tiles_placed > 0
    assert received[-1]["summary"]["scores"] == room.game.scores
