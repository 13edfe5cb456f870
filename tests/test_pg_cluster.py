"""Where the test PostgreSQL's programs are found and whom it runs as (``tests/pg_cluster.py``):
on a fresh Debian machine ``./scripts/test`` installs ``postgresql``, whose server programs are
not on the PATH but in ``/usr/lib/postgresql/<version>/bin``, and runs the tests as root."""

from __future__ import annotations

import pwd
from pathlib import Path

import pytest

from pg_cluster import ClusterUnavailable, cluster_user, server_programs


def _install(debian: Path, version: str, programs: tuple[str, ...] = ("initdb", "pg_ctl")) -> Path:
    folder = debian / version / "bin"
    folder.mkdir(parents=True)
    for program in programs:
        (folder / program).write_text("#!/bin/sh\n")
    return folder


def nothing_on_the_path(program: str) -> str | None:
    return None


def test_debian_folders_are_found_newest_version_first(tmp_path: Path) -> None:
    debian = tmp_path / "postgresql"
    _install(debian, "9.6")
    newest = _install(debian, "15")
    _install(debian, "16", programs=("pg_ctl",))  # client programs only: no initdb
    assert server_programs(nothing_on_the_path, debian) == newest


def test_programs_on_the_path_come_first(tmp_path: Path) -> None:
    on_path = _install(tmp_path / "local", "x")
    _install(tmp_path / "postgresql", "15")

    def which(program: str) -> str | None:
        return str(on_path / program)

    assert server_programs(which, tmp_path / "postgresql") == on_path.resolve()


def test_without_initdb_the_cluster_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ClusterUnavailable, match="apt-get install postgresql"):
        server_programs(nothing_on_the_path, tmp_path / "absent")


def test_root_runs_the_cluster_as_postgres_and_others_as_themselves() -> None:
    postgres = pwd.struct_passwd(("postgres", "x", 104, 106, "", "/var/lib/postgresql", "/bin/sh"))
    accounts = {"postgres": postgres}
    assert cluster_user(0, accounts.__getitem__) is postgres
    assert cluster_user(1000, accounts.__getitem__) is None
    with pytest.raises(ClusterUnavailable, match="'postgres' user"):
        cluster_user(0, {}.__getitem__)
