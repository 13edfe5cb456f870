"""The open tables in the games database (issue 25), both backends': taking an open seat, the
page of listed tables, the count of one creator's listed tables and the tables that waited
too long.

A seat left open is stored with kind ``open`` (no name, no bot, no digest) and counted in
``games.open_seats``; ``games.listed`` says the creator listed the table publicly (schema 8,
:mod:`.schema`).  Taking a seat is one transaction that writes the game's row first, so that
of two joiners on two processes the second waits for the first's commit and then sees the seat
taken (:func:`take_open_seat`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from .schema import UNFINISHED
from .storage import Storage, StorageConflict


class SeatTaken(StorageConflict):
    """The seat asked for is not open (any more): someone else took it first."""


class TableGone(StorageConflict):
    """The game has ended (finished or expired), or there is no such game."""


@dataclass(frozen=True)
class ListedRow:
    """One listed table waiting for players, as stored."""

    id: str
    created: float
    #: the stored JSON texts (read by :func:`.opentables.table_entry`: one that does not read
    #: is left out of the list, not the list's failure)
    options: str
    seats: str


def take_open_seat(
    storage: Storage, game_id: str, seat: int, taken: dict[str, Any], bot_first: bool
) -> list[dict[str, Any]]:
    """Store ``taken`` (a human seat: kind, bot, name, digest) in place of the open ``seat``;
    the game's seats after it.  :class:`SeatTaken` when that seat is not open, :class:`TableGone`
    when the game ended.  ``bot_first``: a bot makes the game's first move, so once no seat
    is open the game needs a process to tend it (``bot_turn``, as :meth:`.Storage.create_game`)."""
    with storage._transaction(f"a seat of game {game_id}") as db:
        locked = db.execute(
            "UPDATE games SET updated=updated WHERE id=? AND finished=?", (game_id, UNFINISHED)
        )
        if locked.rowcount != 1:
            raise TableGone(f"game {game_id} has ended")
        (stored,) = db.execute("SELECT seats FROM games WHERE id=?", (game_id,)).fetchone()
        seats = json.loads(stored)
        if seats[seat].get("kind") != "open":
            raise SeatTaken(f"seat {seat + 1} of game {game_id} is taken")
        seats[seat] = taken
        still_open = sum(1 for s in seats if s.get("kind") == "open")
        tended = int(bot_first and not still_open)
        db.execute(
            "UPDATE games SET seats=?, open_seats=?, bot_turn=?, updated=? WHERE id=?",
            (json.dumps(seats), still_open, tended, time.time(), game_id),
        )
        storage._announce(db, game_id)
    return list(seats)


def listed_tables(
    storage: Storage, before: tuple[float, str] | None, limit: int
) -> list[ListedRow]:
    """Up to ``limit`` listed unfinished tables with a seat open, newest first (ties by id),
    those created before ``before`` (a page's last ``(created, id)``) if given."""
    where = "finished=? AND listed=1 AND open_seats > 0"
    params: list[Any] = [UNFINISHED]
    if before is not None:
        where += " AND (created < ? OR (created = ? AND id < ?))"
        params += [before[0], before[0], before[1]]
    rows = storage._rows(
        f"SELECT id, created, options, seats FROM games WHERE {where} "
        "ORDER BY created DESC, id DESC LIMIT ?",
        *params,
        limit,
    )
    return [ListedRow(r[0], float(r[1]), r[2], r[3]) for r in rows]


def count_listed_waiting(storage: Storage, creator: str) -> int:
    """The listed tables of ``creator`` (:func:`.storage.creator_digest`) still waiting."""
    rows = storage._rows(
        "SELECT COUNT(*) FROM games WHERE finished=? AND listed=1 AND open_seats > 0 AND creator=?",
        UNFINISHED,
        creator,
    )
    return int(rows[0][0])


def waiting_since(storage: Storage, cutoff: float) -> list[str]:
    """Unfinished tables, listed or not, created before ``cutoff`` (seconds since the epoch)
    with a seat still open: they waited too long for players."""
    rows = storage._rows(
        "SELECT id FROM games WHERE finished=? AND open_seats > 0 AND created < ?",
        UNFINISHED,
        cutoff,
    )
    return [r[0] for r in rows]
