"""A stored game read back for its room: what the room reads is checked, and failures are told
without a secret.

Stored data may come from an older version or a damaged database.  The seats are checked for
what the server reads from them (:func:`checked_seats`), the moves are decoded one at a time as
they are replayed (:func:`decoded`: a move that no longer decodes fails its own ply), and what
went wrong is said to every player of the game in words that name only public things
(:func:`public_reason`: never the seed or the stack an exception's text could quote).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..bots import check_bot_spec
from ..formats.actions import ActionFormatError, action_from_json
from ..game import IllegalAction
from ..replaying import Move


class GameLoadError(Exception):
    """A stored game that cannot even be set up again (damaged options or seats)."""


def decoded(stored: Iterable[tuple[int, dict[str, Any]]]) -> Iterator[Move]:
    """Stored moves as the engine's, decoded as they are replayed (so that one that does not
    decode fails its own ply)."""
    return ((seat, action_from_json(data)) for seat, data in stored)


def public_reason(exc: Exception) -> str:
    """Why stored data failed, for every player of the game: the engine's and the readers' own
    messages name only public things (an action, a seat); any other exception is named by its
    type alone, as its text could quote the seed or the stack (the log has it all)."""
    if isinstance(exc, IllegalAction | ActionFormatError | GameLoadError):
        return str(exc)
    return f"{type(exc).__name__} (details in the server log)"


def checked_seats(seats: Any, players: int) -> list[dict[str, Any]]:
    """Stored seats, checked for what the server reads from them."""
    if not isinstance(seats, list) or len(seats) != players:
        raise GameLoadError(f"the stored seats are not a list of {players}")
    for i, seat in enumerate(seats):
        if not (
            isinstance(seat, dict)
            and seat.get("kind") in ("human", "bot", "open")
            and isinstance(seat.get("name"), str)
            and isinstance(seat.get("digest"), str | None)
        ):
            raise GameLoadError(f"stored seat {i + 1} is malformed")
        if seat["kind"] == "bot":
            try:
                check_bot_spec(str(seat.get("bot")))
            except ValueError as exc:
                raise GameLoadError(f"stored seat {i + 1} has no usable bot: {exc}") from None
    return seats
