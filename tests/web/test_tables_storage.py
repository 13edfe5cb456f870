"""Schema 6 (issue 24): the time of every stored action, and the seat changes, each stored at
the ply it happened only while the game still has that many actions; on both backends."""

from __future__ import annotations

import time

import pytest
from web_helpers import undo_schema_8

from carcassonne.web.database import open_storage
from carcassonne.web.schema import SCHEMA_VERSION
from carcassonne.web.storage import StorageConflict

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
#: a time in milliseconds beyond 2**31 (a 4-byte column would overflow), exact as an integer
AT = 1_764_590_400_123


def change(ply: int, seat: int, kind: str, at_ms: int) -> dict[str, object]:
    return {"ply": ply, "seat": seat, "change": kind, "at_ms": at_ms}


def test_the_times_of_actions_are_stored_to_the_millisecond(games_db: str) -> None:
    storage = open_storage(games_db)
    storage.create_game("g", {}, HUMANS, None)
    storage.append_actions("g", 0, [(0, CLOSE_CITY), (0, {"type": "pass"})], False, at_ms=AT)
    storage.append_actions("g", 2, [(1, {"type": "pass"})], False, at_ms=AT + 61_001)
    stored = storage.load_game("g")
    assert stored is not None and stored.times == [AT, AT, AT + 61_001]
    since = storage.moves_since("g", 2)
    assert since.times == [AT + 61_001] and since.moves == [(1, {"type": "pass"})]


def test_a_seat_change_is_stored_only_at_the_current_ply(games_db: str) -> None:
    storage = open_storage(games_db)
    storage.create_game("g", {}, HUMANS, None)
    storage.append_actions("g", 0, [(0, CLOSE_CITY)], False, at_ms=AT)
    storage.add_seat_change("g", change(1, 1, "stand-in", AT + 5), bot_turn=True)
    # a second process that had not heard of the move asks at ply 0: refused
    with pytest.raises(StorageConflict, match="the game has moved on"):
        storage.add_seat_change("g", change(0, 1, "resign", AT + 6), bot_turn=True)
    storage.add_seat_change("g", change(1, 1, "return", AT + 7), bot_turn=False)
    stored = storage.load_game("g")
    assert stored is not None
    assert stored.changes == [change(1, 1, "stand-in", AT + 5), change(1, 1, "return", AT + 7)]
    assert storage.moves_since("g", 1).changes == stored.changes
    assert storage.orphaned_bot_games() == []  # the return left no bot to move
    storage.add_seat_change("g", change(1, 0, "resign", AT + 8), bot_turn=True)
    assert storage.orphaned_bot_games() == ["g"]  # a stand-in to move: a process must tend it


def test_a_game_a_process_tends_never_expires_as_idle(games_db: str) -> None:
    """A turn-based bank (up to 14 days) may outlast ``--expire-days`` (7): a game whose clock
    runs, or whose bot or stand-in is to move, goes on by itself and is never idle."""
    storage = open_storage(games_db)
    for game_id, tended in (("clocked", True), ("waiting", False)):
        storage.create_game(game_id, {}, HUMANS, None)
        storage.append_actions(game_id, 0, [(0, CLOSE_CITY)], False, tended, at_ms=AT)
    later = time.time() + 30 * 86400
    assert storage.idle_since(later) == ["waiting"]
    # nobody took either up: the short expiry of such games still sees both
    assert sorted(storage.idle_since(later, unclaimed=True)) == ["clocked", "waiting"]


def test_no_seat_change_after_the_game_ended(games_db: str) -> None:
    storage = open_storage(games_db)
    storage.create_game("g", {}, HUMANS, None)
    storage.append_actions("g", 0, [(0, CLOSE_CITY)], True, at_ms=AT)
    with pytest.raises(StorageConflict, match="it ended"):
        storage.add_seat_change("g", change(1, 1, "resign", AT), bot_turn=False)


def test_a_database_of_schema_5_is_migrated(games_db: str) -> None:
    """Schema 6 added the actions' times (0 for the old ones: those games had no clock) and
    the seat changes."""
    storage = open_storage(games_db)
    storage.create_game("g", {}, HUMANS, None)
    storage.append_actions("g", 0, [(0, CLOSE_CITY)], over=False, at_ms=AT)
    with storage._transaction("schema 5") as db:
        undo_schema_8(db)
        db.execute("DROP TABLE seat_changes")
        db.execute("ALTER TABLE actions DROP COLUMN at_ms")
        db.execute("UPDATE meta SET value='5' WHERE key='schema'")
    storage.close()
    migrated = open_storage(games_db)
    assert migrated._rows("SELECT value FROM meta WHERE key='schema'") == [(str(SCHEMA_VERSION),)]
    stored = migrated.load_game("g")
    assert stored is not None and stored.actions == [(0, CLOSE_CITY)] and stored.times == [0]
    migrated.append_actions("g", 1, [(0, {"type": "pass"})], False, at_ms=AT)
    migrated.add_seat_change("g", change(2, 1, "resign", AT), bot_turn=False)
    again = migrated.load_game("g")
    assert again is not None and again.times == [0, AT] and len(again.changes) == 1
