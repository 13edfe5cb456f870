"""Attack ``carcassonne serve`` on loopback and print what each attack costs the server.

Every scenario starts a fresh server in a subprocess (a temporary database, a free port on
127.0.0.1), so its memory, CPU time and open files can be read from ``/proc`` while it is under
attack. Meanwhile a *probe* plays an ordinary two-seat game from its own address and times each
move's round trip, which shows whether honest players still get served.

    .venv/bin/python benchmarks/attack_web.py                       # every scenario
    .venv/bin/python benchmarks/attack_web.py --scenario idle
    .venv/bin/python benchmarks/attack_web.py --server-src ../old-checkout   # "before" figures

``--server-src`` runs the server from another checkout (its ``src`` directory is put first on
``PYTHONPATH``), to measure an older revision with the same attacks. Only loopback addresses
(127.0.0.0/8) are ever connected to or from, and every scenario is bounded in count and time.
The server gets the machine's default open-files limit; the attackers raise theirs, and a
scenario that needs more sockets than one process may hold spreads them over worker processes.
The attack runs in a process of its own at a lower priority (``nice`` 10), and so do its
workers: on loopback the attackers share the server's CPUs, which a remote attacker would not.

A scenario is an async function of a :class:`Context` returning its own figures, registered
with ``@scenario(name, description)``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import random
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_web import Stats, play_seat
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

TARGET = "127.0.0.1"
#: the probe's own address, so that caps per address never count it with an attacker
PROBE_ADDRESS = "127.0.0.3"
#: the address the attackers' own requests (not their floods) come from
ATTACKER_ADDRESS = "127.0.0.4"
TWO_HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}]}
#: seconds the probe waits before answering each state, like a (very fast) person
PROBE_PAUSE = 0.15
NOFILE = resource.getrlimit(resource.RLIMIT_NOFILE)


def spread(clients: int, block: int, per_address: int = 50) -> list[str]:
    """Loopback addresses ``127.0.<block>.1`` and on, enough for ``clients`` clients at
    ``per_address`` each (under the server's default cap of 100 connections per address)."""
    if not 0 <= block <= 255:
        raise ValueError(f"no such block of loopback addresses: {block}")
    return [f"127.0.{block}.{i}" for i in range(1, 2 + (clients - 1) // per_address)]


def loopback(address: str) -> str:
    if not address.startswith("127."):
        raise SystemExit(f"refusing to use a non-loopback address: {address}")
    return address


def free_port() -> int:
    with socket.socket() as s:
        s.bind((TARGET, 0))
        return int(s.getsockname()[1])


def raise_open_files_limit() -> None:
    """Attackers hold many sockets: use the hard limit (the server keeps the default)."""
    soft, hard = NOFILE
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# ------------------------------------------------------------------------------ the server


class ServerProcess:
    """``carcassonne serve`` in a subprocess with its log in a file."""

    def __init__(self, workdir: Path, source: Path | None, extra_args: list[str]) -> None:
        self.port = free_port()
        self.log_path = workdir / "server.log"
        env = dict(os.environ)
        if source is not None:
            env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [str(source.resolve() / "src"), env.get("PYTHONPATH")])
            )
        database = workdir / "games.sqlite3"
        command = [sys.executable, "-m", "carcassonne.cli.main", "serve", "--host", TARGET,
                   "--port", str(self.port), "--db", str(database), "--bot-delay", "0",
                   *extra_args]  # fmt: skip
        self.log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            # the server gets the machine's default limit, not the attackers' raised one
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, NOFILE),
        )
        self._wait_ready()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"the server exited: {self.log_path.read_text()[-2000:]}")
            try:
                request(self.port, "GET", "/api/meta", source=PROBE_ADDRESS)
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise SystemExit("the server did not start in 20 s")

    def log_figures(self) -> tuple[int, int, str]:
        """Lines and bytes the server has logged so far, and its most frequent line (numbers
        and addresses blanked, so that lines of one kind count together)."""
        data = self.log_path.read_bytes()
        kinds = Counter(
            re.sub(r"[0-9]+", "#", line)[:90]
            for line in data.decode(errors="replace").splitlines()
            if line.strip() and not line.startswith("Carcassonne: open")
        )
        common = f"{kinds.most_common(1)[0][1]} x {kinds.most_common(1)[0][0]}" if kinds else "-"
        return data.count(b"\n"), len(data), common

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def request(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    source: str = PROBE_ADDRESS,
    timeout: float = 10,
) -> tuple[int, Any]:
    """One HTTP request from ``source``; the status and the decoded JSON answer."""
    conn = http.client.HTTPConnection(TARGET, port, timeout=timeout,
                                      source_address=(loopback(source), 0))  # fmt: skip
    try:
        payload = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"} if payload is not None else {}
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
        try:
            decoded = json.loads(data)
        except ValueError:
            decoded = data.decode(errors="replace")
        return response.status, decoded
    finally:
        conn.close()


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used, from ``/proc``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # utime and stime are fields 14 and 15 of stat; 11 and 12 after the command name
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB, from ``/proc``."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Monitor:
    """Samples the server's memory, CPU time and open files from ``/proc`` in a thread."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid = pid
        self.interval = interval
        self.rss_peak_kb = 0
        self.fds_peak = 0
        self.cpu_start = process_cpu_seconds(pid)
        self.cpu_seconds = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    self.rss_peak_kb = max(self.rss_peak_kb, int(line.split()[1]))
            self.fds_peak = max(self.fds_peak, len(os.listdir(f"/proc/{self.pid}/fd")))
        except OSError:
            return
        self.cpu_seconds = process_cpu_seconds(self.pid) - self.cpu_start

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


# ------------------------------------------------------------------------------ the probe


@dataclass
class Probe:
    """Plays two-seat games from :data:`PROBE_ADDRESS` with ``bench_web``'s seat clients,
    timing each move from sending ``act`` until the state that includes it arrives."""

    port: int
    stats: Stats = field(default_factory=Stats)

    async def run(self, stop: asyncio.Event) -> None:
        playing = asyncio.create_task(self._play())
        await stop.wait()
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing

    async def _play(self) -> None:
        for seed in range(1, 10_000):
            status, game = await asyncio.to_thread(
                request, self.port, "POST", "/api/games", {**TWO_HUMANS, "options": {"seed": seed}}
            )
            if status != 201:
                self.stats.errors.append(f"create: {status} {game}")
                await asyncio.sleep(1.0)
                continue
            rng = random.Random(seed)
            seats = [
                play_seat(self.port, game["id"], seat["token"], random.Random(rng.random()),
                          self.stats, time.monotonic() + 600, pause=PROBE_PAUSE,
                          source=PROBE_ADDRESS)
                for seat in game["seats"]
            ]  # fmt: skip
            try:
                await asyncio.gather(*seats)
            except (OSError, ConnectionClosed) as exc:  # reported; the probe goes on
                self.stats.errors.append(f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(1.0)

    def figures(self) -> dict[str, str]:
        trips = sorted(self.stats.round_trips)
        if not trips:
            return {
                "moves": "0",
                "p50 ms": "-",
                "p95 ms": "-",
                "probe errors": str(len(self.stats.errors)),
            }
        return {
            "moves": str(len(trips)),
            "p50 ms": f"{statistics.median(trips) * 1000:.0f}",
            "p95 ms": f"{trips[min(len(trips) - 1, int(0.95 * len(trips)))] * 1000:.0f}",
            "probe errors": str(len(self.stats.errors)),
        }


# ------------------------------------------------------------------------------ scenarios


@dataclass
class Context:
    """What a scenario gets: the server's port and pid, the time it may take.

    The server refuses more than 100 connections at once from one address (and 100 websocket
    messages a second): a scenario that means to test something else spreads its clients over
    loopback addresses (:func:`spread`).
    """

    port: int
    pid: int
    seconds: float
    #: a two-seat game (humans, no one playing) the attackers may connect to
    game_id: str


ScenarioRun = Callable[[Context], Awaitable[dict[str, str]]]


@dataclass(frozen=True)
class Scenario:
    description: str
    run: ScenarioRun
    #: extra ``carcassonne serve`` flags (only ones an old revision also knows, or none)
    server_args: tuple[str, ...] = ()


SCENARIOS: dict[str, Scenario] = {}


def scenario(
    name: str, description: str, server_args: tuple[str, ...] = ()
) -> Callable[[ScenarioRun], ScenarioRun]:
    def register(run: ScenarioRun) -> ScenarioRun:
        SCENARIOS[name] = Scenario(description, run, server_args)
        return run

    return register


@scenario("baseline", "no attack: the probe alone")
async def baseline(ctx: Context) -> dict[str, str]:
    await asyncio.sleep(ctx.seconds)
    return {}


def ws_handshake(path: str) -> bytes:
    """A websocket upgrade request, as a browser would send it (no Origin: not a browser)."""
    return (
        f"GET {path} HTTP/1.1\r\nHost: {TARGET}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def ws_frame_header(length: int, opcode: int = 0x1) -> bytes:
    """A client frame's header with an all-zero mask key (legal, and the payload is unchanged,
    so one buffer can be sent to every client without copying)."""
    if length < 126:
        size = bytes([0x80 | length])
    elif length < 2**16:
        size = bytes([0x80 | 126]) + length.to_bytes(2, "big")
    else:
        size = bytes([0x80 | 127]) + length.to_bytes(8, "big")
    return bytes([0x80 | opcode]) + size + b"\0\0\0\0"


class HeldSocket:
    """A client socket the attacker keeps open; notices when the server answers or closes it,
    and sends its ``trickle`` (if any) each time it is told to."""

    def __init__(self, sock: socket.socket, opened: float, trickle: bytes, upgrade: bool) -> None:
        self.sock = sock
        self.opened = opened
        self.trickle = trickle
        #: a websocket: trickle only once the server has answered the upgrade (bytes sent
        #: before the 101 would be dropped with the upgrade request)
        self.upgrade = upgrade
        self.answered = False
        self.closed_after: float | None = None
        self._frames = b""  # server frames not yet complete (websockets only)

    def poll(self, now: float) -> None:
        if self.closed_after is not None:
            return
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                if self.answered and self.upgrade:
                    self._answer_pings(data)
                self.answered = True
        except BlockingIOError:
            return
        except OSError:
            pass
        self.closed_after = now - self.opened
        self.sock.close()

    def _answer_pings(self, data: bytes) -> None:
        """Answer the server's pings, as any websocket client library does: that is what kept
        a silent socket open on the old server."""
        buffer = self._frames + data
        while len(buffer) >= 2:
            opcode, length, start = buffer[0] & 0x0F, buffer[1] & 0x7F, 2
            if length >= 126:
                start = 4 if length == 126 else 10
                if len(buffer) < start:
                    break
                length = int.from_bytes(buffer[2:start], "big")
            if len(buffer) < start + length:
                break
            if opcode == 0x9:  # ping: a masked pong with the same payload
                self.sock.send(ws_frame_header(length, opcode=0xA) + buffer[start : start + length])
            buffer = buffer[start + length :]
        self._frames = buffer

    def tick(self) -> None:
        if self.closed_after is None and self.trickle and (self.answered or not self.upgrade):
            with contextlib.suppress(OSError):
                self.sock.send(self.trickle)


async def open_sockets(
    port: int,
    sources: list[str],
    count: int,
    seconds: float,
    held: list[HeldSocket],
    first: bytes = b"",
    trickle: bytes = b"",
) -> int:
    """Open up to ``count`` connections spread over ``sources`` within ``seconds`` into
    ``held``, sending ``first`` on each; how many connects failed."""
    loop = asyncio.get_running_loop()
    deadline = time.monotonic() + seconds
    failed = 0
    in_flight = asyncio.Semaphore(256)
    upgrade = b"Upgrade: websocket" in first

    async def open_one(i: int) -> None:
        nonlocal failed
        async with in_flight:
            if time.monotonic() > deadline:
                return
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.bind((loopback(sources[i % len(sources)]), 0))
                await asyncio.wait_for(loop.sock_connect(sock, (TARGET, port)), 3)
                if first:
                    sock.send(first)
            except (OSError, TimeoutError):
                sock.close()
                failed += 1
                return
            held.append(HeldSocket(sock, time.monotonic(), trickle, upgrade))

    await asyncio.gather(*(open_one(i) for i in range(count)))
    return failed


async def hold(held: list[HeldSocket], seconds: float, every: float = 0.5,
               trickle_every: float = 2.0, until: asyncio.Event | None = None) -> None:  # fmt: skip
    """For ``seconds`` or until ``until`` is set, watch ``held`` (which may still be filling
    up) every ``every`` s and send each socket's trickle every ``trickle_every`` s."""
    started = time.monotonic()
    deadline = started + seconds
    next_trickle = started + trickle_every
    while time.monotonic() < deadline and not (until is not None and until.is_set()):
        now = time.monotonic()
        for sock in held:
            sock.poll(now)
        if now >= next_trickle:
            next_trickle += trickle_every
            for sock in held:
                sock.tick()
        await asyncio.sleep(min(every, max(0.0, deadline - time.monotonic())))
    now = time.monotonic()
    for sock in held:
        sock.poll(now)


def held_figures(held: list[HeldSocket], what: str) -> dict[str, str]:
    closed = sorted(s.closed_after for s in held if s.closed_after is not None)
    figures = {
        f"{what}: opened": str(len(held)),
        f"{what}: answered": str(sum(s.answered for s in held)),
        f"{what}: still open": str(len(held) - len(closed)),
    }
    if closed:
        figures[f"{what}: closed after s (p50/max)"] = (
            f"{statistics.median(closed):.1f} / {closed[-1]:.1f}"
        )
    for sock in held:
        if sock.closed_after is None:
            sock.sock.close()
    return figures


def idle_worker(port: int, source: str, count: int, seconds: float) -> None:
    """One attacker process (``--worker``): ``count`` idle sockets from ``source``; prints its
    figures as JSON."""
    raise_open_files_limit()

    async def attack() -> dict[str, str]:
        held: list[HeldSocket] = []
        failed, _ = await asyncio.gather(
            open_sockets(port, [source], count, seconds / 2, held), hold(held, seconds)
        )
        return {**held_figures(held, source), f"{source}: connects failed": str(failed)}

    print(json.dumps(asyncio.run(attack())))


@scenario("idle", "20,000 idle sockets from 127.0.0.1 and 127.0.0.2 (10,000 each)")
async def idle(ctx: Context) -> dict[str, str]:
    # one process per address: 10,000 sockets each stay within one process's open-files limit
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--worker",
            "idle",
            "--port",
            str(ctx.port),
            "--source",
            source,
            "--count",
            "10000",
            "--seconds",
            str(ctx.seconds),
            stdout=subprocess.PIPE,
        )  # fmt: skip
        for source in ("127.0.0.1", "127.0.0.2")
    ]
    figures: dict[str, str] = {}
    for worker in workers:
        out, _ = await worker.communicate()
        figures.update(json.loads(out) if out.strip() else {"worker": "failed"})
    return figures


#: 1,100 sockets at most 55 an address, under the default cap per address, so that the figures
#: show the deadlines rather than the cap
SLOW_ADDRESSES = spread(1100, block=1, per_address=55)
#: long enough to see the hello deadline (30 s) pass
SLOW_SECONDS = 45


@scenario("slow", "500 slow-header, 500 slow-body, 100 silent websockets (a byte/frame per 2 s)")
async def slow(ctx: Context) -> dict[str, str]:
    seconds = max(ctx.seconds, SLOW_SECONDS)
    # an action is the one request whose body is read with no rate limit in the way first
    head = f"POST /api/games/{ctx.game_id}/actions HTTP/1.1\r\nHost: {TARGET}\r\n".encode()
    body_head = head + b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    ping = b'{"type":"ping"}'
    headers: list[HeldSocket] = []
    bodies: list[HeldSocket] = []
    sockets: list[HeldSocket] = []
    await asyncio.gather(
        open_sockets(ctx.port, SLOW_ADDRESSES, 500, 10, headers, head, b"X"),
        open_sockets(ctx.port, SLOW_ADDRESSES, 500, 10, bodies, body_head, b" "),
        open_sockets(ctx.port, SLOW_ADDRESSES, 100, 10, sockets,
                     ws_handshake(f"/ws/{ctx.game_id}"), ws_frame_header(len(ping)) + ping),
        hold(headers, seconds),
        hold(bodies, seconds),
        hold(sockets, seconds),
    )  # fmt: skip
    return {
        **held_figures(headers, "slow headers"),
        **held_figures(bodies, "slow bodies"),
        **held_figures(sockets, "silent websockets"),
    }


FRAME_BYTES = 16 * 1024 * 1024
FRAME_CLIENTS = 40
FRAMES_EACH = 3
CHUNK = 256 * 1024


@scenario("frames", "40 clients sending websocket frames of 16 MiB (3 per connection, again "
          "and again)")  # fmt: skip
async def frames(ctx: Context) -> dict[str, str]:
    loop = asyncio.get_running_loop()
    payload = memoryview(b"a" * FRAME_BYTES)
    header = ws_frame_header(FRAME_BYTES)
    deadline = time.monotonic() + ctx.seconds
    whole_frames = 0
    cut_off = 0
    sent = 0

    async def connection(i: int) -> None:
        nonlocal whole_frames, cut_off, sent
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.bind((loopback(f"127.0.2.{1 + i % 10}"), 0))
            await loop.sock_connect(sock, (TARGET, ctx.port))
            await loop.sock_sendall(sock, ws_handshake(f"/ws/{ctx.game_id}"))
            await loop.sock_recv(sock, 4096)  # the 101 (bytes sent before it are dropped)
            for _ in range(FRAMES_EACH):
                await loop.sock_sendall(sock, header)
                for start in range(0, FRAME_BYTES, CHUNK):
                    if time.monotonic() > deadline:
                        return
                    await loop.sock_sendall(sock, payload[start : start + CHUNK])
                    sent += CHUNK
                whole_frames += 1
        except OSError:
            cut_off += 1
            await asyncio.sleep(0.2)  # then try again, as an attacker would
        finally:
            sock.close()

    async def client(i: int) -> None:
        while time.monotonic() < deadline:
            await connection(i)

    await asyncio.gather(*(client(i) for i in range(FRAME_CLIENTS)))
    return {
        "clients": str(FRAME_CLIENTS),
        "frames sent whole": str(whole_frames),
        "connections cut off": str(cut_off),
        "MiB sent": f"{sent / 2**20:.0f}",
    }


# ------------------------------------------------------------------------------ game-level attacks


def ws_text_frame(text: str) -> bytes:
    data = text.encode()
    return ws_frame_header(len(data)) + data


async def wait_until_idle(pid: int, limit: float, quiet: float = 0.05) -> float:
    """Wait until the server has used less than ``quiet`` CPU seconds in half a second (it has
    caught up), at most ``limit`` seconds; returns the seconds waited."""
    started = time.monotonic()
    before = process_cpu_seconds(pid)
    while time.monotonic() - started < limit:
        await asyncio.sleep(0.5)
        now = process_cpu_seconds(pid)
        if now - before < quiet:
            break
        before = now
    return time.monotonic() - started


async def requests_from(
    port: int, calls: list[tuple[str, str, Any, str]], parallel: int = 16
) -> list[tuple[int, Any]]:
    """HTTP calls ``(method, path, body, source)`` made ``parallel`` at a time."""
    gate = asyncio.Semaphore(parallel)

    async def one(method: str, path: str, body: Any, source: str) -> tuple[int, Any]:
        async with gate:
            try:
                return await asyncio.to_thread(request, port, method, path, body, source)
            except OSError as exc:
                return 0, str(exc)

    return await asyncio.gather(*(one(*call) for call in calls))


SPECTATORS = 1000
SPECTATOR_ADDRESSES = spread(SPECTATORS, block=3, per_address=20)
#: the address of the two players of the watched game
PLAYER_ADDRESS = "127.0.0.5"


async def open_spectators(port: int, game_id: str, count: int) -> tuple[list[HeldSocket], int]:
    """``count`` websockets that say hello as spectators of ``game_id``, then only read."""
    loop = asyncio.get_running_loop()
    hello = ws_text_frame('{"type":"hello","token":null}')
    held: list[HeldSocket] = []
    failed = 0
    gate = asyncio.Semaphore(100)

    async def one(i: int) -> None:
        nonlocal failed
        async with gate:
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.bind((loopback(SPECTATOR_ADDRESSES[i % len(SPECTATOR_ADDRESSES)]), 0))
                await asyncio.wait_for(loop.sock_connect(sock, (TARGET, port)), 10)
                await loop.sock_sendall(sock, ws_handshake(f"/ws/{game_id}"))
                answer = await asyncio.wait_for(loop.sock_recv(sock, 4096), 10)
                if not answer.startswith(b"HTTP/1.1 101"):
                    raise OSError("not upgraded")
                await loop.sock_sendall(sock, hello)
            except (OSError, TimeoutError):
                sock.close()
                failed += 1
                return
            spectator = HeldSocket(sock, time.monotonic(), trickle=b"", upgrade=True)
            spectator.answered = True  # the 101 is read: what follows are frames (and pings)
            held.append(spectator)

    await asyncio.gather(*(one(i) for i in range(count)))
    return held, failed


@scenario("spectators", f"{SPECTATORS:,} spectators join a game, then watch it being played")
async def spectators(ctx: Context) -> dict[str, str]:
    status, game = await asyncio.to_thread(
        request, ctx.port, "POST", "/api/games", TWO_HUMANS, PLAYER_ADDRESS
    )
    if status != 201:
        return {"watched game": f"not created: {status} {game}"}
    cpu = process_cpu_seconds(ctx.pid)
    started = time.monotonic()
    held, failed = await open_spectators(ctx.port, game["id"], SPECTATORS)
    stop = asyncio.Event()
    reading = asyncio.create_task(hold(held, 300, every=0.2, until=stop))
    await wait_until_idle(ctx.pid, limit=180)
    join_cpu, join_wall = process_cpu_seconds(ctx.pid) - cpu, time.monotonic() - started
    players = Probe(ctx.port)  # for its figures: the seats below count in its stats
    rng = random.Random(7)
    deadline = time.monotonic() + ctx.seconds
    seats = [
        play_seat(ctx.port, game["id"], seat["token"], random.Random(rng.random()),
                  players.stats, deadline, pause=PROBE_PAUSE, source=PLAYER_ADDRESS)
        for seat in game["seats"]
    ]  # fmt: skip
    try:
        await asyncio.gather(*seats)
    except (OSError, ConnectionClosed) as exc:
        players.stats.errors.append(f"{type(exc).__name__}: {exc}")
    stop.set()
    await reading
    watched = {f"watched game: {key}": value for key, value in players.figures().items()}
    return {
        "spectators: connects failed": str(failed),
        "join: server CPU s": f"{join_cpu:.1f}",
        "join: s until the server is idle": f"{join_wall:.1f}",
        **watched,
        **held_figures(held, "spectators"),
    }


FINISHED_GAMES = 1000
#: 16 tiles (15 drawn after the start): short bot games, each a room with a board and a log
SHORT_STACK = ["base/U"] * 4 + ["base/V"] * 4 + ["base/E"] * 4 + ["base/B"] * 2 + ["base/K"] * 2
TWO_BOTS = {"seats": [{"kind": "bot", "bot": "random"}] * 2, "options": {"stack": SHORT_STACK}}
#: 10 creations each: the default creation rate limit's burst
CREATOR_ADDRESSES = spread(FINISHED_GAMES, block=4, per_address=10)
#: 20 reads each: under the default read limit's burst
READER_ADDRESSES = spread(FINISHED_GAMES, block=5, per_address=20)


@scenario("finished", f"{FINISHED_GAMES:,} short bot games played to the end, then their records")
async def finished(ctx: Context) -> dict[str, str]:
    at_start = process_rss_mb(ctx.pid)
    created = await requests_from(
        ctx.port,
        [
            ("POST", "/api/games", TWO_BOTS, CREATOR_ADDRESSES[i // 10])
            for i in range(FINISHED_GAMES)
        ],
    )
    ids = [game["id"] for status, game in created if status == 201]
    await wait_until_idle(ctx.pid, limit=300)
    after_games = process_rss_mb(ctx.pid)
    records = await requests_from(
        ctx.port,
        [("GET", f"/api/games/{game_id}/record", None, READER_ADDRESSES[i // 20])
         for i, game_id in enumerate(ids)],
    )  # fmt: skip
    after_records = process_rss_mb(ctx.pid)
    return {
        "games created": str(len(ids)),
        "records read": str(sum(status == 200 for status, _ in records)),
        "RSS MB: start / games over / records read": (
            f"{at_start:.0f} / {after_games:.0f} / {after_records:.0f}"
        ),
    }


FLOOD_ADDRESSES = spread(1100, block=6, per_address=10)


@scenario("caps", "110 addresses create 10 games each (the games cap is 1,000), then a newcomer")
async def caps(ctx: Context) -> dict[str, str]:
    flood = await requests_from(
        ctx.port,
        [
            ("POST", "/api/games", TWO_HUMANS, source)
            for source in FLOOD_ADDRESSES
            for _ in range(10)
        ],
    )
    newcomer, _ = await asyncio.to_thread(
        request, ctx.port, "POST", "/api/games", TWO_HUMANS, "127.0.7.1"
    )
    await asyncio.sleep(ctx.seconds)  # the probe goes on creating and playing meanwhile
    statuses = [status for status, _ in flood]
    return {
        "flood: created": str(statuses.count(201)),
        "flood: refused 503": str(statuses.count(503)),
        "newcomer after the flood": str(newcomer),
    }


#: one game each from 1,000 addresses (127.9.0.1 and on): the games cap, 1,000, filled
MANY_ADDRESSES = [f"127.9.{i // 250}.{i % 250 + 1}" for i in range(1000)]


@scenario("addresses", "1,000 addresses create one game each (the games cap), then newcomers")
async def addresses(ctx: Context) -> dict[str, str]:
    started = time.monotonic()
    flood = await requests_from(
        ctx.port, [("POST", "/api/games", TWO_HUMANS, source) for source in MANY_ADDRESSES]
    )
    fill_seconds = time.monotonic() - started
    newcomers = await requests_from(
        ctx.port, [("POST", "/api/games", TWO_HUMANS, f"127.10.0.{i}") for i in range(1, 11)]
    )
    await asyncio.sleep(ctx.seconds)  # the probe goes on creating and playing meanwhile
    statuses = [status for status, _ in flood]
    return {
        "flood: created": str(statuses.count(201)),
        "flood: refused 503": str(statuses.count(503)),
        "flood: s to send": f"{fill_seconds:.1f}",
        "10 newcomers after the flood: created": str(sum(s == 201 for s, _ in newcomers)),
    }


#: a tile id of 1.9 MB (longer than a file name may be), as the attack run of issue 22 sent
HUGE_TILE_ID = "x" * 1_900_000 + "/A"
#: the JSON escape of half a UTF-16 pair, alone: no character
LONE_SURROGATE = "\ud800"
INPUT_ADDRESSES = [f"127.11.0.{i}" for i in range(1, 21)]


def raw_status(port: int, head: bytes, source: str) -> int:
    """The status of a request sent as these bytes in one go (0: no answer)."""
    with socket.create_connection((TARGET, port), timeout=10,
                                  source_address=(loopback(source), 0)) as sock:  # fmt: skip
        sock.sendall(head)
        answer = sock.recv(64)
    match = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    return int(match.group(1)) if match else 0


def hello_answer(port: int, game_id: str, hello: str, source: str) -> str:
    """The error code a websocket's hello gets (the server's first frame, under 64 KiB: its
    payload follows a header of 2 bytes, or 4 with a 16-bit length), or what went wrong."""
    with socket.create_connection((TARGET, port), timeout=10,
                                  source_address=(loopback(source), 0)) as sock:  # fmt: skip
        sock.sendall(ws_handshake(f"/ws/{game_id}"))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                return "closed"
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            return "not upgraded"
        sock.sendall(ws_text_frame(hello))
        frame = head.partition(b"\r\n\r\n")[2]

        def payload() -> bytes | None:
            if len(frame) < 2 or (frame[1] == 126 and len(frame) < 4):
                return None
            start, size = 2, frame[1]
            if size == 126:
                start, size = 4, int.from_bytes(frame[2:4], "big")
            return frame[start : start + size] if len(frame) >= start + size else None

        while payload() is None:
            chunk = sock.recv(4096)
            if not chunk:
                return "closed"
            frame += chunk
    try:
        return str(json.loads(payload() or b"").get("code"))
    except ValueError:
        return "not JSON"


def statuses(answers: list[Any]) -> str:
    return ", ".join(f"{count} x {status}" for status, count in sorted(Counter(answers).items()))


@scenario(
    "inputs",
    "20 each: 1.9 MB tile ids, lone surrogates (seat names, hello tokens), 64 KiB and 10,000 "
    "headers",
)
async def inputs(ctx: Context) -> dict[str, str]:
    from carcassonne.formats.record_writer import record_from_game
    from carcassonne.game import Game

    game = Game(players=2, stack=("base/E", "base/U"))
    game.apply(game.legal_actions()[0])
    record = record_from_game(game, [{"kind": "human"}, {"kind": "human"}])
    record["moves"][0]["tile"] = HUGE_TILE_ID
    replays = await requests_from(
        ctx.port, [("POST", "/api/replay", record, source) for source in INPUT_ADDRESSES], 4
    )
    surrogate_game = {"seats": [{"kind": "human", "name": LONE_SURROGATE}, {"kind": "human"}]}
    creations = await requests_from(
        ctx.port, [("POST", "/api/games", surrogate_game, source) for source in INPUT_ADDRESSES]
    )
    request_line = f"GET /api/meta HTTP/1.1\r\nHost: {TARGET}\r\n".encode()
    heads = {
        "64 KiB header": request_line + b"x-large: " + b"x" * 65536 + b"\r\n\r\n",
        "10,000 headers": request_line
        + b"".join(b"x-h%d: 1\r\n" % i for i in range(10_000))
        + b"\r\n",
    }
    hello = '{"type": "hello", "token": "\\ud800"}'  # the escape itself, as JSON text
    hellos = [
        await asyncio.to_thread(hello_answer, ctx.port, ctx.game_id, hello, source)
        for source in INPUT_ADDRESSES
    ]
    figures = {
        "1.9 MB tile id in /api/replay": statuses([status for status, _ in replays]),
        "lone surrogate seat name": statuses([status for status, _ in creations]),
        "lone surrogate hello token: error code": statuses(hellos),
    }
    for name, head in heads.items():
        answers = [
            await asyncio.to_thread(raw_status, ctx.port, head, source)
            for source in INPUT_ADDRESSES
        ]
        figures[name] = statuses(answers)
    await asyncio.sleep(ctx.seconds)
    return figures


REPLAY_READERS = spread(8, block=8, per_address=1)


@scenario("replays", "8 clients read a finished bot game's replay over and over")
async def replays(ctx: Context) -> dict[str, str]:
    two_bots = {"seats": [{"kind": "bot", "bot": "random"}] * 2, "options": {"seed": 5}}
    status, game = await asyncio.to_thread(
        request, ctx.port, "POST", "/api/games", two_bots, ATTACKER_ADDRESS
    )
    if status != 201:
        return {"game": f"not created: {status} {game}"}
    path = f"/api/games/{game['id']}/replay"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # the bots play it to the end
        status, _ = await asyncio.to_thread(request, ctx.port, "GET", path, None, ATTACKER_ADDRESS)
        if status != 409:
            break
        await asyncio.sleep(0.5)
    answers: list[int] = []
    sizes: list[int] = []
    meta: list[float] = []
    stop = time.monotonic() + ctx.seconds

    def read(source: str) -> None:
        while time.monotonic() < stop:
            conn = http.client.HTTPConnection(TARGET, ctx.port, timeout=30,
                                              source_address=(loopback(source), 0))  # fmt: skip
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
            except OSError:
                answers.append(0)
                continue
            finally:
                conn.close()
            answers.append(response.status)
            if response.status == 200:
                sizes.append(len(body))
            else:
                time.sleep(0.05)

    def time_meta() -> None:
        while time.monotonic() < stop:
            began = time.perf_counter()
            with contextlib.suppress(OSError):
                request(ctx.port, "GET", "/api/meta", source="127.0.8.100")
            meta.append(time.perf_counter() - began)
            time.sleep(0.2)

    # threads of their own: the default executor has fewer workers than there are readers
    threads = [threading.Thread(target=read, args=(source,)) for source in REPLAY_READERS]
    threads.append(threading.Thread(target=time_meta))
    for thread in threads:
        thread.start()
    await asyncio.to_thread(lambda: [thread.join() for thread in threads])
    return {
        "replays served": str(answers.count(200)),
        "refused 429": str(answers.count(429)),
        "KB per replay": f"{statistics.median(sizes) / 1024:.0f}" if sizes else "-",
        "/api/meta p50 ms": f"{statistics.median(meta) * 1000:.0f}" if meta else "-",
    }


# ------------------------------------------------------------------------------ issue 22: load


HOTSEAT_HUMANS = {**TWO_HUMANS, "hotseat": True}


async def hotseat_game(
    port: int, source: str, plies: int, seed: int
) -> tuple[str, str, dict[str, Any]]:
    """A hotseat game created from ``source`` and played ``plies`` random moves into (over its
    websocket); its id, its token and its last state."""
    status, game = await asyncio.to_thread(
        request, port, "POST", "/api/games", {**HOTSEAT_HUMANS, "options": {"seed": seed}}, source
    )
    if status != 201:
        raise OSError(f"game not created: {status} {game}")
    token = game["hotseat_token"]
    rng = random.Random(seed)
    async with connect(f"ws://{TARGET}:{port}/ws/{game['id']}", max_size=2**22,
                       local_addr=(loopback(source), 0)) as ws:  # fmt: skip
        await ws.send(json.dumps({"type": "hello", "token": token}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] != "state":
                continue
            legal = message["view"].get("legal_actions")
            if message["ply"] >= plies and message["view"]["phase"] == "tile" or not legal:
                return game["id"], token, message
            await ws.send(json.dumps({"type": "act", "actions": [rng.choice(legal)],
                                      "ply": message["ply"]}))  # fmt: skip


#: the address of the bot games watched for stalls, and of nothing else
BOT_WATCHER_ADDRESS = "127.0.0.6"
TWO_RANDOM_BOTS = {"seats": [{"kind": "bot", "bot": "random"}] * 2}


async def watch_bots(port: int, stop: asyncio.Event) -> dict[str, str]:
    """Bot-against-bot games one after another, watched as a spectator until ``stop``: how many
    bot moves were seen and how long the watcher waited between two of them."""
    gaps: list[float] = []
    errors = 0
    while not stop.is_set():
        status, game = await asyncio.to_thread(
            request, port, "POST", "/api/games", TWO_RANDOM_BOTS, BOT_WATCHER_ADDRESS
        )
        if status != 201:
            errors += 1
            await asyncio.sleep(1.0)
            continue
        try:
            async with connect(f"ws://{TARGET}:{port}/ws/{game['id']}", max_size=2**22,
                               local_addr=(BOT_WATCHER_ADDRESS, 0)) as ws:  # fmt: skip
                await ws.send(json.dumps({"type": "hello", "token": None}))
                last: float | None = None
                ply = -1
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                        if message["type"] != "state" or message["ply"] <= ply:
                            continue
                        now = time.monotonic()
                        if last is not None:
                            gaps.append(now - last)
                        last, ply = now, message["ply"]
                        if message["view"]["phase"] == "over":
                            break
                if stop.is_set() and last is not None:
                    gaps.append(time.monotonic() - last)  # the wait still going on at the end
        except (OSError, ConnectionClosed):
            errors += 1
    gaps.sort()
    return {
        "bot moves seen": str(len(gaps)),
        "wait between bot moves p50 / max s": (
            f"{statistics.median(gaps):.2f} / {gaps[-1]:.1f}" if gaps else "-"
        ),
        "bot watcher errors": str(errors),
    }


HINT_ADDRESS = "127.0.9.1"
HINT_GAMES = 10
HINT_SOCKETS_PER_GAME = 8


@scenario("hints", f"one address, {HINT_GAMES} hotseat games and "
          f"{HINT_GAMES * HINT_SOCKETS_PER_GAME} websockets asking for hints, one socket a game "
          "moving on; bot games watched meanwhile", server_args=("--bot-delay", "0.2"))  # fmt: skip
async def hints(ctx: Context) -> dict[str, str]:
    games = [await hotseat_game(ctx.port, HINT_ADDRESS, 0, seed) for seed in range(HINT_GAMES)]
    answers: Counter[str] = Counter()
    stop = asyncio.Event()
    deadline = time.monotonic() + ctx.seconds

    async def asker(game_id: str, token: str, mover: bool, seed: int) -> None:
        rng = random.Random(seed)
        async with connect(f"ws://{TARGET}:{ctx.port}/ws/{game_id}", max_size=2**22,
                           local_addr=(HINT_ADDRESS, 0)) as ws:  # fmt: skip
            await ws.send(json.dumps({"type": "hello", "token": token}))
            state: dict[str, Any] = {}
            asked = False
            while time.monotonic() < deadline:
                if state and not asked:
                    await ws.send(json.dumps({"type": "hint", "ply": state["ply"]}))
                    asked = True
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                except TimeoutError:
                    asked = False
                    continue
                kind = message["type"]
                if kind == "state":
                    state = message
                elif kind in ("hint", "error"):
                    answers[message.get("code", "hint")] += 1
                    asked = False
                    legal = state.get("view", {}).get("legal_actions")
                    if mover and legal:  # the next ply: a hint the earlier ones do not answer
                        await ws.send(json.dumps({"type": "act", "ply": state["ply"],
                                                  "actions": [rng.choice(legal)]}))  # fmt: skip

    watching = asyncio.create_task(watch_bots(ctx.port, stop))
    askers = [asker(game_id, token, i == 0, n)
              for n, (game_id, token, _) in enumerate(games)
              for i in range(HINT_SOCKETS_PER_GAME)]  # fmt: skip
    results = await asyncio.gather(*askers, return_exceptions=True)
    stop.set()
    bots = await watching
    failed = Counter(f"{type(r).__name__}: {r}"[:80] for r in results if isinstance(r, Exception))
    return {
        **{f"hint answers: {code}": str(count) for code, count in sorted(answers.items())},
        "hint sockets failed": str(sum(failed.values())),
        **({"first failure": failed.most_common(1)[0][0]} if failed else {}),
        **bots,
    }


STATE_ADDRESS = "127.0.10.1"
STATE_READERS = 16
#: plies into the game whose state is read: a board of some size, as in most of a game
READ_GAME_PLIES = 80


@scenario("state-reads", f"one address reads a mid-game state over HTTP, {STATE_READERS} "
          "keep-alive connections as fast as answered")  # fmt: skip
async def state_reads(ctx: Context) -> dict[str, str]:
    game_id, token, _ = await hotseat_game(ctx.port, STATE_ADDRESS, READ_GAME_PLIES, 11)
    path = f"/api/games/{game_id}/state"
    answers: Counter[int] = Counter()
    stop = time.monotonic() + ctx.seconds

    def read() -> None:
        conn = http.client.HTTPConnection(TARGET, ctx.port, timeout=30,
                                          source_address=(STATE_ADDRESS, 0))  # fmt: skip
        while time.monotonic() < stop:
            try:
                conn.request("GET", path, headers={"authorization": f"Bearer {token}"})
                response = conn.getresponse()
                response.read()
                answers[response.status] += 1
            except OSError:
                answers[0] += 1
                conn.close()
                conn = http.client.HTTPConnection(TARGET, ctx.port, timeout=30,
                                                  source_address=(STATE_ADDRESS, 0))  # fmt: skip
        conn.close()

    threads = [threading.Thread(target=read) for _ in range(STATE_READERS)]
    for thread in threads:
        thread.start()
    await asyncio.to_thread(lambda: [thread.join() for thread in threads])
    return {
        "states served": str(answers[200]),
        "refused 429": str(answers[429]),
        "failed": str(sum(n for status, n in answers.items() if status not in (200, 429))),
    }


BATCH_ADDRESS = "127.0.11.1"
#: refused batches a second: under the websocket message limit (100 a second)
BATCHES_PER_SECOND = 87


@scenario("refused-batches", f"one address sends {BATCHES_PER_SECOND} two-action batches a "
          "second whose second action is illegal, in a game 80 plies in")  # fmt: skip
async def refused_batches(ctx: Context) -> dict[str, str]:
    # a legal placement, then a second tile where the figure action must come
    return await refused_acts(ctx, lambda legal: [legal[0], legal[0]])


@scenario("refused-actions", f"as refused-batches, {BATCHES_PER_SECOND} single illegal "
          "actions a second (a pass where a tile must be placed): a refusal by itself")  # fmt: skip
async def refused_actions(ctx: Context) -> dict[str, str]:
    return await refused_acts(ctx, lambda legal: [{"type": "pass"}])


async def refused_acts(ctx: Context, actions: Callable[[list[Any]], list[Any]]) -> dict[str, str]:
    """``act`` messages refused by the engine, :data:`BATCHES_PER_SECOND` a second: ``actions``
    makes their actions from the legal ones."""
    game_id, token, state = await hotseat_game(ctx.port, BATCH_ADDRESS, READ_GAME_PLIES, 12)
    legal = state["view"]["legal_actions"]
    batch = json.dumps({"type": "act", "ply": state["ply"], "actions": actions(legal)})
    answers: Counter[str] = Counter()
    deadline = time.monotonic() + ctx.seconds
    async with connect(f"ws://{TARGET}:{ctx.port}/ws/{game_id}", max_size=2**22,
                       local_addr=(BATCH_ADDRESS, 0)) as ws:  # fmt: skip
        await ws.send(json.dumps({"type": "hello", "token": token}))

        async def read() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for raw in ws:
                    message = json.loads(raw)
                    if message["type"] == "error":
                        answers[message["code"]] += 1

        reading = asyncio.create_task(read())
        sent = 0
        started = time.monotonic()
        while time.monotonic() < deadline:
            await ws.send(batch)
            sent += 1
            await asyncio.sleep(max(0.0, started + sent / BATCHES_PER_SECOND - time.monotonic()))
        await asyncio.sleep(1.0)  # the last answers
        reading.cancel()
    return {
        "messages sent": str(sent),
        **{f"refused: {code}": str(count) for code, count in sorted(answers.items())},
    }


# ------------------------------------------------------------------------------ the runner


@dataclass
class Result:
    name: str
    figures: dict[str, str]


async def run_scenario(name: str, seconds: float, source: Path | None) -> Result:
    chosen = SCENARIOS[name]
    with tempfile.TemporaryDirectory(prefix="attack-web-") as tmp:
        server = ServerProcess(Path(tmp), source, list(chosen.server_args))
        monitor = Monitor(server.pid)
        # the probe is a process of its own, so that the attackers' work never delays it
        probe = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--worker", "probe", "--port", str(server.port),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        try:
            status, game = await asyncio.to_thread(
                request, server.port, "POST", "/api/games", TWO_HUMANS, ATTACKER_ADDRESS
            )
            if status != 201:
                raise SystemExit(f"cannot create the attackers' game: {status} {game}")
            await asyncio.sleep(1.0)  # the probe's first moves, before the attack
            # the attack runs in a process of its own too, at a lower priority: attackers on
            # loopback share this machine's CPUs, a remote one would not
            attack = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--worker", "attack", "--scenario", name,
                "--port", str(server.port), "--pid", str(server.pid),
                f"--game={game['id']}",  # "=": an id may start with "-"
                "--seconds", str(seconds), stdout=subprocess.PIPE,
            )  # fmt: skip
            out, _ = await attack.communicate()
            notes = json.loads(out) if out.strip() else {"attack": "failed"}
        finally:
            assert probe.stdin is not None
            probe.stdin.close()  # tells the probe to stop
            probed, _ = await probe.communicate()
            monitor.stop()
            alive = server.proc.poll() is None
            server.stop()
        lines, size, common = server.log_figures()
    figures = {
        "server up": "yes" if alive else "NO",
        "RSS peak MB": f"{monitor.rss_peak_kb / 1024:.0f}",
        "CPU s": f"{monitor.cpu_seconds:.1f}",
        "fds peak": str(monitor.fds_peak),
        "log lines": str(lines),
        "log KB": f"{size / 1024:.0f}",
        "most frequent log line": common,
        **(json.loads(probed) if probed.strip() else {"probe": "failed"}),
        **notes,
    }
    return Result(name, figures)


def attack_worker(name: str, ctx: Context) -> None:
    """The attack process (``--worker attack``): runs one scenario at a lower priority, then
    prints its figures as JSON."""
    os.nice(10)
    raise_open_files_limit()
    print(json.dumps(asyncio.run(SCENARIOS[name].run(ctx))))


def probe_worker(port: int) -> None:
    """The probe process (``--worker probe``): plays until its stdin closes, then prints its
    figures as JSON."""

    async def play() -> dict[str, str]:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        threading.Thread(
            target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stop.set)), daemon=True
        ).start()
        probe = Probe(port)
        await probe.run(stop)
        return probe.figures()

    print(json.dumps(asyncio.run(play())))


def print_table(results: list[Result]) -> None:
    """One row per scenario; the scenario's own figures follow the shared columns."""
    for result in results:
        print(f"\n## {result.name}: {SCENARIOS[result.name].description}")
        width = max(len(key) for key in result.figures)
        for key, value in result.figures.items():
            print(f"  {key:<{width}}  {value}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--seconds", type=float, default=30,
                        help="how long each attack lasts (default 30)")  # fmt: skip
    parser.add_argument("--server-src", type=Path, default=None,
                        help="run the server from this checkout ('before' figures)")  # fmt: skip
    worker = parser.add_argument_group("worker processes (started by the runner)")
    worker.add_argument("--worker", choices=["attack", "idle", "probe"], help=argparse.SUPPRESS)
    worker.add_argument("--port", type=int, help=argparse.SUPPRESS)
    worker.add_argument("--pid", type=int, help=argparse.SUPPRESS)
    worker.add_argument("--game", help=argparse.SUPPRESS)
    worker.add_argument("--source", help=argparse.SUPPRESS)
    worker.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "idle":
        idle_worker(args.port, args.source, min(args.count, 10_000), min(args.seconds, 300))
        return 0
    if args.worker == "probe":
        probe_worker(args.port)
        return 0
    if args.worker == "attack":
        attack_worker(args.scenario, Context(args.port, args.pid, args.seconds, args.game))
        return 0
    if not 1 <= args.seconds <= 300:
        parser.error("--seconds must be from 1 to 300")
    raise_open_files_limit()
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    results = []
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results.append(asyncio.run(run_scenario(name, args.seconds, args.server_src)))
    source = args.server_src or "this checkout"
    print(f"# attack_web: server from {source}, {args.seconds:g} s per scenario")
    print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
