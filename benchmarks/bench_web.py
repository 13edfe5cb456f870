"""Web server load benchmark: concurrent bot-vs-bot games over websockets on loopback.

Starts ``carcassonne serve`` in ``--processes`` subprocesses (loopback only) on one database
(``--db``: an SQLite file or a ``postgresql://`` URL; default a temporary SQLite file), creates
``--games`` games with two human seats each, and plays every seat from its own websocket client
choosing a random legal action. Both seats of game i connect to process i mod N, as behind a
reverse proxy that routes by the game's path (docs/deploy.md); with ``--split-seats`` seat k
connects to process (i + k) mod N instead, so that every move crosses from one process to
the other (through PostgreSQL's NOTIFY): the worst case, a proxy spreading connections blindly.
Every action is timed from sending ``act`` until the state that includes it arrives (the server has
validated it, committed it to the database and broadcast it).

    .venv/bin/python benchmarks/bench_web.py [--games 20] [--seconds 120] [--seed 1]
                                             [--expert-games 4] [--processes N --db URL]
                                             [--pause 1.0] [--gc-pauses] [--server-src PATH]
    .venv/bin/python benchmarks/bench_web.py --takeover 3 --db postgresql://...

``--takeover K`` measures instead how long the bots of a game wait after ``kill -9`` of the
process playing them until another process has taken them over and moved: K times, a random-bot
game is created through a first process and watched through a second, the first is killed and
the time until the watcher sees the next move is taken (then the first is started again).
(``tests/pg_cluster.py`` starts a throwaway PostgreSQL and prints its URL.)

``--server-src PATH`` runs the servers from another checkout (its ``src`` first on
``PYTHONPATH``: "before" figures), and ``--gc-pauses`` times every garbage collection they make
(``gc_watch.py``) and prints a summary.

``--clock 5+20`` (any ``carcassonne play --clock`` word) creates the games at a table with
that clock: what the clocks cost (each state carries them, each move feeds them, and each game
keeps a task waiting for its deadline).  ``--clock-restarts K`` measures instead the clock's
error after a restart: K times, seat 0 of a 5+20 game plays its turn, the server is stopped,
started again a second later, and seat 1's remaining time it then reports is compared with
what the client's own clock says it must be (300 s less the time since the client was told of
seat 0's move).

``--expert-games N`` adds N games the server plays by itself, the expert bot (default think
time, 0.5 s) against the greedy bot, beside the measured games: what searching bots cost the
people playing on the same server.

Reports the move round-trip p50 / p95 / max (target p50 < 50 ms), moves per second and errors.
The run is bounded: it stops after ``--seconds`` even if games are unfinished.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gc_watch import summary
from websockets.asyncio.client import connect

from carcassonne.cli.serve import listen
from carcassonne.clocks import TimeControlError, parse


@dataclass
class Stats:
    round_trips: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    finished: int = 0
    #: CPU seconds the servers used, all of their run (read as they are stopped)
    server_cpu: float = 0.0


@dataclass(frozen=True)
class ServerCode:
    """Which code the servers run: ``source``, a checkout (None: this one), and where to log
    their garbage collections (None: not timed)."""

    source: Path | None = None
    gc_pauses: Path | None = None

    def command(self) -> list[str]:
        if self.gc_pauses is None:
            return [sys.executable]
        return [sys.executable, str(Path(__file__).with_name("gc_watch.py")), str(self.gc_pauses)]

    def env(self) -> dict[str, str] | None:
        if self.source is None:
            return None
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(self.source.resolve() / "src"), env.get("PYTHONPATH")])
        )
        return env


def start_server(
    db: str, games: int, bot_delay: float = 0.0, code: ServerCode = ServerCode()
) -> tuple[subprocess.Popen[bytes], int]:
    """A server on a loopback port the system picks, and that port: the socket is bound here
    and inherited (``--fd``), so no other program can take the port in between."""
    with listen("127.0.0.1", 0) as sock:
        port: int = sock.getsockname()[1]
        # every game is created from this one address at once: the per-client limit must allow it
        proc = subprocess.Popen(
            [*code.command(), "-m", "carcassonne.cli.main", "serve", "--fd", str(sock.fileno()),
             "--db", db, "--bot-delay", str(bot_delay), "--games-per-minute", str(max(10, games)),
             "--max-games", str(max(1000, games)),
             "--games-per-address", str(max(20, games))],
            stdout=subprocess.DEVNULL,
            pass_fds=(sock.fileno(),),
            env=code.env(),
        )  # fmt: skip
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/meta", timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("the server did not start")


HUMANS = [{"kind": "human"}, {"kind": "human"}]
EXPERT_VS_GREEDY = [{"kind": "bot", "bot": "expert"}, {"kind": "bot", "bot": "greedy"}]


def create_game(
    port: int,
    seed: int,
    seats: list[dict[str, Any]] = HUMANS,
    clock: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"seats": seats, "options": {"seed": seed}}
    if clock is not None:
        body["table"] = {"clock": clock}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/games",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


async def play_seat(
    port: int,
    game_id: str,
    token: str,
    rng: random.Random,
    stats: Stats,
    deadline: float,
    *,
    pause: float = 0.0,
    source: str = "127.0.0.1",
) -> None:
    """One seat's client, connecting from ``source``: answer every state where this seat must
    act with a random action, ``pause`` seconds after it arrives."""
    uri = f"ws://127.0.0.1:{port}/ws/{game_id}"
    async with connect(uri, max_size=2**22, local_addr=(source, 0)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at: float | None = None
        sent_ply = -1
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                return
            message = json.loads(raw)
            if message["type"] == "error":
                stats.errors.append(message["message"])
                sent_at = None
                continue
            if message["type"] != "state":
                continue
            ply = message["ply"]
            if sent_at is not None and ply > sent_ply:
                stats.round_trips.append(time.perf_counter() - sent_at)
                sent_at = None
            view = message["view"]
            if view["phase"] == "over":
                if view["seat"] == 0:
                    stats.finished += 1
                return
            legal = view.get("legal_actions")
            if legal and sent_at is None:
                if pause:
                    await asyncio.sleep(pause)
                action = rng.choice(legal)
                sent_ply = ply
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "actions": [action], "ply": ply}))


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used, from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def servers(
    db: str | None, processes: int, games: int, bot_delay: float = 0.0,
    code: ServerCode = ServerCode(), stats: Stats | None = None,
) -> Iterator[list[int]]:  # fmt: skip
    """``processes`` servers on the database ``db`` (None: a temporary SQLite file); their
    ports. With ``stats``, the CPU time they used is added to it as they stop."""
    with tempfile.TemporaryDirectory() as tmp:
        db = db or str(Path(tmp) / "bench.sqlite3")
        started = []
        try:
            for _ in range(processes):
                started.append(start_server(db, games, bot_delay, code))
            yield [port for _, port in started]
        finally:
            for server, _ in started:
                if stats is not None:
                    stats.server_cpu += process_cpu_seconds(server.pid)
                server.terminate()
                server.wait(timeout=10)


async def run(
    games: int, seconds: float, seed: int, expert_games: int = 0,
    db: str | None = None, processes: int = 1, split_seats: bool = False,
    code: ServerCode = ServerCode(), pause: float = 0.0, clock: dict[str, Any] | None = None,
) -> Stats:  # fmt: skip
    stats = Stats()
    with servers(db, processes, games + expert_games, code=code, stats=stats) as ports:
        for i in range(expert_games):
            create_game(ports[i % processes], seed + games + i, EXPERT_VS_GREEDY)
        created = [create_game(ports[i % processes], seed + i, clock=clock) for i in range(games)]
        deadline = time.monotonic() + seconds
        rng = random.Random(seed)
        # Each seat plays from its own loopback address, as players on their own machines
        # do: the server's limits are per client address.
        seats = [
            (ports[(i + k * split_seats) % processes], game["id"], seat["token"])
            for i, game in enumerate(created)
            for k, seat in enumerate(game["seats"])
        ]
        tasks = [
            play_seat(port, game_id, token, random.Random(rng.random()), stats, deadline,
                      pause=pause, source=f"127.0.1.{i % 250 + 1}")
            for i, (port, game_id, token) in enumerate(seats)
        ]  # fmt: skip
        await asyncio.gather(*tasks)
    return stats


RANDOM_BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
#: seconds each bot waits before a move in the takeover runs: a game lasts about half a minute
TAKEOVER_BOT_DELAY = 0.2


async def next_ply(port: int, game_id: str, after: int, timeout: float) -> tuple[int, float]:
    """Watch a game until its ply passes ``after``: that ply and when it was seen."""
    async with connect(f"ws://127.0.0.1:{port}/ws/{game_id}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
            if message["type"] == "state" and message["ply"] > after:
                return message["ply"], time.monotonic()


async def takeover(db: str, trials: int, seed: int) -> list[float]:
    """Seconds from ``kill -9`` of the process playing a game's bots to the next bot move, as
    seen through another process (see the module's docstring)."""
    times = []
    with servers(db, 1, trials, TAKEOVER_BOT_DELAY) as (watching,):
        for trial in range(trials):
            playing, port = start_server(db, trials, TAKEOVER_BOT_DELAY)
            try:
                game_id = create_game(port, seed + trial, RANDOM_BOTS)["id"]
                ply, _ = await next_ply(watching, game_id, 4, 30)  # under way, on both
            finally:
                playing.kill()
            killed_at = time.monotonic()
            playing.wait(timeout=10)
            _, seen_at = await next_ply(watching, game_id, ply + 1, 60)
            times.append(seen_at - killed_at)
    return times


def get_json(port: int, path: str, token: str) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers={"authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


async def clock_restarts(trials: int, seed: int) -> list[int]:
    """Milliseconds by which seat 1's clock, as a restarted server reports it, differs from
    the client's own count (see the module's docstring); positive: the server's is ahead."""
    errors = []
    control = parse("5+20").to_json()
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "clock.sqlite3")
        for trial in range(trials):
            server, port = start_server(db, trials)
            try:
                game = create_game(port, seed + trial, clock=control)
                uri = f"ws://127.0.0.1:{port}/ws/{game['id']}"
                async with connect(uri, max_size=2**22) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": game["seats"][0]["token"]}))
                    told_ms = 0
                    while True:
                        message = json.loads(await ws.recv())
                        if message["type"] != "state":
                            continue
                        if message["view"]["to_move"] == 1:
                            told_ms = time.time_ns() // 1_000_000
                            break
                        act = {"actions": message["view"]["legal_actions"][:1]}
                        await ws.send(json.dumps({"type": "act", **act, "ply": message["ply"]}))
            finally:
                server.terminate()
                server.wait(timeout=10)
            time.sleep(1.0)
            server, port = start_server(db, trials)
            try:
                state = get_json(port, f"/api/games/{game['id']}/state", game["seats"][1]["token"])
                now_ms = time.time_ns() // 1_000_000
            finally:
                server.terminate()
                server.wait(timeout=10)
            # what the client counts at the server's reading (its own now, less the request's
            # return trip, is later than the server's: both clocks are this machine's)
            expected = 300_000 - (state["clocks"]["server_now_ms"] - told_ms)
            errors.append(state["clocks"]["remaining_ms"][1] - expected)
            assert now_ms >= state["clocks"]["server_now_ms"]
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="concurrent games (default 20)")
    parser.add_argument("--seconds", type=float, default=120, help="time limit (default 120)")
    parser.add_argument("--seed", type=int, default=1, help="seed for games and choices")
    parser.add_argument(
        "--expert-games", type=int, default=0, help="expert-vs-greedy games beside (default 0)"
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes on the database (default 1)"
    )
    parser.add_argument(
        "--db", default=None, help="database: SQLite path or postgresql:// URL (default: a "
        "temporary SQLite file; several processes need PostgreSQL)",
    )  # fmt: skip
    parser.add_argument(
        "--split-seats", action="store_true",
        help="the two seats of a game on different processes (default: on the same one)",
    )  # fmt: skip
    parser.add_argument(
        "--takeover", type=int, default=0, metavar="K",
        help="measure K bot takeovers after kill -9 instead (needs --db postgresql://...)",
    )  # fmt: skip
    parser.add_argument(
        "--server-src", type=Path, default=None,
        help="run the servers from this checkout ('before' figures)",
    )  # fmt: skip
    parser.add_argument(
        "--pause", type=float, default=0.0,
        help="seconds each seat waits before answering a state (default 0: as fast as it can)",
    )  # fmt: skip
    parser.add_argument(
        "--gc-pauses", action="store_true",
        help="time the servers' garbage collections and print a summary",
    )  # fmt: skip
    parser.add_argument(
        "--clock", default="none",
        help="the games' clock, as carcassonne play --clock takes it (default none)",
    )  # fmt: skip
    parser.add_argument(
        "--clock-restarts", type=int, default=0, metavar="K",
        help="measure the clock's error after K restarts instead",
    )  # fmt: skip
    args = parser.parse_args()
    try:
        control = parse(args.clock)
    except TimeControlError as exc:
        parser.error(str(exc))
    if args.clock_restarts:
        errors = asyncio.run(clock_restarts(args.clock_restarts, args.seed))
        print(f"clock error after a restart, {len(errors)} runs: "
              + ", ".join(f"{e:+d}" for e in errors) + " ms")  # fmt: skip
        return 0
    shared = (args.db or "").startswith("postgresql://")
    if not 1 <= args.processes <= 16:
        parser.error("--processes must be from 1 to 16")
    if (args.processes > 1 or args.takeover) and not shared:
        parser.error("several server processes need --db postgresql://...")
    if args.takeover:
        times = asyncio.run(takeover(args.db, args.takeover, args.seed))
        print(f"takeover after kill -9, {len(times)} runs: " + ", ".join(f"{t:.2f}" for t in times)
              + f" s; median {statistics.median(times):.2f} s")  # fmt: skip
        return 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        pauses = Path(tmp) / "gc.jsonl" if args.gc_pauses else None
        stats = asyncio.run(
            run(
                args.games,
                args.seconds,
                args.seed,
                args.expert_games,
                args.db,
                args.processes,
                args.split_seats,
                ServerCode(args.server_src, pauses),
                args.pause,
                control.to_json() if control.timed else None,
            )
        )
        gc_summary = summary(pauses) if pauses is not None else None
    elapsed = time.monotonic() - started
    trips = sorted(stats.round_trips)
    if not trips:
        print("no move completed")
        return 1
    p50 = statistics.median(trips) * 1000
    p95 = trips[min(len(trips) - 1, int(0.95 * len(trips)))] * 1000
    where = (
        f"{args.processes} process(es) on {'PostgreSQL' if shared else 'SQLite'}"
        + (", seats split" if args.split_seats else "")
        + f", clock {args.clock}"
    )
    print(
        f"games: {args.games} concurrent, finished {stats.finished}, in {elapsed:.1f} s ({where})"
    )
    if args.expert_games:
        print(f"beside them: {args.expert_games} expert-vs-greedy games played by the server")
    print(f"moves: {len(trips)} ({len(trips) / elapsed:.0f}/s)")
    cpu_per_move = stats.server_cpu / len(trips) * 1000
    print(f"server CPU: {stats.server_cpu:.1f} s, {cpu_per_move:.2f} ms a move (with creating)")
    print(f"round trip: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {trips[-1] * 1000:.1f} ms")
    if gc_summary is not None:
        print(f"garbage collections: {gc_summary}")
    print(f"errors: {len(stats.errors)}")
    for error in stats.errors[:5]:
        print(f"  {error}")
    verdict = "meets" if p50 < 50 else "misses"
    print(f"target p50 < 50 ms: {verdict}")
    return 0 if not stats.errors else 1


if __name__ == "__main__":
    sys.exit(main())
