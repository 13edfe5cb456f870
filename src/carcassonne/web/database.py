"""Which storage a ``--db`` value names: an SQLite file path or a ``postgresql://`` URL."""

from __future__ import annotations

from pathlib import Path

from .sqlitestorage import SqliteStorage
from .storage import Storage, StorageError

#: the schemes of database URLs ``--db`` accepts (anything else with ``://`` is refused)
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_storage(db: str | Path) -> Storage:
    """The storage ``--db`` names: a ``postgresql://`` URL or an SQLite file path; anything
    else that looks like a URL is refused (it would otherwise become a folder named after it)."""
    text = str(db)
    if text.startswith(POSTGRES_SCHEMES):
        try:
            from .pgstorage import PostgresStorage
        except ImportError as exc:
            raise StorageError(
                "a postgresql:// database needs the 'postgres' extra "
                f"(pip install 'carcassonne-engine[postgres]'): {exc}"
            ) from None
        return PostgresStorage(text)
    scheme, sep, _ = text.partition("://")
    if sep:
        raise StorageError(
            f"unsupported database URL scheme {scheme!r}: give an SQLite file path or a "
            "postgresql://user@host/dbname URL"
        )
    return SqliteStorage(db)
