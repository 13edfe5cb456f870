"""A client's outgoing queue: what waits to be sent on one websocket, bounded.

A change of the game does not queue a message per client: it marks the client's state (or the
seats online) as due, and the message is built from the game as it is when its turn to be sent
comes, so a slow reader gets the latest state rather than every frame.  Only a client's own
replies are queued as texts, and a client that does not read them is cut off
(:data:`MAX_QUEUED`, :data:`MAX_QUEUED_CHARS`).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Principal:
    """Who is on the other end: the seats they may act for (none for a spectator)."""

    seats: frozenset[int]
    hotseat: bool = False

    @property
    def spectator(self) -> bool:
        return not self.seats


SPECTATOR = Principal(frozenset())


#: messages of its own (replies, errors, hints) waiting for one client before the server gives
#: up on it: it sends requests without reading the answers
MAX_QUEUED = 64
#: characters of such messages waiting for one client before the server gives up on it (a text
#: shared by many queues counts for each; a long game's first state is well under this)
MAX_QUEUED_CHARS = 4 * 1024 * 1024


def encode(message: dict[str, Any]) -> str:
    """A server message as the text sent on the websocket."""
    return json.dumps(message, separators=(",", ":"))


class Due(enum.Enum):
    """A message about the game as it is when sent, not as it was when it changed."""

    STATE = "state"
    PRESENCE = "presence"


@dataclass(eq=False)
class Connection:
    """One websocket client; its messages wait in a queue so that it sees them in order.

    The game's changes are not queued one by one: a change marks the client's state (or the
    seats online) as due, and the message is built when its turn to be sent comes, from the game
    as it is then.  A reader slower than the game (a phone on a bad network watching a fast bot
    game) gets the latest state, with every event since the last state it got, instead of every
    intermediate frame: it is never dropped for being slow, and what waits for it stays one mark
    per kind.  Only messages of its own (replies, errors, hints) are queued as texts; a client
    that sends requests without reading the answers is cut off once :data:`MAX_QUEUED` of them
    or :data:`MAX_QUEUED_CHARS` characters wait for it.
    """

    principal: Principal
    #: builds a due message; set by the room the connection joins
    render: Callable[[Due], str] | None = None
    #: events of the game this client has been sent (the next state carries the later ones)
    events_sent: int = 0
    overflowed: bool = False
    queued_chars: int = 0
    #: texts, due marks (each at most once) and None (the connection is over), in order
    _queue: deque[str | Due | None] = field(default_factory=deque)
    _texts_queued: int = 0
    _ready: asyncio.Event = field(default_factory=asyncio.Event)

    def push(self, text: str | None) -> None:
        """Queue an encoded message (None: the connection is over)."""
        if self.overflowed:
            return
        if text is not None:
            if self._texts_queued >= MAX_QUEUED or self.queued_chars + len(text) > MAX_QUEUED_CHARS:
                self.overflowed = True
                text = None
            else:
                self.queued_chars += len(text)
                self._texts_queued += 1
        self._append(text)

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message meant for this client alone (a reply, an error)."""
        self.push(encode(message))

    def due(self, kind: Due) -> None:
        """The game changed: a message of this kind is due, built when sent.  A mark still
        waiting moves to the end, after the replies queued meanwhile."""
        if self.overflowed:
            return
        with contextlib.suppress(ValueError):
            self._queue.remove(kind)
        self._append(kind)

    def _append(self, item: str | Due | None) -> None:
        self._queue.append(item)
        self._ready.set()

    @property
    def waiting(self) -> int:
        """Messages waiting to be sent (a due mark counts one)."""
        return len(self._queue)

    async def next(self) -> str | None:
        """The next text to send; None once the connection is over."""
        while not self._queue:
            self._ready.clear()
            await self._ready.wait()
        item = self._queue.popleft()
        if isinstance(item, Due):
            assert self.render is not None, "a due message before the connection joined a room"
            return self.render(item)
        if item is not None:
            self.queued_chars -= len(item)
            self._texts_queued -= 1
        return item
