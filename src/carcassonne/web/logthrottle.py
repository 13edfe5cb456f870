"""A rate limit on log lines, so that an attack cannot fill the disk through the server's log.

Clients can make the server log (a refused connection, a malformed request, the process out of
file descriptors: once 625,275 lines in 40 s), so ``carcassonne serve`` lets through at most a
few records of each kind per window and then says how many it dropped. A kind is the logger and
the message *template* (before its ``%`` arguments are filled in), so a flood of one kind never
hides the first line of another. Counting records bounds bytes only if records are bounded too:
a client's value quoted in one (a 1.9 MB "tile id", once, in a traceback per request) would
otherwise make each of them huge, so a record is cut to :data:`MAX_RECORD_CHARS`, keeping its
beginning and its end (where a traceback names the error).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

#: characters of one log record at most, its traceback included
MAX_RECORD_CHARS = 4000


class BoundedFormatter(logging.Formatter):
    """A formatter whose records are at most ``max_chars`` long: a longer one keeps its first
    and last halves, and says how much was left out between them."""

    def __init__(self, fmt: str, max_chars: int = MAX_RECORD_CHARS) -> None:
        super().__init__(fmt)
        self.max_chars = max_chars

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if len(text) <= self.max_chars:
            return text
        half = self.max_chars // 2
        left_out = len(text) - 2 * half
        return f"{text[:half]} [... {left_out} characters not logged ...] {text[-half:]}"


class LogThrottle(logging.Filter):
    """Lets ``burst`` records of each kind through per ``window`` seconds; the first record let
    through after some were dropped says how many. ``clock`` returns seconds (tests pass their
    own)."""

    #: kinds remembered at most (templates are the program's own, so this is never reached in
    #: practice; it bounds memory should a logger ever format its message itself)
    MAX_KINDS = 1000

    def __init__(
        self, burst: int = 10, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.burst = burst
        self.window = window
        self.clock = clock
        #: kind -> [window start, records let through in it, records dropped since last shown]
        self._kinds: dict[tuple[str, str], list[float]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        kind = (record.name, str(record.msg))
        state = self._kinds.get(kind)
        if state is None:
            if len(self._kinds) >= self.MAX_KINDS:
                self._kinds.clear()
            state = self._kinds[kind] = [now, 0, 0]
        if now - state[0] >= self.window:
            state[0], state[1] = now, 0
        if state[1] >= self.burst:
            state[2] += 1
            return False
        state[1] += 1
        if state[2]:
            record.msg = f"{record.msg} [{int(state[2])} more like this were not logged]"
            state[2] = 0
        return True


def throttled_handler(level: int = logging.WARNING) -> logging.Handler:
    """The handler ``carcassonne serve`` logs through: standard error, rate-limited."""
    handler = logging.StreamHandler()
    handler.setLevel(level)
    handler.setFormatter(BoundedFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(LogThrottle())
    return handler
