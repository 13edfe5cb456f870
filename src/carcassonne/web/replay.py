"""Game records and replays for the web: download a finished game, step through any record.

Records use the project's ``carcassonne-record/1`` format (``formats/record.py``).  A record
holds the seed, so it would reveal the draw order of a game still being played: only finished
games can be downloaded or replayed from the server (an uploaded record is its owner's already).
A replay is a list of frames, one per action, each with the spectator's view at that point and
the events the action caused, so the browser steps back and forth without an engine.  Frames are
compact: the first holds the whole view, each later one only what changed (:func:`view_delta`),
so a long game's replay is a small multiple of its final view rather than one view per action.
A finished game's replay never changes, so it is built once and kept, encoded, in a
:class:`ReplayCache`.

A finished game has nothing left to hide: in its frames every betting chip on an office is face
up (taken from its owner's own view), so one can follow how each bet came about.  A replay of an
unfinished record keeps them face down, as its players saw them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..bots import check_bot_spec
from ..formats.actions import action_to_json
from ..formats.record import RecordError, read_record, replay_record, standings_of
from ..formats.record_writer import dumps_record, record_from_game
from ..game import Game, GameOptions, GameSummary
from ..replaying import Move, replay_onto
from ..standings import TableRecord
from ..views import GameView
from .protocol import (
    MAX_NAME_LENGTH,
    ProtocolError,
    board_info,
    check_map,
    default_seat_name,
    public_event,
    public_options,
    public_placements,
    seat_public,
)
from .rooms import SEAT_COLOURS, Room

#: more actions than any real game has; bounds the work an uploaded record can cause
MAX_REPLAY_ACTIONS = 5000
#: bytes of encoded replays and records kept for finished games
REPLAY_CACHE_BYTES = 32 * 1024 * 1024


class ReplayCache:
    """Encoded answers about finished games (replays, records), which never change: each is
    built once, then served as it is.  The least recently used go beyond ``max_bytes``."""

    def __init__(self, max_bytes: int = REPLAY_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._bodies: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._bodies)

    def get(self, key: tuple[str, str]) -> bytes | None:
        body = self._bodies.get(key)
        if body is not None:
            self._bodies.move_to_end(key)
        return body

    def put(self, key: tuple[str, str], body: bytes) -> None:
        if key in self._bodies or len(body) > self.max_bytes:
            return
        self._bodies[key] = body
        self.size += len(body)
        while self.size > self.max_bytes:
            _, dropped = self._bodies.popitem(last=False)
            self.size -= len(dropped)


def _require_finished(room: Room) -> None:
    if not room.game.is_over:
        raise ProtocolError.of("not_finished")


def _record_seats(room: Room) -> list[dict[str, str]]:
    return [
        {"name": s["name"], "kind": s["bot"] if s["kind"] == "bot" else "human"} for s in room.seats
    ]


def table_record(room: Room) -> TableRecord:
    """What the record keeps of the room's table: settings, seat changes, each ply's time."""
    seating = room.table.seating
    return TableRecord.of(seating.settings, seating.changes, seating.clocks.spent_ms)


def record_of(room: Room) -> dict[str, Any]:
    _require_finished(room)
    return record_from_game(
        room.game, _record_seats(room), table=table_record(room), check_bot=check_bot_spec
    )


def record_file(room: Room) -> bytes:
    """The record as ``carcassonne simulate --save-records`` writes it: one move a line."""
    return dumps_record(record_of(room)).encode("utf-8")


def frames_of_room(room: Room) -> dict[str, Any]:
    _require_finished(room)
    seats = [seat_public(i, s["name"], s["kind"], s["bot"]) for i, s in enumerate(room.seats)]
    replayed = frames(
        room.game.options, room.game.history, seats, reveal=True, seed_chosen=room.seed_chosen
    )
    standings = room.table.seating.standings(replayed["summary"]["scores"])
    # the seats' chat, kept with the game (the spectators' stays theirs)
    with_table = _with_table(replayed, table_record(room), standings, room.table.winners())
    return {**with_table, "chat": room.chat.seats_chat()}


def _with_table(
    replayed: dict[str, Any], table: TableRecord, standings: list[list[int]], winners: list[int]
) -> dict[str, Any]:
    """Replay frames with the game's table: its settings, seat changes, each ply's time, and
    the places (the winners follow them when seats left)."""
    return {
        **replayed,
        "summary": {**replayed["summary"], "winners": winners, "standings": standings},
        "table": table.settings.to_json(),
        "changes": [change.to_json() for change in table.changes],
        "spent_ms": list(table.spent_ms),
        "standings": standings,
    }


def frames_of_record(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError.of("record_not_object")
    try:
        record = read_record(data, check_bot_spec)
    except RecordError as exc:
        raise ProtocolError.of("bad_record", detail=str(exc)) from None
    if len(record.moves) > MAX_REPLAY_ACTIONS:
        raise ProtocolError.of("record_too_long", max=MAX_REPLAY_ACTIONS)
    for i, seat in enumerate(record.seats):
        # the lobby's limit: a name is drawn in the score panel and every log line
        if seat.name is not None and len(seat.name) > MAX_NAME_LENGTH:
            raise ProtocolError.of("record_seat_name", seat=i + 1, max=MAX_NAME_LENGTH)
    # The server's own limit: the bundled maps only (a record's map may be a file path).
    # The record format bounds the copies (MAX_COPIES), which bounds the frames' size.
    check_map(record.options.map, "bad-record")
    try:
        game = replay_record(record)
    except RecordError as exc:
        raise ProtocolError.of("bad_record", detail=str(exc)) from None
    seats = []
    for i, seat in enumerate(record.seats):
        # A record names a bot seat's kind by the bot ("greedy"); an unnamed seat gets the
        # default name, which the page shows in the viewer's language.
        kind, bot = ("human", None) if seat.kind == "human" else ("bot", seat.kind)
        seats.append(seat_public(i, seat.name or default_seat_name(i, kind, bot), kind, bot))
    replayed = frames(game.options, game.history, seats, reveal=game.is_over)
    table = record.table
    if table is None:
        return replayed
    standings = standings_of(game, table)
    winners = standings[0] if table.changes else replayed["summary"]["winners"]
    return _with_table(replayed, table, standings, winners)


def revealed_view(game: Game) -> GameView:
    """The spectator's view with every betting chip on an office face up.

    Each seat's own view shows the values of its own chips (docs/rules.md D2), so the owners' views
    together reveal them all.  Only for games that are over: while a game runs this is exactly
    what a seat must not see.
    """
    view = game.view(None)
    bets = view["expansions"].get("bets")
    if not bets or not bets["offices"]:
        return view
    (expansion,) = (e for e in game.expansions if e.name == "bets")
    own: dict[int, list[dict[str, Any]]] = {}
    for office_index, office in enumerate(bets["offices"]):
        for chip_index, chip in enumerate(office["chips"]):
            seat = chip["seat"]
            if seat not in own:
                own[seat] = expansion.view(game, seat)["offices"]
            chip["chip"] = own[seat][office_index]["chips"][chip_index]["chip"]
    return view


def view_delta(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """How to get ``after`` from ``before``, both JSON objects: ``set`` holds the values that
    changed, ``append`` the items added at the end of lists that only grew (the tiles, the
    figures), ``patch`` the deltas of objects that changed inside (the expansions), ``drop`` the
    keys that went away; empty parts are left out.  The browser applies it (``expandFrames``)
    as :func:`apply_delta` does."""
    changed: dict[str, Any] = {}
    appended: dict[str, Any] = {}
    patched: dict[str, Any] = {}
    for key, value in after.items():
        if key in before:
            old = before[key]
            if old == value:
                continue
            if isinstance(old, dict) and isinstance(value, dict):
                patched[key] = view_delta(old, value)
                continue
            if isinstance(old, list) and isinstance(value, list) and value[: len(old)] == old:
                appended[key] = value[len(old) :]
                continue
        changed[key] = value
    parts = {
        "set": changed,
        "append": appended,
        "patch": patched,
        "drop": [key for key in before if key not in after],
    }
    return {name: part for name, part in parts.items() if part}


def apply_delta(before: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The object after ``delta`` (what the browser does; for tests and Python clients)."""
    after = {**before, **delta.get("set", {})}
    for key, items in delta.get("append", {}).items():
        after[key] = before[key] + items
    for key, inner in delta.get("patch", {}).items():
        after[key] = apply_delta(before[key], inner)
    for key in delta.get("drop", ()):
        del after[key]
    return after


def frames(
    options: GameOptions,
    moves: Sequence[Move],
    seats: list[dict[str, Any]],
    *,
    reveal: bool = False,
    seed_chosen: bool = False,
) -> dict[str, Any]:
    """Replay ``moves`` (``Game.history``'s) from the start, keeping the spectator's view after
    each one (with ``reveal``, every betting chip face up: for games that are over)."""
    game = Game(options)
    if not seats:
        seats = [
            seat_public(i, default_seat_name(i, "human", None), "human", None)
            for i in range(game.players)
        ]
    shown = 0
    out = []

    previous: GameView | None = None

    def frame(seat: int | None, action: Any) -> None:
        nonlocal shown, previous
        view = revealed_view(game) if reveal else game.view(None)
        entry: dict[str, Any] = {
            "seat": seat,
            "action": None if action is None else action_to_json(action),
            "events": [public_event(e) for e in game.events[shown:]],
        }
        if previous is None:
            entry["view"] = view
        else:
            entry["delta"] = view_delta(previous, view)
        out.append(entry)
        previous = view
        shown = len(game.events)

    def framed() -> Iterator[Move]:
        for seat, action in moves:
            yield seat, action
            frame(seat, action)  # the replay asks for the next move once this one is applied

    frame(None, None)
    replay_onto(game, framed())
    summary = GameSummary.of(game)
    return {
        "game": {
            "seats": [{**s, "seat": i, "colour": SEAT_COLOURS[i]} for i, s in enumerate(seats)],
            "options": public_options(options, seed_chosen),
            "board": board_info(game),
        },
        "frames": out,
        "placements": public_placements(game),
        "summary": {
            "scores": summary.scores,
            "by_source": summary.by_source,
            "winners": game.winners() if game.is_over else [],
            "over": game.is_over,
        },
        "revealed": reveal,
    }
