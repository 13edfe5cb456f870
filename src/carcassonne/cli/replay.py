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
from ..formats.record import Record, Turn, read_record, replay_record, standings_of
from ..game import Game, GameSummary
from ..standings import SeatChange, TableRecord


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
        "winners": game.winners() if game.is_over else None,
        "by_source": summary.by_source,
        "events": [event.to_json() for event in game.events],
        **_table_json(record.table, game),
    }


def _table_json(table: TableRecord | None, game: Game) -> dict[str, Any]:
    """The table's part of ``--json``: nothing for a game not played at a table."""
    if table is None:
        return {}
    return {
        "table": table.settings.to_json(),
        "changes": [change.to_json() for change in table.changes],
        "spent_ms": list(table.spent_ms) or None,
        "standings": standings_of(game, table),
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


#: what a seat change did, for people
_CHANGE_TEXT = {
    "stand-in": "played by the stand-in ({bot})",
    "return": "back at the table",
    "resign": "resigned (ranked last)",
    "timeout": "out of time (ranked last)",
}


def _turn_numbers(record: Record) -> list[int]:
    """For each ply of the record, the number of the turn it belongs to."""
    numbers: list[int] = []
    turn = 0
    for move in record.moves:
        if isinstance(move, Turn):
            turn += 1
            numbers += [turn] * move.plies
    return numbers


def _turn_of(change: SeatChange, numbers: list[int]) -> int:
    """The turn a change took effect in (a change after the last action: the next turn)."""
    return numbers[change.ply] if change.ply < len(numbers) else len(set(numbers)) + 1


def duration_text(ms: int) -> str:
    """``ms`` as a clock shows it: ``0:07``, ``12:30``, ``1:02:03``, ``2d 03:04:05``."""
    seconds = ms // 1000
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    if days:
        return f"{days}d {hours:02}:{minutes:02}:{seconds:02}"
    if hours:
        return f"{hours}:{minutes:02}:{seconds:02}"
    return f"{minutes}:{seconds:02}"


def _table_lines(record: Record, table: TableRecord, game: Game, names: list[str]) -> list[str]:
    """The clock, the seat changes with their turns, the places and each turn's time."""
    settings = table.settings
    timeout = "a timeout loses" if settings.on_timeout == "lose" else "out of time: the stand-in"
    lines = [f"Clock: {settings.control.describe()}; stand-in {settings.stand_in}"]
    if settings.control.timed:
        lines[0] += f"; {timeout}"
    numbers = _turn_numbers(record)
    if table.changes:
        lines.append("Seat changes:")
        for change in table.changes:
            what = _CHANGE_TEXT[change.change].format(bot=settings.stand_in)
            lines.append(f"  from turn {_turn_of(change, numbers):>3}  {names[change.seat]} {what}")
        lines.append("Places:")
        left = {c.seat: c for c in table.changes if c.change in ("resign", "timeout")}
        for place, seats in enumerate(standings_of(game, table), 1):
            for seat in seats:
                note = ""
                if seat in left:
                    how = "resigned" if left[seat].change == "resign" else "out of time"
                    note = f"  ({how} at turn {_turn_of(left[seat], numbers)})"
                lines.append(f"  {place}. {names[seat]}  {game.scores[seat]}{note}")
    if table.spent_ms:
        lines.append("Time per turn:")
        lines += _turn_time_lines(record, table.spent_ms, names)
    return lines


def _turn_time_lines(record: Record, spent: tuple[int, ...], names: list[str]) -> list[str]:
    """Each turn's time (all its decisions), four turns a line."""
    entries: list[str] = []
    ply = 0
    turns = [move for move in record.moves if isinstance(move, Turn)]
    width = max(len(name) for name in names)
    for number, turn in enumerate(turns, 1):
        took = sum(spent[ply : ply + turn.plies])
        ply += turn.plies
        entries.append(f"{number:>3} {names[turn.seat]:<{width}} {duration_text(took):>8}")
    return ["  " + "   ".join(entries[i : i + 4]) for i in range(0, len(entries), 4)]


def replay_text(path: str, record: Record, game: Game) -> str:
    """The human report: scores, per-seat points by source, then every score event."""
    seats = _seats(record, game)
    names = [seat["name"] for seat in seats]
    width = max(len(name) for name in names)
    summary = GameSummary.of(game)
    lines = [f"{path}: {_setup_text(game)}, {_plural(game.turn, 'turn')} played"]
    table = record.table
    if table is not None:
        lines += _table_lines(record, table, game, names)
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
        # At a table, the seats that left rank last whatever their score.
        first = standings_of(game, table)[0] if table is not None else game.winners()
        lines.append("Winner: " + " and ".join(names[seat] for seat in first))
    lines.append("")
    lines.append("Score events:")
    events = [event for event in game.events if isinstance(event, ScoreEvent)]
    lines += [_event_text(event, names) for event in events] or ["  none"]
    return "\n".join(lines)
