"""The schema of the games database, both backends': its tables, and the steps from older ones.

What is stored is a contract with every database already written: a server opening an older
file or database migrates it step by step (schema n -> n + 1, each step one transaction) and
refuses a newer one.  SQLite (:mod:`.storage`) and PostgreSQL (:mod:`.pgstorage`) create the
same tables from one text, differing only in the names of two column types, and share every step
since schema 3 (the first PostgreSQL had); a change of the schema adds its step to both tables of
steps here.

A game is unfinished (``finished`` 0), finished (1) or expired (2: ended unfinished, because
nobody moved for a long time or its place was needed); ``updated`` is the time of its last move.
``claimed`` says the game was taken up (a person moved in it, or someone other than its
creator opened a seat's link): a game nobody took up expires after minutes, not days.
``bot_turn`` says a bot is to move; the process playing a game's bots holds a lease on them
(``bot_owner`` until ``bot_lease_until``, renewed while it lives), so that each bot move is
computed by one process and another takes over when that one dies.  ``hints`` holds the hints
used in games with several human seats (shown to every player, so kept like the moves).

Schema 6 (issue 24, tables that always finish) keeps the time of every action (``at_ms``,
milliseconds since the epoch: a game's clocks are computed again from them after a restart or
in another process, to the millisecond) and the seat changes (``seat_changes``: a seat handed
to its stand-in bot, taken back, resigned or timed out), each stored at the ply it happened
only while the game still has that many actions (:meth:`.storage.Storage.add_seat_change`: of two
processes, the second is refused).  A game's table settings (its clock, stand-in bot, what a
timeout does) are kept with its options.  ``bot_turn`` now says that the game needs a process
to tend it: a bot or stand-in is to move, or a clock runs for a human seat (its deadline must be
acted on); the lease is the same.

Schema 7 (issue 25, chat per table) keeps each table's chat (``chat``), numbered in order per
game: ``audience`` is ``seats`` (the players' chat, shown in the replay) or ``spectators`` (theirs,
apart); ``seat`` is the writer's seat (NULL for a spectator); a line holds either ``text`` or a
quick ``phrase`` id (each reader sees it in their own language).  A game keeps at most
:data:`.chat.MAX_CHAT_LINES` lines (:meth:`.storage.Storage.add_chat`).

Schema 8 (issues 25 and 26: open tables, rematch, game review) keeps whether a game's creator
listed it among the open tables (``listed``) and how many of its seats wait for a player
(``open_seats``: such a seat is stored with kind ``open`` until someone takes it); the game
"Play again" made from a finished one (``rematch``: its id, set once); and the review of a
finished game (``reviews``: one JSON document per game, kept once computed).
"""

from __future__ import annotations

SCHEMA_VERSION = 8

UNFINISHED, FINISHED, EXPIRED = 0, 1, 2

#: the hints used (at most one per ply: only the seat to move may ask), new in schema 4
_HINTS_TABLE = """
CREATE TABLE IF NOT EXISTS hints (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""

#: the seat changes (stand-in, return, resign, timeout), numbered in order per game, new in
#: schema 6; ``{bigint}`` is an 8-byte integer (milliseconds since the epoch overflow 4 bytes)
_SEAT_CHANGES_TABLE = """
CREATE TABLE IF NOT EXISTS seat_changes (
    game_id TEXT NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    change TEXT NOT NULL,
    at_ms {bigint} NOT NULL,
    PRIMARY KEY (game_id, n)
);
"""

#: the chat lines, numbered in order per game, new in schema 7
_CHAT_TABLE = """
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    audience TEXT NOT NULL,
    seat INTEGER,
    name TEXT NOT NULL,
    text TEXT,
    phrase TEXT,
    at_ms {bigint} NOT NULL,
    PRIMARY KEY (game_id, n)
);
"""

#: the reviews of finished games, new in schema 8
_REVIEWS_TABLE = """
CREATE TABLE IF NOT EXISTS reviews (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    review TEXT NOT NULL,
    at_ms {bigint} NOT NULL
);
"""

#: the tables of schema :data:`SCHEMA_VERSION`, both backends'; ``{real}`` is the type of times
#: in seconds, ``{bigint}`` that of times in milliseconds (see :func:`_schema_sql`)
_TABLES = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created {real} NOT NULL,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    hotseat_digest TEXT,
    finished INTEGER NOT NULL DEFAULT 0,
    updated {real} NOT NULL DEFAULT 0,
    creator TEXT NOT NULL DEFAULT '',
    expired TEXT,
    bot_turn INTEGER NOT NULL DEFAULT 0,
    bot_owner TEXT,
    bot_lease_until {real} NOT NULL DEFAULT 0,
    claimed INTEGER NOT NULL DEFAULT 0,
    listed INTEGER NOT NULL DEFAULT 0,
    open_seats INTEGER NOT NULL DEFAULT 0,
    rematch TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    at_ms {bigint} NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, ply)
);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished, creator, updated);
CREATE INDEX IF NOT EXISTS games_bots ON games (finished, bot_turn, bot_lease_until);
{listed_index}{hints}{seat_changes}{chat}{reviews}INSERT INTO meta VALUES ('schema', '{version}');
"""

#: schema 3 -> 4, both backends' step: schema 3 kept the hints used in memory only (a restart
#: forgot them)
_HINTS_MIGRATION = f"""{_HINTS_TABLE}UPDATE meta SET value = '4' WHERE key = 'schema';
"""


#: schema 4 -> 5, both backends' step: schema 4 did not tell a game nobody took up (which may
#: expire soon) from one being played; a game with moves stored counts as taken up
_CLAIMED_MIGRATION = """ALTER TABLE games ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0;
UPDATE games SET claimed = 1 WHERE id IN (SELECT game_id FROM actions);
UPDATE meta SET value = '5' WHERE key = 'schema';
"""


def _seat_changes_migration(bigint: str) -> str:
    """Schema 5 -> 6, both backends' step (``bigint`` as in :func:`_schema_sql`): schema 5 kept
    no time of the actions (stored as 0: such games had no clock) and no seat changes."""
    return (
        f"ALTER TABLE actions ADD COLUMN at_ms {bigint} NOT NULL DEFAULT 0;\n"
        f"{_SEAT_CHANGES_TABLE.format(bigint=bigint)}"
        "UPDATE meta SET value = '6' WHERE key = 'schema';\n"
    )


def _chat_migration(bigint: str) -> str:
    """Schema 6 -> 7, both backends' step: schema 6 had no chat."""
    return f"{_CHAT_TABLE.format(bigint=bigint)}UPDATE meta SET value = '7' WHERE key = 'schema';\n"


#: the open tables' list reads this index (listed, unfinished, waiting for players, newest first)
_LISTED_INDEX = (
    "CREATE INDEX IF NOT EXISTS games_listed ON games (listed, finished, open_seats, created);\n"
)


def _tables_migration(bigint: str) -> str:
    """Schema 7 -> 8, both backends' step: schema 7 had no open tables, rematches or reviews."""
    return (
        "ALTER TABLE games ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;\n"
        "ALTER TABLE games ADD COLUMN open_seats INTEGER NOT NULL DEFAULT 0;\n"
        "ALTER TABLE games ADD COLUMN rematch TEXT;\n"
        f"{_LISTED_INDEX}{_REVIEWS_TABLE.format(bigint=bigint)}"
        "UPDATE meta SET value = '8' WHERE key = 'schema';\n"
    )


def _schema_sql(real: str, bigint: str) -> str:
    """The statements creating the tables, times in seconds of type ``real`` (SQLite's
    ``REAL``, PostgreSQL's ``DOUBLE PRECISION``: both 8-byte floats) and in milliseconds of
    type ``bigint`` (SQLite's ``INTEGER``, PostgreSQL's ``BIGINT``: 8 bytes)."""
    return _TABLES.format(
        real=real,
        bigint=bigint,
        version=SCHEMA_VERSION,
        hints=_HINTS_TABLE.lstrip(),
        seat_changes=_SEAT_CHANGES_TABLE.format(bigint=bigint).lstrip(),
        chat=_CHAT_TABLE.format(bigint=bigint).lstrip(),
        reviews=_REVIEWS_TABLE.format(bigint=bigint).lstrip(),
        listed_index=_LISTED_INDEX,
    )


SQLITE_SCHEMA = f"BEGIN;\n{_schema_sql('REAL', 'INTEGER')}COMMIT;\n"


#: SQLite migrations: schema n -> n + 1, each one transaction
SQLITE_MIGRATIONS = {
    # schema 1 had no times of the last move, creators or expiry reasons
    1: """
BEGIN;
ALTER TABLE games ADD COLUMN updated REAL NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN creator TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN expired TEXT;
UPDATE games SET updated = created;
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished, creator, updated);
UPDATE meta SET value = '2' WHERE key = 'schema';
COMMIT;
""",
    # schema 2 had no bot leases (one process played every bot); the games left with a bot to
    # move are found again at start-up, when every unfinished game is loaded
    2: """
BEGIN;
ALTER TABLE games ADD COLUMN bot_turn INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN bot_owner TEXT;
ALTER TABLE games ADD COLUMN bot_lease_until REAL NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS games_bots ON games (finished, bot_turn, bot_lease_until);
UPDATE meta SET value = '3' WHERE key = 'schema';
COMMIT;
""",
    3: f"BEGIN;\n{_HINTS_MIGRATION}COMMIT;\n",
    4: f"BEGIN;\n{_CLAIMED_MIGRATION}COMMIT;\n",
    5: f"BEGIN;\n{_seat_changes_migration('INTEGER')}COMMIT;\n",
    6: f"BEGIN;\n{_chat_migration('INTEGER')}COMMIT;\n",
    7: f"BEGIN;\n{_tables_migration('INTEGER')}COMMIT;\n",
}


POSTGRES_SCHEMA = _schema_sql("DOUBLE PRECISION", "BIGINT")

#: PostgreSQL migrations: schema n -> n + 1, each run in one transaction (schema 3 is the first
#: one PostgreSQL had)
POSTGRES_MIGRATIONS = {
    3: _HINTS_MIGRATION,
    4: _CLAIMED_MIGRATION,
    5: _seat_changes_migration("BIGINT"),
    6: _chat_migration("BIGINT"),
    7: _tables_migration("BIGINT"),
}
