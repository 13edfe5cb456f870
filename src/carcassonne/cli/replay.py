"""`carcassonne replay FILE [--json]`: replay a game record and explain its scores.

Prints the final scores (or the scores so far, marked unfinished, for a record that stops
mid-game), each seat's points by source, and every score event: on which turn, what scored (a
completed city of 2 tiles and 1 coat of arms…), who got how much, and why.  ``--json`` prints the
same as one JSON object with ``scores`` (one number per seat, in seat order), ``finished`` and
``events``.  A game played at a table adds its clock, who was stood in for, resigned or timed
out and from which turn, the places (the seats that left ranked last) and each turn's time.  A
bad record exits with status 1 and the error naming the move at fault.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..events import ScoreEvent
from ..formats.record import Record, read_record, replay_record
from ..game import Game, GameSummary
from .replay_table import table_json, table_lines, winners


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "replay",
        help="replay a game record and explain its scores",
        description="Replay a game record (docs/record-format.md), check every move, and print "
        "the scores with their breakdown.",
    )
    parser.add_argument("file", metavar="FILE", help="a carcassonne-record/1 JSON file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    record = read_record(args.file)  # a RecordError is reported by main, exit status 1
    game = replay_record(record)
    if args.json:
        print(json.dumps(replay_json(record, game), indent=2))
    else:
        print(replay_text(args.file, record, game))
    return 0


def _seats(record: Record, game: Game) -> list[dict[str, Any]]:
    seats = []
    for i in range(game.players):
        seat = record.seats[i] if record.seats else None
        seats.append(
            {
                "seat": i,
                "name": seat.label(i) if seat else f"seat {i}",
                "kind": seat.kind if seat else "human",
            }
        )
    return seats


def replay_json(record: Record, game: Game) -> dict[str, Any]:
    """Machine-readable result of a replay."""
    summary = GameSummary.of(game)
    return {
        "finished": game.is_over,
        "turn": game.turn,
        "tiles_left": _tiles_left(game),
        "players": game.players,
        "seats": _seats(record, game),
        "scores": list(game.scores),
        "winners": winners(game, record.table) if game.is_over else None,
        "by_source": summary.by_source,
        "events": [event.to_json() for event in game.events],
        **table_json(record.table, game),
    }


def _tiles_left(game: Game) -> int:
    """Tiles still to play: the stack, plus the drawn tile while it waits to be placed."""
    return len(game.stack) + (game.phase == "tile")


def _setup_text(game: Game) -> str:
    options = game.options
    parts = ["base game"]
    parts += [name for name in ("river", "abbot", "bets") if getattr(options, name)]
    if options.inns_cathedrals:
        parts.append("inns & cathedrals")
    if options.traders_builders:
        parts.append("traders & builders")
    if options.small_city_scores_2:
        parts.append("small cities score 2")
    if not options.farmers:
        parts.append("no farmers")
    if options.plain_unfinished_inns_cathedrals:
        parts.append("unfinished inns and cathedrals score as plain ones")
    if not options.inns:
        parts.append("no inns")
    if not options.cathedrals:
        parts.append("no cathedrals")
    if options.map:
        parts.append(f"map {options.map}" + (" with map chips" if options.map_chips else ""))
    return f"{game.players} players, {', '.join(parts)}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _event_text(event: ScoreEvent, names: list[str]) -> str:
    """One score event: what scored, its size, who got how much and why."""
    what = [f"{event.source} {event.reason}"]
    if event.tiles:
        what.append(_plural(event.tiles, "tile"))
    if event.source == "city" or event.coats_of_arms:
        what.append(_plural(event.coats_of_arms, "coat") + " of arms")
    detail = {k: v for k, v in event.detail.items() if k != "value"}
    for key, value in detail.items():
        if key == "per_city":  # by seat: a pig makes its owner's rate 4 (D45)
            value = ", ".join(f"{names[seat]} {rate}" for seat, rate in sorted(value.items()))
        what.append(f"{key.replace('_', ' ')} {value}")
    if event.points:
        gains = ", ".join(f"{names[seat]} +{pts}" for seat, pts in sorted(event.points.items()))
    else:
        gains = "nobody scores"
    why = ""
    if event.figures:
        counts = ", ".join(
            f"{names[seat]} {_plural(n, 'figure')}" for seat, n in sorted(event.figures.items())
        )
        why = f" (figures: {counts})"
    return f"  turn {event.turn:>3}  {', '.join(what)}: {gains}{why}"


def replay_text(path: str, record: Record, game: Game) -> str:
    """The human report: scores, per-seat points by source, then every score event."""
    seats = _seats(record, game)
    names = [seat["name"] for seat in seats]
    width = max(len(name) for name in names)
    summary = GameSummary.of(game)
    lines = [f"{path}: {_setup_text(game)}, {_plural(game.turn, 'turn')} played"]
    table = record.table
    if table is not None:
        lines += table_lines(record, table, game, names)
    if game.is_over:
        lines.append("Final scores:")
    else:
        lines.append(f"Scores so far (UNFINISHED: {_plural(_tiles_left(game), 'tile')} left):")
    for seat, name in enumerate(names):
        sources = ", ".join(
            f"{source} {points}" for source, points in sorted(summary.by_source[seat].items())
        )
        lines.append(f"  {name:<{width}}  {game.scores[seat]:>4}   {sources or '-'}")
    if game.is_over:
        lines.append("Winner: " + " and ".join(names[seat] for seat in winners(game, table)))
    lines.append("")
    lines.append("Score events:")
    events = [event for event in game.events if isinstance(event, ScoreEvent)]
    lines += [_event_text(event, names) for event in events] or ["  none"]
    return "\n".join(lines)
