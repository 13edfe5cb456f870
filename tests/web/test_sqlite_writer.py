"""SQLite's writer thread (issue 22, item 5): every commit waits for the disk, but off the event
loop, and the moves that queue while one commit flushes share the next flush."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from carcassonne.web.storage import SqliteStorage, StorageConflict

PASS = {"type": "pass"}


class SlowDisk(SqliteStorage):
    """Every move's commit takes a third of a second, as on a disk busy with other work."""

    def append_actions(self, *args: Any, **kwargs: Any) -> None:
        super().append_actions(*args, **kwargs)
        time.sleep(0.3)


def test_a_commit_waiting_for_the_disk_leaves_the_event_loop_serving(tmp_path: Path) -> None:
    """With the commits on the event loop's thread, a flush of 0.2-4 ms per move stopped every
    other game's sockets meanwhile (bench_web.py: p95 192-434 ms against 69-175 ms)."""
    storage = SlowDisk(tmp_path / "games.sqlite3")
    storage.create_game("g", {}, [], None)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    async def main() -> None:
        ticker = asyncio.ensure_future(tick())
        await asyncio.sleep(0)
        await storage.run(storage.append_actions, "g", 0, [(0, PASS)], False)
        ticker.cancel()

    asyncio.run(main())
    assert ticks >= 10, f"the event loop ran {ticks} times in the 0.3 s commit"
    assert storage.load_game("g").actions == [(0, PASS)]  # type: ignore[union-attr]
    storage.close()


MOVES = 10
QUEUED = """
import asyncio, sys, threading
from carcassonne.web.storage import SqliteStorage
storage = SqliteStorage(sys.argv[1])
moves = int(sys.argv[2])
for game in range(moves):
    storage.create_game(f"g{game}", {}, [], None)
flushing = threading.Event()  # the writer is busy with a commit while the moves arrive

async def main():
    busy = asyncio.ensure_future(storage.run(flushing.wait))
    queued = [
        asyncio.ensure_future(
            storage.run(storage.append_actions, f"g{game}", 0, [(0, {"type": "pass"})], False)
        )
        for game in range(moves)
    ]
    await asyncio.sleep(0.2)
    print("moves", flush=True)
    flushing.set()
    await asyncio.gather(busy, *queued)
    print("stored", flush=True)

asyncio.run(main())
"""


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_moves_queued_during_a_commit_share_one_flush(tmp_path: Path) -> None:
    """Each queued move is told it is stored only after a flush (strace sees it between the
    moves arriving and their answers), and one flush serves them all."""
    trace, db = tmp_path / "trace", tmp_path / "games.sqlite3"
    command = [sys.executable, "-c", QUEUED, str(db), str(MOVES)]
    traced = ["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync,write", "-o", str(trace)]
    subprocess.run([*traced, *command], check=True, capture_output=True, timeout=60)
    lines = trace.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if 'write(1, "moves' in line)
    end = next(i for i, line in enumerate(lines) if 'write(1, "stored' in line)
    flushes = [line for line in lines[start:end] if "fsync(" in line or "fdatasync(" in line]
    assert 1 <= len(flushes) <= 2, flushes
    storage = SqliteStorage(db)
    for game in range(MOVES):
        assert storage.load_game(f"g{game}").actions == [(0, PASS)]  # type: ignore[union-attr]


def test_a_refused_write_among_queued_ones_undoes_only_itself(tmp_path: Path) -> None:
    """Moves committed together each keep their own answer: a ply stored already is refused
    (StorageConflict) and the moves beside it are stored."""
    storage = SqliteStorage(tmp_path / "games.sqlite3")
    storage.create_game("a", {}, [], None)
    storage.create_game("b", {}, [], None)
    flushing = threading.Event()

    async def main() -> list[Any]:
        busy = asyncio.ensure_future(storage.run(flushing.wait, 5))
        queued = [
            asyncio.ensure_future(
                storage.run(storage.append_actions, game, 0, [(seat, PASS)], False)
            )
            for game, seat in (("a", 0), ("a", 1), ("b", 0))
        ]
        await asyncio.sleep(0.1)
        flushing.set()
        await busy
        return await asyncio.gather(*queued, return_exceptions=True)

    first, second, third = asyncio.run(main())
    assert first is None and third is None
    assert isinstance(second, StorageConflict), second
    assert storage.load_game("a").actions == [(0, PASS)]  # type: ignore[union-attr]
    assert storage.load_game("b").actions == [(0, PASS)]  # type: ignore[union-attr]
    storage.close()
