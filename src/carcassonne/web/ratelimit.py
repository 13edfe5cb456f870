"""Per-client rate limits for the HTTP API and the websocket: a token bucket per client address.

Creating a game stores it and keeps it in memory until it ends, and an uploaded record is
replayed move by move, so both are limited per client; actions are limited generously, and so
are websocket messages (over all of a client's connections: opening more does not help). The
buckets are kept in the order they were last used, so the ones that have refilled (a new bucket
would behave the same) are pruned from the front, and a hard cap on their number bounds memory
even when many addresses arrive at once (a dropped client only gets a fresh burst).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limit:
    """``per_minute`` requests on average, at most ``burst`` at once."""

    per_minute: float
    burst: int

    def __post_init__(self) -> None:
        if not self.per_minute > 0 or self.burst < 1:
            raise ValueError(f"a limit needs a positive rate and a burst of at least 1: {self}")


@dataclass(frozen=True)
class RateLimits:
    """The limits of one server (``create_app(limits=...)``); the defaults suit people playing."""

    create: Limit = field(default_factory=lambda: Limit(per_minute=10, burst=10))
    replay: Limit = field(default_factory=lambda: Limit(per_minute=20, burst=20))
    action: Limit = field(default_factory=lambda: Limit(per_minute=600, burst=120))
    #: websocket messages, over all of one client's connections (100 a second)
    message: Limit = field(default_factory=lambda: Limit(per_minute=6000, burst=100))
    #: records and replays of finished games (the first reading of each replays the game)
    read: Limit = field(default_factory=lambda: Limit(per_minute=60, burst=30))
    #: reads of a game's state over HTTP (a client without a websocket polling it)
    state: Limit = field(default_factory=lambda: Limit(per_minute=600, burst=60))
    #: hints asked for, over all of a client's games (each is a second of a worker's search)
    hint: Limit = field(default_factory=lambda: Limit(per_minute=20, burst=6))
    #: seat changes (resign, return, stand-in), over all of a client's games: each is stored
    seat: Limit = field(default_factory=lambda: Limit(per_minute=10, burst=10))
    #: chat lines, over all of a client's games and both chats: each is stored and sent on
    chat: Limit = field(default_factory=lambda: Limit(per_minute=10, burst=5))
    #: taking an open seat (``POST /api/games/{id}/join``)
    join: Limit = field(default_factory=lambda: Limit(per_minute=10, burst=5))
    #: a game review's start and its progress polls (the computing is bounded per server)
    review: Limit = field(default_factory=lambda: Limit(per_minute=60, burst=20))


MAX_CLIENTS = 10_000


class TokenBuckets:
    """One :class:`Limit` for every client: ``take(client)`` spends a token or says how long to
    wait. ``clock`` returns seconds (monotonic); tests pass their own."""

    def __init__(
        self, limit: Limit, clock: Callable[[], float], max_clients: int = MAX_CLIENTS
    ) -> None:
        self.limit = limit
        self.clock = clock
        self.max_clients = max_clients
        self._per_second = limit.per_minute / 60
        #: seconds for an empty bucket to fill up again: older buckets are as good as new
        self._refill = limit.burst / self._per_second
        #: client -> (tokens, time they were counted), least recently used first
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, client: str) -> float:
        """0 if the request may go ahead (a token is spent), else the seconds until it may."""
        now = self.clock()
        self._prune(now)
        tokens, then = self._buckets.pop(client, (float(self.limit.burst), now))
        tokens = min(float(self.limit.burst), tokens + (now - then) * self._per_second)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self._per_second
        self._buckets[client] = (tokens, now)
        return wait

    def _prune(self, now: float) -> None:
        buckets = self._buckets
        while buckets:
            _, then = next(iter(buckets.values()))
            if now - then < self._refill and len(buckets) < self.max_clients:
                return
            buckets.popitem(last=False)


def retry_after(wait: float) -> str:
    """A ``Retry-After`` value: whole seconds, rounded up so that a client waiting it succeeds."""
    return str(max(1, math.ceil(wait)))
