"""Writing game records (``carcassonne-record/1``, read by :mod:`.record`): a game as the JSON a
person can read, one move per line.

Every record written goes through the reader's checks (the seats, the table's part), so a written
record always reads back; :func:`dumps_record` lays it out for people.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..actions import Pass, PlaceFigure, PlaceTile
from ..expansions.abbot import RecallAbbot
from ..expansions.registry import EXPANSIONS
from ..game import Game, GameOptions
from ..standings import TableRecord
from .actions import action_to_json
from .record import (
    OPTIONAL_OPTIONS,
    RECORD_FORMAT,
    BotCheck,
    RecordError,
    Seat,
    parse_moves,
    parse_seats,
    parse_table,
    standings_of,
)


def record_from_game(
    game: Game,
    seats: Sequence[Mapping[str, str] | Seat] | None = None,
    table: TableRecord | None = None,
    *,
    check_bot: BotCheck | None = None,
) -> dict[str, Any]:
    """The record of ``game`` so far (options, seats, every move and discard, the result); with
    ``check_bot``, the bot seats checked and written in their canonical form.

    Every :class:`Game` has a seed (one is drawn when none is given), so the record reproduces
    the draw order and any other setup chance, such as the Map-Chips layout.  ``table``: the
    game was played at a table; its settings, seat changes and times (``spent_ms``: one per
    action of the game, or none) are written too, with the standings when a seat changed hands.
    """
    options = game.options
    record: dict[str, Any] = {"format": RECORD_FORMAT, "options": options_to_json(options)}
    if seats:
        # The seats go through the reader's checks, so a written record always reads back.
        checked = parse_seats([_seat_json(seat) for seat in seats], check_bot)
        if len(checked) != game.players:
            raise RecordError(f"{len(checked)} seats given for {game.players} players")
        record["seats"] = [_seat_json(seat) for seat in checked]
    record["seed"] = options.seed
    if options.stack is not None:
        record["stack"] = list(options.stack)
    spent: Sequence[int] = ()
    if table is not None:
        spent = table.spent_ms
        if spent and len(spent) != len(game.history):
            raise RecordError(
                f"table: {len(spent)} times (spent_ms) for the {len(game.history)} actions"
            )
        record["table"] = table.settings.to_json()
        if table.changes:
            record["changes"] = [change.to_json() for change in table.changes]
    record["moves"] = _moves_json(game, spent)
    record["result"] = {"scores": list(game.scores), "finished": game.is_over}
    if table is not None:
        # A written record always reads back: the table's part goes through the reader's checks.
        written = parse_seats(record.get("seats"), None)
        parse_table(record, parse_moves(record["moves"], game.players), written, game.players)
        if table.changes:
            record["result"]["standings"] = standings_of(game, table)
    return record


def options_to_json(options: GameOptions) -> dict[str, Any]:
    """The rule options of a game as JSON (no seed, no stack: the record keeps those apart)."""
    optional = {
        key: getattr(options, key)
        for key, default in OPTIONAL_OPTIONS.items()
        if getattr(options, key) != default
    }
    return {
        **optional,
        "players": options.players,
        # the keys in the order records have always had them: a map's expansions after it
        **{
            spec.field: getattr(options, spec.field)
            for spec in EXPANSIONS
            if spec.in_every_record and spec.map_use != "needs"
        },
        "map": options.map,
        **{
            spec.field: getattr(options, spec.field)
            for spec in EXPANSIONS
            if spec.in_every_record and spec.map_use == "needs"
        },
        "meeples": options.meeples,
        "copies": options.copies,
        "start_squares": list(options.start_squares) if options.start_squares else None,
    }


def _seat_json(seat: Mapping[str, str] | Seat) -> dict[str, Any]:
    if isinstance(seat, Seat):
        return {"kind": seat.kind} if seat.name is None else {"name": seat.name, "kind": seat.kind}
    return dict(seat)


def _moves_json(game: Game, spent_ms: Sequence[int] = ()) -> list[dict[str, Any]]:
    """The moves of ``game``; with ``spent_ms`` (one per action), each turn's ``ms`` last."""
    draws = game.draws
    drawn = 0
    moves: list[dict[str, Any]] = []
    turn: dict[str, Any] = {}
    times: dict[int, list[int]] = {}  # id of a turn's dict -> its times, added at the end
    step2_due = False
    for ply, (seat, action) in enumerate(game.history):
        if isinstance(action, PlaceTile):
            while draws[drawn][1]:
                moves.append({"discard": draws[drawn][0]})
                drawn += 1
            x, y, rotation = action
            turn = {"seat": seat, "tile": draws[drawn][0], "x": x, "y": y, "rotation": rotation}
            drawn += 1
            moves.append(turn)
            step2_due = True
        elif step2_due:
            turn.update(_step2_json(action))
            step2_due = False
        else:
            turn.setdefault("actions", []).append({"seat": seat, "action": action_to_json(action)})
        if spent_ms:
            times.setdefault(id(turn), []).append(spent_ms[ply])
    moves.extend({"discard": tile} for tile, discarded in draws[drawn:] if discarded)
    for move in moves:
        if id(move) in times:
            move["ms"] = times[id(move)]
    return moves


def _step2_json(action: Any) -> dict[str, Any]:
    if isinstance(action, Pass):
        return {"figure": None}
    if isinstance(action, PlaceFigure):
        return {"figure": {"type": action.figure, "location": action.location}}
    if isinstance(action, RecallAbbot):
        return {"recall": {"x": action.x, "y": action.y}}
    raise RecordError(f"cannot record step-2 action {action!r}")


def save_record(
    game: Game,
    path: str | os.PathLike[str],
    seats: Sequence[Mapping[str, str] | Seat] | None = None,
    table: TableRecord | None = None,
    *,
    check_bot: BotCheck | None = None,
) -> None:
    """Write the record of ``game`` as indented JSON, one move per line."""
    record = record_from_game(game, seats, table, check_bot=check_bot)
    Path(path).write_text(dumps_record(record), encoding="utf-8")


def dumps_record(record: dict[str, Any]) -> str:
    """Record JSON laid out for people: the setup indented, then each move on one line."""
    head = json.dumps({key: value for key, value in record.items() if key != "moves"}, indent=2)
    moves = ",\n    ".join(json.dumps(move) for move in record["moves"])
    body = f"[\n    {moves}\n  ]" if moves else "[]"
    return f'{head[:-2]},\n  "moves": {body}\n}}\n'
