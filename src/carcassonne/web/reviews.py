"""The review of a finished web game: started by anyone with its link, computed in the review
worker, kept in the ``reviews`` table.

``POST /api/games/{id}/review`` starts it (finished games only: a live game's review would
reveal what the expert makes of its hidden state), ``GET /api/games/{id}/review`` answers
``{"status": "done", "review": {...}}`` once stored, ``{"status": "running", "done": k,
"total": n}`` while this process computes it, and ``{"status": "none"}`` before.  Each decision
is one job of the review worker (:func:`.botworker.review`), so the progress is the count of
answered jobs and a bot's move or a hint never waits behind a whole review.

What a client can make the server spend is bounded: one review computing per game, at most
:data:`MAX_RUNNING` per process (beyond, ``reviews_busy`` at once), a fixed budget per decision
(:data:`WEB_ITERATIONS`), and each client's requests by the ``review`` rate limit.  The stored
review is served by any process sharing the database, and a restart keeps it; a review cut
short by a restart is started again by the next POST.  Two processes asked at once may both
compute a game's review: they find the same (the search is seeded), and the first stored stays.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..bots.review import DEFAULT_ITERATIONS, Mark, Review, decisions
from ..formats.actions import action_to_json
from . import botworker
from .protocol import ProtocolError
from .rooms import Room
from .storage import Storage, StorageError

log = logging.getLogger("carcassonne.web")

#: reviews computing at once in one server process (each takes its decisions one by one to the
#: review worker, so more would only wait for it)
MAX_RUNNING = 2
#: playouts per reviewed decision: about 20 s of one core for a base game of two players
WEB_ITERATIONS = DEFAULT_ITERATIONS
#: the search's seed: a game's review is the same whoever asks and whichever process computes it
WEB_SEED = 0


@dataclass(slots=True)
class _Job:
    total: int = 0
    done: int = 0


class Reviews:
    """The reviews this process computes, and the stored ones."""

    def __init__(self, storage: Storage, wall_clock: Callable[[], int]) -> None:
        self.storage = storage
        self.wall_clock = wall_clock
        self._jobs: dict[str, _Job] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def status(self, game_id: str) -> dict[str, Any]:
        stored = await self.storage.run(self.storage.load_review, game_id)
        if stored is not None:
            return {"status": "done", "review": json.loads(stored)}
        job = self._jobs.get(game_id)
        if job is None:
            return {"status": "none"}
        return {"status": "running", "done": job.done, "total": job.total}

    async def start(self, room: Room) -> dict[str, Any]:
        """Start the review of ``room``'s finished game unless it is stored or running."""
        if not room.game.is_over:
            raise ProtocolError.of("review_not_finished")
        if all(seat["kind"] != "human" for seat in room.seats):
            raise ProtocolError.of("review_no_humans")
        answer = await self.status(room.id)
        if answer["status"] != "none":
            return answer
        if len(self._jobs) >= MAX_RUNNING:
            raise ProtocolError.of("reviews_busy", running=MAX_RUNNING)
        job = self._jobs[room.id] = _Job()  # no await since the check: one job per game
        task = asyncio.create_task(self._compute(room, job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return {"status": "running", "done": 0, "total": 0}

    async def _compute(self, room: Room, job: _Job) -> None:
        game_id = room.id
        humans = [i for i, seat in enumerate(room.seats) if seat["kind"] == "human"]
        options, moves = room.game.options, list(room.game.history)
        try:
            wanted = await asyncio.to_thread(decisions, options, moves, humans)
            job.total = len(wanted)
            marks: list[Mark] = []
            for index in wanted:
                marks.append(
                    await botworker.review(
                        options, moves[:index], moves[index][1], WEB_ITERATIONS, WEB_SEED
                    )
                )
                job.done = len(marks)
            result = Review(tuple(humans), WEB_ITERATIONS, WEB_SEED, tuple(marks))
            text = json.dumps(result.to_json(action_to_json))
            await self.storage.run(self.storage.save_review, game_id, text, self.wall_clock())
        except (botworker.BotWorkerError, StorageError) as exc:
            # the next POST starts it again
            log.warning("game %s: the review stopped: %s", game_id, exc)
        except Exception:  # a bug: told, and the game's next POST tries again
            log.exception("game %s: the review failed", game_id)
        finally:
            del self._jobs[game_id]

    def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
