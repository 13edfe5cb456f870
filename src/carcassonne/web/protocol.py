"""What travels between browser and server, and its validation.

Every message from a client is checked here for shape and types before anything else looks at
it; a bad one raises :class:`ProtocolError` naming what is wrong, which the server sends back to
that client only.  Legality is the engine's job (``game.apply``), never re-implemented here.

Outgoing data passes through :func:`public_options`, :func:`public_event` and
:func:`board_info` so that nothing a seat must not know (the seed, an explicit stack, another
seat's chip) leaves the server.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from typing import Any

from ..actions import PlaceFigure, PlaceTile
from ..board import decode, encode
from ..bots import SPEC_NAMES, bot_arguments, bot_parameters, check_bot_spec, resolved_spec
from ..clocks import TimeControlError
from ..events import Event, ScoreEvent
from ..expansions.registry import EXPANSIONS, VARIANTS
from ..formats.actions import ActionFormatError, action_from_json
from ..formats.record_writer import options_to_json as rule_options_json
from ..game import MAX_COPIES, MAX_PLAYERS, MIN_PLAYERS, Game, GameOptions
from ..maps import bundled_maps
from ..quoting import short_repr
from ..standings import TableSettings
from ..tiles import EDGE_NAMES
from .chat import parse_chat
from .errors import ProtocolError

MAX_MESSAGE_BYTES = 64 * 1024
#: a tile placement and the figure action after it (see Room.submit: longer batches could probe
#: hidden information)
MAX_ACTIONS_PER_MESSAGE = 2
MAX_NAME_LENGTH = 24
MAX_STACK = 400
#: the largest integer a browser's numbers hold exactly (JavaScript's Number.MAX_SAFE_INTEGER):
#: every integer the protocol carries, either way, lies within ±this (docs/web.md)
MAX_SAFE_INTEGER = 2**53 - 1
#: seeds a client may choose and the server draws: a page rounds any larger one it reads, and
#: a record saved from such a page would then replay another shuffle
MAX_SEED = MAX_SAFE_INTEGER
MAX_PLY = 10**6
#: a seat of kind ``open`` waits for a player to take it (an open table: docs/web.md)
SEAT_KINDS = ("human", "bot", "open")
#: think times a web client may give a bot (seconds per decision)
MIN_WEB_THINK, MAX_WEB_THINK = 0.1, 2.0
#: the think times the lobby offers for the bots that think (the expert)
WEB_THINK_CHOICES = (0.5, 1.0, 2.0)


#: the escape of a UTF-16 surrogate (``\ud800`` to ``\udfff``), in text and in bytes
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def decode_json(data: str | bytes, what: str) -> Any:
    """``data`` parsed as JSON. Whatever the parser refuses (bad syntax or encoding, a number
    with more digits than Python converts, nesting deeper than its recursion limit) is a
    :class:`ProtocolError` naming ``what``, never a server failure; so is text that is not
    Unicode (:func:`_refuse_lone_surrogates`)."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise ProtocolError.of("nested_too_deeply", what=what) from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, too many digits
        raise ProtocolError.of("not_json", what=what, detail=str(exc)) from None
    if isinstance(data, bytes):
        escaped = _SURROGATE_ESCAPE_BYTES.search(data) is not None
    else:
        escaped = _SURROGATE_ESCAPE.search(data) is not None
    if escaped:
        _refuse_lone_surrogates(value, what)
    return value


def _refuse_lone_surrogates(value: Any, what: str) -> None:
    """JSON lets a string escape half of a UTF-16 pair alone (``"\\ud800"``), which is no
    character: it could be neither stored nor sent on (UTF-8 has no encoding for it), and a
    game created with one in a seat name was stored, then failed on every answer. Such text is
    refused as bad input, before anything looks at it. (A pair that belongs together is one
    character once parsed; only escapes make surrogates, so only text with one is searched.)"""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ProtocolError.of("lone_surrogate", what=what) from None


def _expect_object(data: Any, what: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError.of("not_an_object", what=what, type=type(data).__name__)
    unknown = set(data) - allowed
    if unknown:
        raise ProtocolError.of("unknown_keys", what=what, keys=sorted(unknown))
    return data


def _bool(data: dict[str, Any], key: str, what: str, default: bool = False) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ProtocolError.of("not_boolean", what=what, key=key)
    return value


def _int(value: Any, key: str, low: int, high: int, what: str = "options") -> int:
    """``value`` of the field ``key`` (of ``what``, if any) as a whole number in range."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        field = f"{what}: {key!r}" if what else repr(key)
        raise ProtocolError.of("not_in_range", what=field, key=key, low=low, high=high)
    return value


# ------------------------------------------------------------------------------ game creation


def default_seat_name(index: int, kind: str, bot: str | None) -> str:
    """The name of a seat its creator left unnamed ("Player 2", "Greedy bot").

    Records and the terminal show it as it is; the browser recognises it (see
    :func:`seat_public`) and shows the default of the viewer's own language instead.
    """
    return f"{bot_name(str(bot)).capitalize()} bot" if kind == "bot" else f"Player {index + 1}"


def bot_name(spec: str) -> str:
    """The bot a stored spec names (``expert:seconds=1.0`` -> ``expert``)."""
    return spec.partition(":")[0]


def think_time(spec: str) -> float:
    """Seconds the bot of ``spec`` thinks per decision at most (0 for the instant bots; a
    level's cap on its playouts' time)."""
    name, arguments = bot_arguments(resolved_spec(spec))
    seconds = {p.name: p.default for p in bot_parameters(name)}.get("seconds")
    return float(arguments.get("seconds", seconds or 0.0))


def seat_public(index: int, name: str, kind: str, bot: str | None) -> dict[str, Any]:
    """A seat as pages see it: ``default_name`` marks a name they should translate; ``bot`` is
    the bot's name and ``think`` its think time (seconds, for the bots that take one)."""
    return {
        "name": name,
        "kind": kind,
        "bot": None if bot is None else bot_name(bot),
        "think": (think_time(bot) or None) if bot is not None else None,
        "default_name": name == default_seat_name(index, kind, bot),
    }


def parse_bot_seat(spec: Any, seat: int) -> str:
    """A bot seat's spec from a client, in canonical form.

    Clients may choose a level of the ladder (its budget is the server's: playouts, with a
    cap on their time), or a bot and, for the bots that think, a think time of at most
    :data:`MAX_WEB_THINK` seconds; nothing else (an iteration budget of their own has no time
    bound, and a server's CPU is shared by every game on it).
    """
    if not isinstance(spec, str):
        raise ProtocolError.of("seat_bot_unknown", seat=seat, bots=", ".join(SPEC_NAMES))
    try:
        name, arguments = bot_arguments(spec)
    except ValueError as exc:
        raise ProtocolError.of("seat_bot_spec", seat=seat, detail=str(exc)) from None
    extra = sorted(set(arguments) - {"seconds"})
    if extra:
        raise ProtocolError.of("seat_bot_argument", seat=seat, argument=extra[0])
    seconds = arguments.get("seconds")
    if seconds is not None and not MIN_WEB_THINK <= seconds <= MAX_WEB_THINK:
        raise ProtocolError.of("seat_think_time", seat=seat, low=MIN_WEB_THINK, high=MAX_WEB_THINK)
    return check_bot_spec(spec)


def parse_seats(data: Any) -> list[dict[str, Any]]:
    """``[{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}, {"kind":
    "open"}]`` → seat records (an open seat has no name until a player takes it)."""
    if not isinstance(data, list) or not MIN_PLAYERS <= len(data) <= MAX_PLAYERS:
        raise ProtocolError.of("seat_count", low=MIN_PLAYERS, high=MAX_PLAYERS)
    seats = []
    for i, raw in enumerate(data):
        what = f"seat {i + 1}"
        seat = _expect_object(raw, what, {"kind", "bot", "name"})
        kind = seat.get("kind")
        if kind not in SEAT_KINDS:
            raise ProtocolError.of("seat_kind", seat=i + 1)
        bot = seat.get("bot")
        if kind == "bot":
            bot = parse_bot_seat(bot, i + 1)
        elif bot is not None:
            raise ProtocolError.of("seat_not_bot", seat=i + 1)
        if kind == "open":
            if seat.get("name") not in (None, ""):
                raise ProtocolError.of("seat_open_named", seat=i + 1)
            seats.append({"kind": "open", "bot": None, "name": ""})
            continue
        name = parse_seat_name(seat.get("name"), i, kind, bot)
        seats.append({"kind": kind, "bot": bot, "name": name})
    return seats


def parse_seat_name(name: Any, index: int, kind: str = "human", bot: str | None = None) -> str:
    """A seat's name as given (None or blank: the seat's default, :func:`default_seat_name`)."""
    if name is None:
        name = ""
    if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH:
        raise ProtocolError.of("seat_name", seat=index + 1, max=MAX_NAME_LENGTH)
    return name.strip() or default_seat_name(index, kind, bot)


def parse_options(data: Any, players: int) -> GameOptions:
    """The create request's ``options`` → :class:`GameOptions` (the engine checks combinations)."""
    if data is None:
        data = {}
    what = "options"
    opts = _expect_object(
        data,
        what,
        {
            *(spec.field for spec in EXPANSIONS),
            *(variant.field for variant in VARIANTS),
            "map",
            "seed",
            "stack",
            "meeples",
            "copies",
            "start_squares",
        },
    )
    game_map = opts.get("map")
    check_map(game_map, "bad-options")
    seed = opts.get("seed")
    if seed is not None:
        seed = _int(seed, "seed", 0, MAX_SEED)
    stack = opts.get("stack")
    if stack is not None:
        if (
            not isinstance(stack, list)
            or len(stack) > MAX_STACK
            or not all(isinstance(t, str) for t in stack)
        ):
            raise ProtocolError.of("stack_option", max=MAX_STACK)
        stack = tuple(stack)
    meeples = opts.get("meeples")
    if meeples is not None:
        meeples = _int(meeples, "meeples", 1, 20)
    copies = _int(opts.get("copies", 1), "copies", 1, MAX_COPIES)
    starts = opts.get("start_squares")
    if starts is not None:
        if (
            not isinstance(starts, list)
            or len(starts) != 2
            or not all(isinstance(s, str) for s in starts)
        ):
            raise ProtocolError.of("start_squares_option")
        starts = tuple(starts)
    return GameOptions(
        players=players,
        map=game_map,
        **{spec.field: _bool(opts, spec.field, what) for spec in EXPANSIONS},
        **{v.field: _bool(opts, v.field, what, default=v.default) for v in VARIANTS},
        meeples=meeples,
        copies=copies,
        start_squares=starts,
        seed=seed,
        stack=stack,
    )


def parse_table(data: Any) -> TableSettings:
    """The create request's ``table`` (its clock, stand-in bot, what a timeout does; each has a
    default) -> :class:`TableSettings`; a bad value is ``bad-options`` naming what is wrong."""
    if data is None:
        return TableSettings()
    try:
        return TableSettings.from_json(data)
    except TimeControlError as exc:
        detail = str(exc)
        match exc.reason:
            case "clock_kind":
                raise ProtocolError.of("clock_kind", detail=detail) from None
            case "clock_range":
                raise ProtocolError.of("clock_range", detail=detail) from None
            case "stand_in_bot":
                raise ProtocolError.of("stand_in_bot", detail=detail) from None
            case "on_timeout":
                raise ProtocolError.of("on_timeout", detail=detail) from None
            case "aids":
                raise ProtocolError.of("aids_setting", detail=detail) from None
            case _:  # the shape of the table or its clock
                raise ProtocolError.of("table_shape", detail=detail) from None


def check_map(name: Any, code: str) -> None:
    """Only the bundled maps, by name: a map may also be a file path, which no client may pick."""
    if name is not None and (not isinstance(name, str) or name not in bundled_maps()):
        known = ", ".join(bundled_maps())
        raise ProtocolError.of("unknown_map", code, map=short_repr(name), maps=known)


def options_to_json(options: GameOptions, seed_chosen: bool = False) -> dict[str, Any]:
    """Every option, for storage (includes the seed and stack: never send this to a client),
    and whether the creator chose the seed."""
    data = asdict(options)
    for key in ("stack", "start_squares"):
        if data[key] is not None:
            data[key] = list(data[key])
    data["seed_chosen"] = seed_chosen
    return data


def options_from_json(data: dict[str, Any]) -> GameOptions:
    data = dict(data)
    data.pop("seed_chosen", None)
    data.pop("table", None)  # the table's settings, stored with the options (Room reads them)
    for key in ("stack", "start_squares"):
        if data.get(key) is not None:
            data[key] = tuple(data[key])
    return GameOptions(**data)


def public_options(options: GameOptions, seed_chosen: bool = False) -> dict[str, Any]:
    """The options everyone at the table may know: not the seed, not the stack order."""
    # Players are told that the creator fixed the draw order (an explicit stack, or a seed
    # they chose, from which the engine computes it), not what it is.
    return {
        **rule_options_json(options),
        "fixed_stack": options.stack is not None,
        "fixed_seed": seed_chosen,
    }


# ------------------------------------------------------------------------------ client messages


def parse_client_message(data: Any) -> dict[str, Any]:
    """Check a websocket message's shape; actions are decoded to engine actions in ``actions``."""
    if not isinstance(data, dict):
        raise ProtocolError.of("message_not_object")
    kind = data.get("type")
    if kind == "hello":
        msg = _expect_object(data, "hello", {"type", "token"})
        token = msg.get("token")
        if token is not None and (not isinstance(token, str) or len(token) > 200):
            raise ProtocolError.of("hello_token")
        return msg
    if kind == "ping":
        return _expect_object(data, "ping", {"type"})
    if kind == "act":
        msg = _expect_object(data, "act", {"type", "actions", "ply"})
        return {"type": "act", "actions": parse_actions(msg.get("actions")), "ply": parse_ply(msg)}
    if kind == "hint":
        msg = _expect_object(data, "hint", {"type", "ply"})
        return {"type": "hint", "ply": parse_ply(msg)}
    if kind == "preview":
        msg = _expect_object(data, "preview", {"type", "action", "ply"})
        (action,) = parse_actions([msg.get("action")])
        return {"type": "preview", "action": action, "ply": parse_ply(msg)}
    if kind in ("resign", "return"):
        msg = _expect_object(data, kind, {"type", "ply"})
        return {"type": "seat", "change": kind, "seat": None, "ply": parse_ply(msg)}
    if kind == "stand-in":
        msg = _expect_object(data, kind, {"type", "seat", "ply"})
        return {"type": "seat", "change": kind, "seat": parse_seat(msg), "ply": parse_ply(msg)}
    if kind == "chat":
        text, phrase = parse_chat(_expect_object(data, "chat", {"type", "text", "phrase"}))
        return {"type": "chat", "said": (text, phrase)}
    if kind == "rematch":
        return _expect_object(data, "rematch", {"type"})
    raise ProtocolError.of("unknown_message_type", type=kind)


#: the seat changes a seat may ask for (``timeout`` is the clock's)
SEAT_CHANGES = ("resign", "return", "stand-in")


def parse_seat_change(data: Any) -> dict[str, Any]:
    """The body of ``POST /api/games/{id}/seat``: ``{"change", "seat"?, "ply"}`` as the
    websocket's seat messages are parsed (``seat`` only, and required, for ``stand-in``)."""
    if not isinstance(data, dict) or data.get("change") not in SEAT_CHANGES:
        raise ProtocolError.of("seat_change_request")
    body = dict(data)
    change = body.pop("change")
    if change != "stand-in" and "seat" in body:
        raise ProtocolError.of("seat_change_request")
    return parse_client_message({**body, "type": change})


def parse_seat(data: dict[str, Any]) -> int:
    return _int(data.get("seat"), "seat", 0, MAX_PLAYERS - 1, what="")


def parse_ply(data: dict[str, Any]) -> int:
    """The ``ply`` an action answers: required, so that a captured message cannot be played
    again later (the game has moved on and refuses it as stale)."""
    return _int(data.get("ply"), "ply", 0, MAX_PLY, what="")


def parse_actions(data: Any) -> list[Any]:
    if not isinstance(data, list) or not 1 <= len(data) <= MAX_ACTIONS_PER_MESSAGE:
        raise ProtocolError.of("action_count", max=MAX_ACTIONS_PER_MESSAGE)
    actions = []
    for i, raw in enumerate(data):
        try:
            actions.append(action_from_json(raw))
        except ActionFormatError as exc:
            raise ProtocolError.of("bad_action", action=i + 1, detail=str(exc)) from None
        except (TypeError, ValueError) as exc:
            raise ProtocolError.of("malformed_action", action=i + 1, detail=str(exc)) from None
    return actions


# ------------------------------------------------------------------------------ outgoing


def public_event(event: Event) -> dict[str, Any]:
    """An event as JSON for any seat or spectator.

    The engine's events are public by design (docs/rules.md §3: who bet where is public, a chip's
    value only once flipped; a collected map chip is turned face up), so this is a plain
    conversion; it is the one place to filter should an expansion ever log something private.
    """
    data = event.to_json()
    if not isinstance(event, ScoreEvent):
        data["event"] = data.pop("type")
        data["type"] = "event"
    return data


def public_placements(game: Game) -> list[dict[str, Any]]:
    """Every tile placed by a seat, with the figure put on it, for the move log.

    ``turn`` matches the events' (a tile's own turn count is taken before it is placed), so the
    log can interleave the two; ``ply`` is the placement's index in the history (the figure's is
    the next), so a replay shows each move from its own step.  Only placements and figures are
    told: everything else a seat decides is an event already (a bet placed, face down; wine sold
    or kept), and a bet's chip is hidden, so it never appears here.
    """
    placements: list[dict[str, Any]] = []
    previous = None
    for ply, (_seat, action) in enumerate(game.history):
        if isinstance(action, PlaceTile):
            placed = game.board[encode(action.x, action.y)]
            placements.append(
                {
                    "ply": ply,
                    "turn": placed.turn + 1,
                    "seat": placed.seat,
                    "tile": placed.tile.id,
                    "x": action.x,
                    "y": action.y,
                    "rotation": action.rotation,
                    "figure": None,
                }
            )
        elif isinstance(action, PlaceFigure) and isinstance(previous, PlaceTile):
            # the figure step comes right after its tile (a figure goes on the tile just placed)
            placements[-1]["figure"] = {"figure": action.figure, "location": action.location}
        previous = action
    return placements


def board_info(game: Game) -> dict[str, Any]:
    """The playing area: the open table, or a map's squares, large cities, towns, starts."""
    geometry = game.geometry
    info: dict[str, Any] = {"name": geometry.name, "bounded": geometry.squares is not None}
    if geometry.squares is not None:
        info["squares"] = sorted(decode(p) for p in geometry.squares)
    info["printed"] = [
        {"x": p.x, "y": p.y, "name": p.name, "open": [EDGE_NAMES[e] for e in p.open_edges]}
        for p in geometry.printed
    ]
    game_map = game.map
    if game_map is not None:
        info["title"] = game_map.title
        info["approximate"] = game_map.approximate
        info["width"], info["height"] = game_map.width, game_map.height
        if game_map.geography is not None:
            info["geography"] = game_map.geography.for_board()
        info["towns"] = [
            {"x": x, "y": y, "name": town.name, "grape": town.grape}
            for pos, town in sorted(game_map.towns.items())
            for x, y in (decode(pos),)
        ]
        used = set(getattr(game, "used_start_squares", ()))
        info["start_squares"] = [
            {"name": name, "x": x, "y": y, "used": name in used}
            for name, pos in game_map.start_squares.items()
            for x, y in (decode(pos),)
        ]
    return info
