"""Schema 8 (open tables, rematch, reviews) on both backends: a schema 7 database is migrated,
its games keep their rows and are neither listed nor waiting for players."""

from __future__ import annotations

from web_helpers import undo_schema_8

from carcassonne.web.database import open_storage
from carcassonne.web.schema import SCHEMA_VERSION

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]


def test_a_database_of_schema_7_is_migrated(games_db: str) -> None:
    storage = open_storage(games_db)
    storage.create_game("g", {}, HUMANS, None)
    with storage._transaction("schema 7") as db:
        undo_schema_8(db)
        db.execute("UPDATE meta SET value='7' WHERE key='schema'")
    storage.close()
    migrated = open_storage(games_db)
    assert migrated._rows("SELECT value FROM meta WHERE key='schema'") == [(str(SCHEMA_VERSION),)]
    assert migrated._rows("SELECT listed, open_seats, rematch FROM games") == [(0, 0, None)]
    with migrated._transaction("a review") as db:
        db.execute("INSERT INTO reviews VALUES ('g', '{}', 1)")
    assert migrated._rows("SELECT game_id, review FROM reviews") == [("g", "{}")]
    assert migrated.load_game("g") is not None
