"""Bot decisions and hints, computed in worker processes so the event loop never thinks.

A bot's decision can take seconds (the expert searches for its whole think time).  Run on the
server's event loop it would freeze every other game for that long; run in a thread it would
still fight the loop for the interpreter lock.  So every bot decision and every hint goes to a
small pool of worker **processes** shared by all games of the server, sized by
:func:`configure` (``carcassonne serve --bot-workers``): a server on two cores keeps one core
for the loop and thinks on the other.

What crosses to a worker is small and needs no trust in pickled engine state: the game's options,
the actions played so far (the worker replays them: a whole game replays in about a millisecond),
the bot's spec and a seed.  The seed of each decision is derived from the game's seed, the seat
and the ply, so a game's bots play the same way after a server restart as before it.

A worker that dies (killed, out of memory) breaks the pool; the next call builds a new one, and
the room tries the decision again later (see ``Room._run_bots``), so a crash costs a delay, never
the game.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..bots import make_bot
from ..game import Game, GameOptions

#: seconds a decision may take beyond the bot's own think time before it counts as failed
#: (a queue of other games' decisions ahead of it included)
DECISION_GRACE = 60.0


#: how often a worker checks that the server that started it is still running (seconds)
PARENT_CHECK_SECONDS = 1.0


class BotWorkerError(Exception):
    """A decision or hint could not be computed (worker died, timed out or raised)."""


def default_workers() -> int:
    """One worker per core beyond the one the event loop needs, and at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


_workers = default_workers()
_pool: Executor | None = None


def configure(workers: int) -> None:
    """Size of the pool (takes effect for a pool not yet started)."""
    global _workers
    if workers < 1:
        raise ValueError(f"bot workers must be at least 1, not {workers}")
    _workers = workers


def _executor() -> Executor:
    global _pool
    if _pool is None:
        # spawn: a fork of a process with an event loop and threads can deadlock
        _pool = ProcessPoolExecutor(
            _workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_with_parent,
            initargs=(os.getpid(),),
        )
    return _pool


def _exit_with_parent(parent: int) -> None:
    """In a worker: end when the server does.  A server stopped by a signal (uvicorn re-raises
    SIGTERM after its graceful shutdown) or killed never tells its workers, and a worker waiting
    for work would wait forever: so each worker watches that its parent is still there."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _discard_pool() -> None:
    global _pool
    if _pool is not None:
        # Work already queued still runs and answers; only new work goes to the new pool.
        _pool.shutdown(wait=False)
        _pool = None


def _replayed(options: GameOptions, actions: list[Any]) -> Game:
    game = Game(options)
    for action in actions:
        game.apply(action)
    return game


def _decide(spec: str, seed: int, options: GameOptions, actions: list[Any]) -> Any:
    """In a worker: the action bot ``spec`` chooses in the game after ``actions``."""
    return make_bot(spec, seed).choose(_replayed(options, actions))


def _hints(
    spec: str, seed: int, options: GameOptions, actions: list[Any], n: int
) -> list[tuple[Any, float]]:
    """In a worker: the ``n`` best actions for the seat to move, with expected points."""
    bot = make_bot(spec, seed)
    return [(h.action, h.expected_points) for h in bot.hints(_replayed(options, actions), n)]  # type: ignore[attr-defined]


async def _run(timeout: float, fn: Any, *args: Any) -> Any:
    loop = asyncio.get_running_loop()
    try:
        future = loop.run_in_executor(_executor(), fn, *args)
        return await asyncio.wait_for(future, timeout)
    except BrokenProcessPool:
        _discard_pool()
        raise BotWorkerError("a bot worker stopped") from None
    except TimeoutError:
        # The worker may be stuck for good: start afresh rather than queue behind it.
        _discard_pool()
        raise BotWorkerError("a bot decision took too long") from None


async def decide(
    spec: str, seed: int, options: GameOptions, actions: list[Any], think: float
) -> Any:
    """The bot's action, computed in a worker; BotWorkerError if none came."""
    return await _run(think + DECISION_GRACE, _decide, spec, seed, options, actions)


async def hints(
    spec: str, seed: int, options: GameOptions, actions: list[Any], n: int, think: float
) -> list[tuple[Any, float]]:
    """The hint bot's ``n`` best moves for the seat to move, computed in a worker."""
    return await _run(think + DECISION_GRACE, _hints, spec, seed, options, actions, n)  # type: ignore[no-any-return]
