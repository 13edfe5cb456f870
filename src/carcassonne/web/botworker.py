"""Bot decisions and hints, computed in worker processes so the event loop never thinks.

A bot's decision can take seconds (the expert searches for its whole think time).  Run on the
server's event loop it would freeze every other game for that long; run in a thread it would
still fight the loop for the interpreter lock.  So every bot decision goes to a small pool of
worker **processes** shared by all games of the server, sized by :func:`configure`
(``carcassonne serve --bot-workers``): a server on two cores keeps one core for the loop and
thinks on the other (hints go to a pool of their own, see below).

What crosses to a worker is small and needs no trust in pickled engine state: the game's options,
the moves played so far (the worker replays them: a whole game replays in about a millisecond),
the bot's spec and a seed.  The seed of each decision is derived from the game's seed, the seat
and the ply, so a game's bots play the same way after a server restart as before it.

A worker that dies (killed, out of memory) breaks the pool; the next call builds a new one, and
the room's bot loop tries the decision again later (:class:`.roombots.RoomBots`), so a crash
costs a delay, never the game.

Hints have a pool of their own (:data:`HINT_WORKERS` processes, at a lower priority), so a bot's
move never waits behind hints: with one queue for both, a client asking for hints in many games
at once stalled every bot of the server for over a minute (issue 22).  The hints waiting for
that pool are bounded too (:data:`MAX_HINTS_PENDING`, over the whole server): beyond, a hint is
refused at once (:class:`HintsBusy`) rather than queued.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..bots import make_bot, make_hinting_bot
from ..bots.review import Mark, review_decision
from ..game import GameOptions
from ..replaying import Move, replay

#: seconds a decision may take beyond the bot's own think time before it counts as failed
#: (a queue of other games' decisions ahead of it included)
DECISION_GRACE = 60.0


#: how often a worker checks that the server that started it is still running (seconds)
PARENT_CHECK_SECONDS = 1.0
#: processes computing hints, apart from the bots' (a hint is a second of an expert's search)
HINT_WORKERS = 1
#: how much lower the hint workers' scheduling priority is than the server's (``nice``): on a
#: busy machine the event loop and the bots' workers get the processors first
HINT_NICENESS = 5
#: hints computed or waiting for a hint worker at once, all games together: a hint waits at
#: most a few seconds, and a flood of requests is refused instead of piling up
MAX_HINTS_PENDING = 4


class BotWorkerError(Exception):
    """A decision or hint could not be computed (worker died, timed out or raised)."""


class HintsBusy(BotWorkerError):
    """:data:`MAX_HINTS_PENDING` hints are being computed already: this one is not queued."""


def default_workers() -> int:
    """One worker per core beyond the one the event loop needs, and at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


_workers = default_workers()


def configure(workers: int) -> None:
    """Size of the bots' pool (takes effect for a pool not yet started)."""
    global _workers
    if workers < 1:
        raise ValueError(f"bot workers must be at least 1, not {workers}")
    _workers = workers


class _Pool:
    """Worker processes started when first needed, and started afresh once broken."""

    def __init__(self, size: Callable[[], int], niceness: int = 0) -> None:
        self._size = size
        self._niceness = niceness
        self._executor: Executor | None = None

    def executor(self) -> Executor:
        if self._executor is None:
            # spawn: a fork of a process with an event loop and threads can deadlock
            self._executor = ProcessPoolExecutor(
                self._size(),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(), self._niceness),
            )
        return self._executor

    def discard(self) -> None:
        if self._executor is not None:
            # Work already queued still runs and answers; only new work goes to the new pool.
            self._executor.shutdown(wait=False)
            self._executor = None


_bots = _Pool(lambda: _workers)
_hints_pool = _Pool(lambda: HINT_WORKERS, HINT_NICENESS)
#: processes reviewing finished games (:mod:`.reviews`), apart from bots and hints: a review is
#: minutes of search, and neither a bot's move nor a hint waits behind it
REVIEW_WORKERS = 1
_reviews_pool = _Pool(lambda: REVIEW_WORKERS, HINT_NICENESS)
#: hint computations asked of the hint workers and not yet answered (a room never cancels one
#: it asked for, see ``RoomHints.ask``: so a hint counts until its worker is done with it)
_hints_pending = 0


def _start_worker(parent: int, niceness: int) -> None:
    """In a worker: lower its priority by ``niceness``, and end when the server does."""
    if niceness:
        os.nice(niceness)
    _exit_with_parent(parent)


def _exit_with_parent(parent: int) -> None:
    """In a worker: end when the server does.  A server stopped by a signal (uvicorn re-raises
    SIGTERM after its graceful shutdown) or killed never tells its workers, and a worker waiting
    for work would wait forever: so each worker watches that its parent is still there."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _decide(spec: str, seed: int, options: GameOptions, moves: list[Move]) -> Any:
    """In a worker: the action bot ``spec`` chooses in the game after ``moves``."""
    return make_bot(spec, seed).choose(replay(options, moves))


def _hints(
    spec: str, seed: int, options: GameOptions, moves: list[Move], n: int
) -> list[tuple[Any, float]]:
    """In a worker: the ``n`` best actions for the seat to move, with expected points."""
    bot = make_hinting_bot(spec, seed)
    return [(h.action, h.expected_points) for h in bot.hints(replay(options, moves), n)]


def _review(
    options: GameOptions, moves: list[Move], played: Any, iterations: int, seed: int
) -> Mark:
    """In a worker: one decision of a game review, ``played`` after ``moves``."""
    return review_decision(replay(options, moves), played, iterations, seed)


async def _run(timeout: float, fn: Any, *args: Any, pool: _Pool = _bots) -> Any:
    loop = asyncio.get_running_loop()
    try:
        future = loop.run_in_executor(pool.executor(), fn, *args)
        return await asyncio.wait_for(future, timeout)
    except BrokenProcessPool:
        pool.discard()
        raise BotWorkerError("a bot worker stopped") from None
    except TimeoutError:
        # The worker may be stuck for good: start afresh rather than queue behind it.
        pool.discard()
        raise BotWorkerError("a bot decision took too long") from None


async def decide(
    spec: str, seed: int, options: GameOptions, moves: list[Move], think: float
) -> Any:
    """The bot's action in the game after ``moves``, computed in a worker; BotWorkerError if
    none came."""
    return await _run(think + DECISION_GRACE, _decide, spec, seed, options, moves)


async def hints(
    spec: str, seed: int, options: GameOptions, moves: list[Move], n: int, think: float
) -> list[tuple[Any, float]]:
    """The hint bot's ``n`` best moves for the seat to move, computed in a hint worker;
    :class:`HintsBusy` at once when :data:`MAX_HINTS_PENDING` are pending already."""
    global _hints_pending
    if _hints_pending >= MAX_HINTS_PENDING:
        raise HintsBusy(f"{_hints_pending} hints are being computed already")
    _hints_pending += 1
    try:
        return await _run(
            think + DECISION_GRACE, _hints, spec, seed, options, moves, n, pool=_hints_pool
        )
    finally:
        _hints_pending -= 1


async def review(
    options: GameOptions, moves: list[Move], played: Any, iterations: int, seed: int
) -> Mark:
    """The mark of one decision of a game review (``played`` after ``moves``: see
    :func:`~carcassonne.bots.review.review_decision`), computed in the review worker."""
    return await _run(
        DECISION_GRACE, _review, options, moves, played, iterations, seed, pool=_reviews_pool
    )
