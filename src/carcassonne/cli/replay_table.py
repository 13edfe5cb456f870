"""The table's part of `carcassonne replay` (issue 24): the clock, who was played by the
stand-in, came back, resigned or ran out of time and from which turn, the places (the seats that
left ranked last) and the time each turn took; for ``--json``, the same as data.
"""

from __future__ import annotations

from typing import Any

from ..formats.record import Record, Turn, standings_of
from ..game import Game
from ..standings import SeatChange, TableRecord
from .wording import duration_text


def winners(game: Game, table: TableRecord | None) -> list[int]:
    """The first place: at a table, the seats that left rank last whatever their score."""
    return standings_of(game, table)[0] if table is not None else game.winners()


def table_json(table: TableRecord | None, game: Game) -> dict[str, Any]:
    """The table's part of ``--json``: nothing for a game not played at a table."""
    if table is None:
        return {}
    return {
        "table": table.settings.to_json(),
        "changes": [change.to_json() for change in table.changes],
        "spent_ms": list(table.spent_ms) or None,
        "standings": standings_of(game, table),
    }


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


def table_lines(record: Record, table: TableRecord, game: Game, names: list[str]) -> list[str]:
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
                width = max(len(name) for name in names)
                lines.append(f"  {place}. {names[seat]:<{width}}  {game.scores[seat]:>4}{note}")
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
