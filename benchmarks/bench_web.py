"""Web server load benchmark: concurrent bot-vs-bot games over websockets on loopback.

Starts ``carcassonne serve`` in a subprocess (loopback only, a temporary database), creates
``--games`` games with two human seats each, and plays every seat from its own websocket client
choosing a random legal action. Every action is timed from sending ``act`` until the state that
includes it arrives (the server has validated it, committed it to SQLite and broadcast it).

    .venv/bin/python benchmarks/bench_web.py [--games 20] [--seconds 120] [--seed 1]
                                             [--expert-games 4]

``--expert-games N`` adds N games the server plays by itself, the expert bot (default think
time, 0.5 s) against the greedy bot, beside the measured games: what searching bots cost the
people playing on the same server.

Reports the move round-trip p50 / p95 / max (target p50 < 50 ms), moves per second and errors.
The run is bounded: it stops after ``--seconds`` even if games are unfinished.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect


@dataclass
class Stats:
    round_trips: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    finished: int = 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, port: int, games: int) -> subprocess.Popen[bytes]:
    # every game is created from this one address at once: the per-client limit must allow it
    proc = subprocess.Popen(
        [sys.executable, "-m", "carcassonne.cli.main", "serve", "--port", str(port),
         "--db", str(db), "--bot-delay", "0", "--games-per-minute", str(max(10, games)),
         "--max-games", str(max(1000, games)),
         "--games-per-address", str(max(20, games))],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/meta", timeout=1):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise SystemExit("the server did not start")


HUMANS = [{"kind": "human"}, {"kind": "human"}]
EXPERT_VS_GREEDY = [{"kind": "bot", "bot": "expert"}, {"kind": "bot", "bot": "greedy"}]


def create_game(port: int, seed: int, seats: list[dict[str, Any]] = HUMANS) -> dict[str, Any]:
    body = {"seats": seats, "options": {"seed": seed}}
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


async def run(games: int, seconds: float, seed: int, expert_games: int = 0) -> Stats:
    stats = Stats()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = start_server(Path(tmp) / "bench.sqlite3", port, games + expert_games)
        try:
            for i in range(expert_games):
                create_game(port, seed + games + i, EXPERT_VS_GREEDY)
            created = [create_game(port, seed + i) for i in range(games)]
            deadline = time.monotonic() + seconds
            rng = random.Random(seed)
            # Each seat plays from its own loopback address, as players on their own machines
            # do: the server's limits are per client address.
            seats = [(game["id"], seat["token"]) for game in created for seat in game["seats"]]
            tasks = [
                play_seat(port, game_id, token, random.Random(rng.random()), stats, deadline,
                          source=f"127.0.1.{i % 250 + 1}")
                for i, (game_id, token) in enumerate(seats)
            ]  # fmt: skip
            await asyncio.gather(*tasks)
        finally:
            server.terminate()
            server.wait(timeout=10)
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="concurrent games (default 20)")
    parser.add_argument("--seconds", type=float, default=120, help="time limit (default 120)")
    parser.add_argument("--seed", type=int, default=1, help="seed for games and choices")
    parser.add_argument(
        "--expert-games", type=int, default=0, help="expert-vs-greedy games beside (default 0)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    stats = asyncio.run(run(args.games, args.seconds, args.seed, args.expert_games))
    elapsed = time.monotonic() - started
    trips = sorted(stats.round_trips)
    if not trips:
        print("no move completed")
        return 1
    p50 = statistics.median(trips) * 1000
    p95 = trips[min(len(trips) - 1, int(0.95 * len(trips)))] * 1000
    print(f"games: {args.games} concurrent, finished {stats.finished}, in {elapsed:.1f} s")
    if args.expert_games:
        print(f"beside them: {args.expert_games} expert-vs-greedy games played by the server")
    print(f"moves: {len(trips)} ({len(trips) / elapsed:.0f}/s)")
    print(f"round trip: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {trips[-1] * 1000:.1f} ms")
    print(f"errors: {len(stats.errors)}")
    for error in stats.errors[:5]:
        print(f"  {error}")
    verdict = "meets" if p50 < 50 else "misses"
    print(f"target p50 < 50 ms: {verdict}")
    return 0 if not stats.errors else 1


if __name__ == "__main__":
    sys.exit(main())
