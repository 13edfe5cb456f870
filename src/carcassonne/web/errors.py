"""Every error the web server sends: a stable reason, the values its wording uses, the English.

An error travels as ``code``, its kind (which HTTP status it gets, what a client may do about it:
try again, give up), ``message``, the English sentence for API users and logs, and ``reason``
with ``params``: what exactly went wrong, for the browser to say in its player's language (the
page's catalogues hold ``error.<reason>`` for every reason here, and ``error.illegal.<reason>``
for every :class:`~carcassonne.game.IllegalAction` reason of the engine;
``tests/web/test_error_reasons.py`` checks both, scanning the source).

``params`` hold numbers, JSON keys, tile ids, square names and the engine's own names (a figure,
a feature kind, an expansion), which the page words itself; the few that are English text
(``detail``: a reader's or the engine's setup message, ``why`` a game stopped) are shown as
they are inside the translated sentence.

The HTTP API answers an error as :func:`error_response` builds it, with the status of its kind
(:data:`HTTP_STATUS`) and, when a rate limit refused it (:class:`RateLimited`), ``Retry-After``.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from ..game import IllegalAction
from .ratelimit import retry_after

#: reason -> (code, English message with the {params} it quotes)
ERRORS: dict[str, tuple[str, str]] = {
    # the shape of a request or message
    "nested_too_deeply": ("bad-message", "{what} is nested too deeply"),
    "not_json": ("bad-message", "{what} is not JSON: {detail}"),
    "lone_surrogate": (
        "bad-message",
        "{what} holds a lone UTF-16 surrogate (an escape from \\ud800 to \\udfff without its "
        "pair), which is not text",
    ),
    "not_an_object": ("bad-message", "{what} must be a JSON object, not {type}"),
    "unknown_keys": ("bad-message", "{what} has unknown keys {keys}"),
    "not_boolean": ("bad-message", "{what}: {key!r} must be true or false"),
    "not_in_range": ("bad-message", "{what} must be a whole number from {low} to {high}"),
    "request_not_object": ("bad-message", "the request must be a JSON object"),
    "request_unknown_keys": ("bad-message", "unknown keys {keys}"),
    "hotseat_not_boolean": ("bad-message", "'hotseat' must be true or false"),
    "actions_request": ("bad-message", 'the request must be {{"actions": [...], "ply": n}}'),
    "too_large": ("too-large", "the request is larger than {max} bytes"),
    "bad_content_type": (
        "bad-content-type",
        "the request body must be JSON, sent with Content-Type: application/json",
    ),
    # the seats and options of a new game
    "seat_count": ("bad-message", "'seats' must be a list of {low} to {high} seats"),
    "seat_kind": ("bad-message", "seat {seat}: 'kind' must be 'human', 'bot' or 'open'"),
    "seat_open_named": ("bad-message", "seat {seat}: an open seat has no name until taken"),
    "listed_not_boolean": ("bad-message", "'listed' must be true or false"),
    "listed_without_open_seat": (
        "bad-message",
        "only a table with an open seat may be listed on the open tables page",
    ),
    "hotseat_open_seat": (
        "bad-message",
        "a hotseat game has no open seats: its players sit at one screen",
    ),
    "seat_not_bot": ("bad-message", "seat {seat}: only a bot seat has a 'bot'"),
    "seat_name": ("bad-message", "seat {seat}: 'name' must be text of at most {max} chars"),
    "seat_bot_unknown": ("bad-message", "seat {seat}: 'bot' must be one of {bots}"),
    "seat_bot_spec": ("bad-message", "seat {seat}: {detail}"),
    "seat_bot_argument": (
        "bad-message",
        "seat {seat}: a web game's bot takes only 'seconds', not {argument!r}",
    ),
    "seat_think_time": (
        "bad-message",
        "seat {seat}: a bot's think time must be {low} to {high} seconds",
    ),
    "stack_option": ("bad-message", "options: 'stack' must be a list of at most {max} tile ids"),
    "start_squares_option": (
        "bad-message",
        "options: 'start_squares' must be a list of two square names",
    ),
    "unknown_map": ("bad-options", "cannot set up this game: unknown map {map} (maps: {maps})"),
    "bad_options": ("bad-options", "cannot set up this game: {detail}"),
    "bot_unavailable": ("bad-options", "the {bot} bot is not available: {detail}"),
    # the table's settings (its clock, stand-in, timeouts): ``detail`` says exactly what
    "table_shape": ("bad-options", "{detail}"),
    "clock_kind": ("bad-options", "{detail}"),
    "clock_range": ("bad-options", "{detail}"),
    "stand_in_bot": ("bad-options", "{detail}"),
    "on_timeout": ("bad-options", "{detail}"),
    "aids_setting": ("bad-options", "{detail}"),
    # the server's limits
    "rate_limited": (
        "rate-limited",
        "too many requests of this kind (at most {per_minute:g} a minute); try again in {wait} s",
    ),
    "too_many_of_yours": (
        "too-many-games",
        "you already have {games} unfinished games on this server, its limit per address; "
        "finish some first (abandoned games end after a while)",
    ),
    "server_full": (
        "too-many-games",
        "this server already runs {games} unfinished games, its limit; "
        "try again when some have ended",
    ),
    "too_many_open_tables": (
        "too-many-open-tables",
        "you already have {tables} listed tables waiting for players, the limit per address; "
        "wait until they fill or expire",
    ),
    "too_many_connections": ("too-many-connections", "the server has too many connections open"),
    "too_many_from_address": ("too-many-connections", "too many connections from this address"),
    # who is asking
    "unknown_host": ("unknown-host", "this server does not answer to this host name"),
    "foreign_origin": (
        "forbidden-origin",
        "requests from pages of other web sites are not accepted",
    ),
    "bad_authorization": ("unauthorised", "Authorization must be 'Bearer <token>'"),
    "bad_token": ("unauthorised", "this link's token does not belong to this game"),
    "spectator": ("unauthorised", "spectators cannot act"),
    "no_such_game": ("not-found", "there is no game with this id"),
    # the websocket's conversation
    "message_not_object": ("bad-message", "a message must be a JSON object"),
    "not_text_frame": ("bad-message", "messages must be JSON text frames"),
    "message_too_large": ("bad-message", "message larger than {max} bytes"),
    "no_hello": ("bad-message", "no hello received"),
    "hello_first": ("bad-message", "the first message must be hello"),
    "hello_again": ("bad-message", "hello was already received"),
    "hello_token": ("bad-message", "hello: 'token' must be a string or null"),
    "unknown_message_type": (
        "bad-message",
        "unknown message type {type!r} (expected hello, act, preview, hint, ping, resign, "
        "return, stand-in, chat or rematch)",
    ),
    # the table's chat
    "chat_shape": ("bad-message", "chat: send either 'text' (a string) or 'phrase'"),
    "chat_phrase": ("bad-message", "chat: 'phrase' must be one of {phrases}"),
    "chat_length": ("bad-message", "chat: the text must have 1 to {max} characters"),
    "chat_control": ("bad-message", "chat: the text must not hold control characters"),
    "chat_hotseat": ("bad-message", "a hotseat screen has no chat: its players sit together"),
    "chat_full": ("chat-full", "this game's chat is full ({max} lines); the game goes on"),
    "chat_not_stored": ("server", "the chat line could not be stored; try again"),
    # play again
    "rematch_request": ("bad-message", "the request to play again takes no body, or {{}}"),
    "rematch_not_over": ("not-allowed", "only a game that is over can be played again"),
    # open tables: taking a seat, the list
    "join_request": ("bad-message", 'the request must be {{"seat": n, "name": "..."}}'),
    "join_seat": ("bad-message", "'seat' must be a seat number from 0 to {high}"),
    "seat_taken": ("seat-taken", "seat {seat} is not open: someone took it first"),
    "join_ended": ("game-over", "this game has ended: its seats can no longer be taken"),
    "join_not_saved": ("server", "the server could not save your seat; try again"),
    "bad_cursor": ("bad-message", "'page' must be the 'next' of an earlier page of tables"),
    "table_waiting": (
        "table-waiting",
        "the table is waiting for players (seats {seats} are open): the game starts once "
        "they are taken",
    ),
    # moves
    "action_count": ("bad-message", "'actions' must be a list of 1 to {max} actions"),
    "bad_action": ("bad-message", "action {action}: {detail}"),
    "malformed_action": ("bad-message", "action {action}: malformed ({detail})"),
    "batch_not_tile": (
        "bad-message",
        "only a tile placement may be sent together with another action "
        "(the figure action after it)",
    ),
    "preview_not_tile": ("bad-message", "a preview is only for placing a tile"),
    "game_over": ("game-over", "the game is over"),
    "ended_before_action": ("game-over", "the game ended before this action"),
    "game_broken": ("broken", "{why}"),
    "game_expired": ("expired", "{why}"),
    "stale_ply": ("stale", "the game has moved on (ply {ply}, you sent {sent})"),
    "reloaded": ("stale", "the game was reloaded; send the move again"),
    "stored_elsewhere": ("stale", "the game has moved on: another move was stored first"),
    "not_your_turn": ("not-your-turn", "it is seat {seat}'s move, not yours"),
    "action_not_your_turn": (
        "not-your-turn",
        "action {action}: it is seat {seat}'s move, not yours",
    ),
    "seat_stood_in": (
        "not-allowed",
        "seat {seat} is played by the stand-in now: take it back first",
    ),
    # seat changes: resign, take a seat back, hand a seat to the stand-in
    "seat_change_request": (
        "bad-message",
        'the request must be {{"change": "resign" | "return" | "stand-in", "seat": n '
        '(for stand-in only), "ply": n}}',
    ),
    "seat_left": ("not-allowed", "seat {seat} has left the game already"),
    "seat_not_stood_in": ("not-allowed", "seat {seat} is not played by the stand-in"),
    "seat_out_of_time": (
        "not-allowed",
        "seat {seat} has no time left: it may be taken back once the stand-in has earned it some",
    ),
    "seat_not_to_move": (
        "not-allowed",
        "only the seat to move may be handed to the stand-in, and seat {seat} is not",
    ),
    "seat_not_playing": (
        "not-allowed",
        "seat {seat} is not playing now: only a seat still at the table may do that",
    ),
    "stand_in_own_seat": ("not-allowed", "you cannot hand your own seat to the stand-in"),
    "seat_not_played_by_person": (
        "not-allowed",
        "seat {seat} is not played by a person now",
    ),
    "seat_has_time": ("not-allowed", "seat {seat} still has time on its clock"),
    "seat_not_away": (
        "not-allowed",
        "seat {seat} may be handed to the stand-in once it has been away for {minutes} minutes",
    ),
    # hints
    "hint_busy": ("busy", "a hint is already on its way"),
    "hint_earlier_busy": (
        "busy",
        "a hint for an earlier move of this game is still being computed; try again in a moment",
    ),
    "hints_busy": ("busy", "the server is computing many hints now; try again in a moment"),
    "hint_failed": ("busy", "no hint could be computed now; try again"),
    # replays
    "not_finished": (
        "not-finished",
        "the game is not finished: its record would reveal the draw order",
    ),
    "record_not_object": (
        "bad-record",
        "cannot replay this record: a record must be a JSON object",
    ),
    "record_too_long": (
        "bad-record",
        "cannot replay this record: a record may have at most {max} moves",
    ),
    "record_seat_name": (
        "bad-record",
        "cannot replay this record: seat {seat}: a name has at most {max} characters",
    ),
    "bad_record": ("bad-record", "cannot replay this record: {detail}"),
    # reviews
    "review_not_finished": (
        "not-finished",
        "the game is not finished: only a finished game can be reviewed",
    ),
    "review_no_humans": (
        "not-allowed",
        "only bots played this game: a review looks at people's moves",
    ),
    "reviews_busy": (
        "busy",
        "the server is reviewing {running} games now, its limit; try again in a few minutes",
    ),
    # the server's own failures
    "server_failed": ("server", "the server failed on this request"),
    "message_failed": ("server", "the server failed on this message"),
    "hint_server_failed": ("server", "the server failed on this hint"),
    "preview_failed": ("server", "the server failed on this preview"),
    "engine_failed": ("server", "action {action}: the server failed on it"),
    "move_not_saved": ("server", "the server could not save this move; try again"),
    "hint_not_saved": ("server", "the server could not save that this hint was used; try again"),
    "cannot_create_now": ("server", "the server cannot create games now; try again"),
    "game_not_saved": ("server", "the server could not save the new game; try again"),
    "seat_change_not_saved": ("server", "the server could not save this change; try again"),
}


class ProtocolError(ValueError):
    """A request refused; ``code`` is its kind, ``reason`` and ``params`` what exactly is
    wrong (see the module's docstring). Build one with :meth:`of` (or :func:`illegal`)."""

    def __init__(
        self,
        message: str,
        code: str = "bad-message",
        *,
        reason: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.params: dict[str, Any] = params or {}

    @classmethod
    def of(cls, reason: str, /, code: str | None = None, **params: Any) -> ProtocolError:
        """The error ``reason`` of :data:`ERRORS` quoting ``params``; ``code`` overrides its
        kind (an unknown map is a bad option in the lobby, a bad record in an upload)."""
        kind, english = ERRORS[reason]
        return cls(english.format(**params), code or kind, reason=reason, params=params)

    def to_json(self) -> dict[str, Any]:
        """The fields every error message carries (the websocket's and the API's)."""
        return {"message": str(self), "reason": self.reason, "params": _exact(self.params)}


#: the largest whole number a browser's number holds exactly
MAX_EXACT_IN_JS = 2**53


def _exact(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every whole number a browser would round (the seed's bound, 2**63 - 1)
    as its digits: the page must quote the number the server meant."""
    return {
        name: str(value) if isinstance(value, int) and abs(value) > MAX_EXACT_IN_JS else value
        for name, value in params.items()
    }


def illegal(exc: IllegalAction, action: int | None = None) -> ProtocolError:
    """The engine refused an action (``action``: its number in the batch sent, if any)."""
    params = {**exc.params, **({} if action is None else {"action": action})}
    message = str(exc) if action is None else f"action {action}: {exc}"
    return ProtocolError(message, "illegal", reason=f"illegal.{exc.reason}", params=params)


#: the HTTP status of each kind of error; any other kind is 409 (Conflict): the state of the
#: game refuses the request (an illegal move, not this seat's turn, a stale ply)
HTTP_STATUS = {
    "bad-message": 400,
    "bad-options": 400,
    "bad-record": 400,
    "unknown-host": 400,
    "unauthorised": 403,
    "forbidden-origin": 403,
    "not-found": 404,
    "too-large": 413,
    "bad-content-type": 415,
    "rate-limited": 429,
    "server": 500,
    "too-many-games": 503,
    "too-many-open-tables": 503,
    "too-many-connections": 503,
}


class RateLimited(ProtocolError):
    """Too many requests of one kind from one client; ``wait`` seconds until the next is let in."""

    def __init__(self, per_minute: float, wait: float) -> None:
        refused = ProtocolError.of("rate_limited", per_minute=per_minute, wait=retry_after(wait))
        super().__init__(str(refused), refused.code, reason=refused.reason, params=refused.params)
        self.wait = wait


def error_response(exc: ProtocolError) -> JSONResponse:
    """The API's answer to ``exc``: its JSON (``error``: the kind) with its HTTP status."""
    headers = {"retry-after": retry_after(exc.wait)} if isinstance(exc, RateLimited) else None
    return JSONResponse(
        {"error": exc.code, **exc.to_json()},
        status_code=HTTP_STATUS.get(exc.code, 409),
        headers=headers,
    )
