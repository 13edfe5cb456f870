"""Play many bot games, here, in local worker processes or as Ray tasks, with identical results.

A :class:`Task` says everything about one game (its options and seed, one bot spec per seat);
:func:`play_game` plays it to its end and returns a small :class:`Result`.  Both are plain
picklable values, so the same function runs in this process (``jobs=1``), in a pool of forked
workers (``jobs>1``) or on a Ray cluster (``ray_address``): for the same tasks the results are
the same, only the order in which they finish differs.  Callers sort by ``Result.index``.

What goes over the wire to a Ray worker is a list of tasks (a few hundred bytes each); what comes
back is a list of results (scores, winners, points per source, the expansions' tallies, and the
moves only when a caller asked for them).  Workers need this package installed, the same version.
"""

from __future__ import annotations

import ctypes
import itertools
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

from ..bots import check_bot_spec, make_bot
from ..game import MAX_PLAYERS, Game, GameOptions, GameSummary
from ..options import DEFAULT_ON, SWITCHES
from .tallies import Tallies, tally_game

#: the ``ray_address`` that starts a Ray instance on this machine instead of joining a cluster
LOCAL_RAY = "local"

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Task:
    """Everything a worker needs to play one game."""

    index: int
    options: GameOptions
    bots: tuple[str, ...]  # bot spec per seat
    record_dir: str | None = None
    #: send the moves back (for expansion summaries); else a result is a few numbers
    keep_history: bool = False


@dataclass(slots=True)
class Result:
    """One finished game, small enough to send back from a worker."""

    index: int
    scores: list[int]
    winners: list[int]
    by_source: list[dict[str, int]]
    history: list[tuple[int, Any]] = field(default_factory=list)
    #: what the expansions in play paid, per section, per seat (see :mod:`.tallies`)
    tallies: Tallies = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Everything but the moves, for a line of a tournament's ``games.jsonl``."""
        data = asdict(self)
        del data["history"]
        return data


#: sources every report lists first, in this order, even when nothing was scored from them;
#: others (garden, bet, map-chip, wine…) follow when some game scored them
CORE_SOURCES = ("city", "road", "monastery", "field")


def report_sources(points: Iterable[dict[str, int]]) -> list[str]:
    """The sources a report lists, given points per source of every bot: the core ones, then
    the others some game scored, by name."""
    return list(CORE_SOURCES) + sorted({s for p in points for s in p} - set(CORE_SOURCES))


def describe_options(options: GameOptions) -> str:
    """``base game + map france + bets``: the game a batch plays, in words."""
    parts = ["base game"]
    if options.map:
        parts.append(f"map {options.map}")
    parts += [name.replace("_", "-") for name in SWITCHES if getattr(options, name)]
    parts += [f"no {name}" for name in DEFAULT_ON if not getattr(options, name)]
    return " + ".join(parts)


def bot_seed(game_seed: int, seat: int) -> int:
    """A distinct, reproducible seed for each seat's bot in each game."""
    return game_seed * (MAX_PLAYERS + 1) + seat


def entrant_labels(names: list[str]) -> list[str]:
    """Bot specs, numbered where the same bot plays several seats (greedy1, greedy2; a spec
    with parameters gets ``#1``, ``#2``, so the number cannot be read as part of a value)."""
    labels = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            mark = "#" if ":" in name else ""
            labels.append(f"{name}{mark}{names[: i + 1].count(name)}")
        else:
            labels.append(name)
    return labels


def play_game(task: Task) -> Result:
    """Play one game to its end (in a worker process or a Ray task when there are several)."""
    options = task.options
    assert options.seed is not None
    game = Game(options)
    bots = [make_bot(name, bot_seed(options.seed, seat)) for seat, name in enumerate(task.bots)]
    while not game.is_over:
        game.apply(bots[game.to_move].choose(game))
    if task.record_dir is not None:
        save_game_record(game, task.bots, Path(task.record_dir) / f"game-{task.index + 1:05d}.json")
    summary = GameSummary.of(game)
    return Result(
        index=task.index,
        scores=list(game.scores),
        winners=game.winners(),
        by_source=summary.by_source,
        history=list(game.history) if task.keep_history else [],
        tallies=tally_game(game),
    )


def play_games(tasks: list[Task]) -> list[Result]:
    """Several games in one go: one Ray task plays a batch, so its overhead is paid once."""
    return [play_game(task) for task in tasks]


def save_game_record(game: Game, bots: tuple[str, ...], path: Path) -> None:
    # Imported here: records are optional output and the module is not needed otherwise.
    from ..formats.record_writer import save_record

    save_record(game, path, [{"kind": name} for name in bots], check_bot=check_bot_spec)


def batch_size(count: int, workers: int) -> int:
    """Games per batch sent to a worker: enough to pay the hand-over once for several games,
    few enough that every worker gets several batches (an even finish)."""
    return max(1, min(8, count // (workers * 8)))


def run_tasks(
    tasks: Iterable[Task], count: int, jobs: int = 1, ray_address: str | None = None
) -> Iterator[Result]:
    """Results of ``count`` tasks, in the order they finish: in this process when ``jobs`` is
    1, in ``jobs`` forked workers, or as Ray tasks when ``ray_address`` is given (``"local"``
    starts a Ray instance here with ``jobs`` CPUs).  ``tasks`` may be lazy: they are taken as
    workers free up, so a long run never holds them all."""
    if ray_address is not None:
        yield from _ray_results(tasks, count, jobs, ray_address)
    else:
        yield from map_in_workers(play_game, tasks, count, jobs)


def map_in_workers(
    function: Callable[[T], R], items: Iterable[T], count: int, jobs: int
) -> Iterator[R]:
    """``function`` of each of ``count`` items, in the order they finish: in this process when
    ``jobs`` is 1, else in ``jobs`` forked workers.  Ctrl-C, an error or the caller closing the
    iterator stops the workers; a worker whose parent died (``kill -9``) stops too, rather than
    play on for nobody."""
    if jobs == 1 or count == 1:
        yield from map(function, items)
        return
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_leave_interrupts)
    try:
        yield from pool.imap_unordered(function, items, chunksize=batch_size(count, jobs))
    except BaseException:  # an interrupt, an error, or the caller stopped reading
        pool.terminate()
        raise
    else:  # let the workers end by themselves rather than be killed
        pool.close()
    finally:
        pool.join()


def _leave_interrupts() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it stops the pool), so that the terminal
    gets one "interrupted" line rather than a traceback from every worker; SIGTERM (how the
    pool stops a worker) ends it quietly whatever handler the parent had; and the worker ends
    with its parent (Linux), which a pool cannot arrange once the parent is killed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() == 1:  # the parent died before the call above
            os._exit(1)


#: prctl option: the signal a process gets when its parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1


def _ray_results(tasks: Iterable[Task], count: int, cpus: int, address: str) -> Iterator[Result]:
    """Batches of tasks as Ray tasks, at most two per CPU of the cluster in flight (so the
    driver holds few results and tasks at a time), yielding results as batches finish."""
    import ray  # the optional [ray] extra; callers check it is installed

    started_here = not ray.is_initialized()
    if started_here:
        if address == LOCAL_RAY:
            ray.init(num_cpus=cpus, include_dashboard=False, logging_level=logging.WARNING)
        else:
            check_reachable(address)
            try:
                ray.init(address=address, logging_level=logging.WARNING)
            except ConnectionError as exc:
                raise ConnectionError(f"cannot join the Ray cluster at {address}: {exc}") from None
    try:
        remote = ray.remote(play_games)
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = batch_size(count, workers)
        pending: list[Any] = []
        for batch in _batched(tasks, size):
            pending.append(remote.remote(batch))
            if len(pending) >= 2 * workers:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield from ray.get(ref)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield from ray.get(ref)
    finally:
        if started_here:
            ray.shutdown()


#: seconds to wait for a cluster's head to answer before saying it cannot be reached
CONNECT_SECONDS = 10.0


def check_reachable(address: str) -> None:
    """Fail at once, with a ConnectionError naming the address, when a ``HOST:PORT`` head does
    not answer (``ray.init`` would retry for minutes).  Other forms (``auto``, ``ray://…``) are
    left to Ray, which reports them quickly."""
    host, colon, port = address.rpartition(":")
    if not colon or "://" in address or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ConnectionError(f"cannot reach a Ray cluster's head at {address}: {reason}") from None


def _batched(tasks: Iterable[Task], size: int) -> Iterator[list[Task]]:
    """Lists of ``size`` tasks (the last may be shorter), taken lazily (``itertools.batched``
    is Python 3.12+)."""
    iterator = iter(tasks)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


class Progress:
    """A one-line progress bar on a terminal (plain ANSI); silent when not a TTY or when
    ``enabled`` is False (``--json``)."""

    WIDTH = 30

    def __init__(
        self, total: int, stream: TextIO, enabled: bool = True, done: int = 0, unit: str = "games"
    ) -> None:
        self.total = total
        self.unit = unit
        self.stream = stream
        self.enabled = enabled and stream.isatty()
        self.start = time.perf_counter()
        self.first = done  # games already played before this run (a resumed tournament)
        self.shown = 0.0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if done < self.total and now - self.shown < 0.1:
            return
        self.shown = now
        filled = self.WIDTH * done // self.total
        rate = (done - self.first) / max(now - self.start, 1e-9)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} {self.unit}  {rate:.1f} {self.unit}/s")
        self.stream.flush()

    def close(self) -> None:
        """Clear the bar's line (once, however often called)."""
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.enabled = False
