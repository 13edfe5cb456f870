"""A throwaway PostgreSQL cluster for the tests (and benchmarks): ``initdb`` in a temporary
folder, listening only on a Unix socket there, stopped and deleted afterwards.

Needs PostgreSQL's server programs (Debian's ``postgresql`` package, which ``./scripts/test``
installs when missing).  PostgreSQL refuses to run as root, so as root the cluster runs as the
``postgres`` user that package creates.

Run alone, it starts a cluster, prints its URL and keeps it until interrupted::

    .venv/bin/python tests/pg_cluster.py [--durable]
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

#: settings for tests: a crash of the test machine loses nothing anyone needs
FAST = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"


class ClusterUnavailable(RuntimeError):
    """PostgreSQL's programs are not installed (or cannot run here)."""


#: where Debian's ``postgresql`` puts the server programs, one folder per major version (they
#: are not on the PATH: Debian links only the client programs there)
DEBIAN_PROGRAMS = Path("/usr/lib/postgresql")


def server_programs(
    which: Callable[[str], str | None] = shutil.which, debian: Path = DEBIAN_PROGRAMS
) -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``: on the PATH, else Debian's place (the
    newest version there that has both)."""
    found = which("initdb")
    if found and which("pg_ctl"):
        return Path(found).resolve().parent
    versions = []
    for folder in debian.glob("*/bin"):
        version = folder.parent.name
        if all((folder / program).is_file() for program in ("initdb", "pg_ctl")):
            # "9.6" < "15": compared as numbers, not as text
            key = tuple(int(part) for part in version.split(".") if part.isdigit())
            versions.append((key, folder))
    if versions:
        return max(versions)[1]
    raise ClusterUnavailable(
        "PostgreSQL's initdb is not installed (Debian: apt-get install postgresql)"
    )


def cluster_user(
    euid: int, account: Callable[[str], pwd.struct_passwd] = pwd.getpwnam
) -> pwd.struct_passwd | None:
    """Whom the cluster runs as: the current user, except root (PostgreSQL refuses to run as
    root), for whom it is the ``postgres`` user that Debian's package creates."""
    if euid != 0:
        return None
    try:
        return account("postgres")
    except KeyError:
        raise ClusterUnavailable("running as root needs a 'postgres' user") from None


class Cluster:
    """Use as a context manager; :attr:`url` is its superuser's ``postgres`` database."""

    def __init__(self, *, durable: bool = False, max_connections: int = 200) -> None:
        self.bin = server_programs()
        self.settings = "" if durable else FAST
        self.max_connections = max_connections
        self.folder = Path(tempfile.mkdtemp(prefix="carcassonne-pg-"))
        self.data = self.folder / "data"
        self.user: str | None = None
        account = cluster_user(os.geteuid())
        if account is not None:
            self.user = account.pw_name
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self.url = f"postgresql://postgres@/postgres?host={self.folder}"

    def _run(self, *command: str) -> None:
        # run from the cluster's folder: the postgres user may not enter the current one
        # (root's home), and PostgreSQL's programs fail when they cannot
        result = subprocess.run(
            command,
            user=self.user,
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if result.returncode:
            raise ClusterUnavailable(f"{command[0]} failed: {result.stderr or result.stdout}")

    def __enter__(self) -> Cluster:
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "-E", "UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        options = " ".join(
            ["-c listen_addresses=''", f"-k {self.folder}", "-p 5432",
             f"-c max_connections={self.max_connections}", self.settings]
        )  # fmt: skip
        try:
            self._run(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-w",
                "-l", str(self.folder / "log"), "start",
            )  # fmt: skip
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@/{name}?host={self.folder}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--durable", action="store_true", help="PostgreSQL's default fsync settings"
    )
    args = parser.parse_args()
    with Cluster(durable=args.durable) as cluster:
        print(cluster.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
