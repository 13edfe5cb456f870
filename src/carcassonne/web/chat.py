"""A table's chat: the seats' chat and, apart from it, the spectators'.

A line is plain text (at most :data:`MAX_CHAT_CHARS` code points, no control characters but
newlines) or a quick phrase's id (:data:`PHRASES`: each reader sees it in their own language).
Seats read the seats' chat, spectators the spectators' chat only: a spectator may be a player's
friend, so the seats must not be coached from the audience, and the seats' chat is theirs (shown
to everyone in the replay once the game is over).  A game keeps at most :data:`MAX_CHAT_LINES`
lines (both chats together): beyond, a line is refused with ``chat_full`` and the game goes on.
A connection is sent the last :data:`RECENT_CHAT_LINES` lines of its chat when it says hello.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ProtocolError

MAX_CHAT_CHARS = 500
MAX_CHAT_LINES = 2000
RECENT_CHAT_LINES = 100
PHRASES = ("gg", "wp", "sorry", "thanks")
SEATS, SPECTATORS = "seats", "spectators"


@dataclass(frozen=True)
class ChatLine:
    """One stored line; ``n`` its number in the game (both chats together)."""

    n: int
    audience: str
    seat: int | None
    name: str
    text: str | None
    phrase: str | None
    at_ms: int

    @classmethod
    def of_row(cls, row: Sequence[Any]) -> ChatLine:
        """The line of a stored row ``(n, audience, seat, name, text, phrase, at_ms)``."""
        n, audience, seat, name, text, phrase, at_ms = row
        return cls(
            int(n), audience, None if seat is None else int(seat), name, text, phrase, int(at_ms)
        )

    def to_json(self) -> dict[str, Any]:
        """The websocket's ``chat`` message (and the replay's line): the audience is implied."""
        said = {"text": self.text} if self.phrase is None else {"phrase": self.phrase}
        return {
            "type": "chat",
            "from": self.seat,
            "name": self.name,
            **said,
            "at_ms": self.at_ms,
            "n": self.n,
        }


def parse_chat(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """``{"type": "chat", "text": ...}`` or ``{..., "phrase": ...}`` (no other keys) as
    (text, phrase)."""
    text, phrase = data.get("text"), data.get("phrase")
    if (text is None) == (phrase is None):
        raise ProtocolError.of("chat_shape")
    if phrase is not None:
        if phrase not in PHRASES:
            raise ProtocolError.of("chat_phrase", phrases=", ".join(PHRASES))
        return None, phrase
    if not isinstance(text, str):
        raise ProtocolError.of("chat_shape")
    text = text.strip()
    # code points, as the page counts them (lone surrogates were refused when decoding)
    if not text or len(text) > MAX_CHAT_CHARS:
        raise ProtocolError.of("chat_length", max=MAX_CHAT_CHARS)
    if any(ord(c) < 32 and c != "\n" or c == "\x7f" for c in text):
        raise ProtocolError.of("chat_control")
    return text, None
