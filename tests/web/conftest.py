"""Fixtures of the web tests: the games database on either backend.

PostgreSQL runs as a throwaway cluster for the whole session (tests/pg_cluster.py), with
one games database emptied before each test (a new database per test costs ten times more).
Without PostgreSQL's programs its tests are skipped, except in CI (``CI`` set), where that is
a failure: ``./scripts/test`` installs them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pg_cluster import Cluster, ClusterUnavailable


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    try:
        with Cluster() as cluster:
            yield cluster
    except ClusterUnavailable as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no PostgreSQL: {exc}")


@pytest.fixture(scope="session")
def pg_games(pg_cluster: Cluster) -> str:
    return pg_cluster.database("games")


@pytest.fixture
def pg_url(pg_games: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The URL of an empty games database; the storages the test opens on it are closed after
    it (apps do not close theirs, and their pools would keep the cluster's connections)."""
    import psycopg

    from carcassonne.web.pgstorage import PostgresStorage

    with psycopg.connect(pg_games, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS reviews, chat, seat_changes, hints, actions, games, meta"
        )
    opened: list[PostgresStorage] = []
    real_init = PostgresStorage.__init__

    def tracked_init(self: PostgresStorage, url: str) -> None:
        real_init(self, url)
        opened.append(self)

    monkeypatch.setattr(PostgresStorage, "__init__", tracked_init)
    yield pg_games
    for storage in opened:
        storage.close()


@pytest.fixture(params=["sqlite", "postgres"])
def games_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new games database on each backend in turn: an SQLite file, a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return str(request.getfixturevalue("pg_url"))
