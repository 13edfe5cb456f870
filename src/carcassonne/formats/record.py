"""Game records (``carcassonne-record/1``): a whole game as JSON a person can type, and its replay.

A record is to Carcassonne what PGN is to chess: the setup (options, seats, seed or stack) and one
entry per turn (who drew which tile, where it went, which figure was placed), plus every further
decision taken in that turn, as the generic JSON actions of :mod:`.actions`.  The engine is
deterministic given its options and actions, so replaying a record rebuilds the game exactly,
scores and events included.  The format is documented in ``docs/record-format.md``; the JSON
Schema ``schema/record.schema.json`` describes the same shape (it is used by the tests; the
runtime checks here are written by hand so the engine keeps no dependencies and every error names
the move and what is wrong).

Where the tiles come from, in order of precedence:

* ``stack``: the explicit draw order (``GameOptions.stack``); the game ends when it is empty.
* ``seed``: the engine shuffles the enabled tile sets from the seed; each move's tile must be the
  tile the engine drew.
* neither (a physical game typed in): the tiles named by the moves and discards, in order, then
  the rest of the enabled sets in the fixed shuffle of seed 0, so a record that stops early still
  replays to a game that can go on.

A game played at a table (issue 24) may add its ``table`` settings (the clock, the stand-in, what
a timeout does), the ``changes`` of who played each seat (stand-in, return, resign, timeout),
each turn's ``ms`` (the time each decision took) and ``result.standings`` (the places, with the
seats that left ranked last).  Records without them read as before.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..actions import PASS, Pass, PlaceFigure, PlaceTile
from ..bots import BOT_NAMES, check_bot_spec
from ..clocks import TimeControlError
from ..expansions import build_expansions
from ..expansions.abbot import RecallAbbot
from ..expansions.actions import Action
from ..game import MAX_COPIES, Game, GameOptions, IllegalAction
from ..options import DEFAULT_ON, SWITCHES
from ..quoting import short_repr
from ..replaying import ReplayError, replay_onto
from ..standings import SeatChange, TableRecord, TableSettings, ranking, statuses
from ..tiles import ROTATIONS, tile_by_id
from .actions import ActionFormatError, action_from_json, action_to_json

RECORD_FORMAT = "carcassonne-record/1"
#: a thousand times the biggest game's record (6 seats, 3 copies: tens of kB)
MAX_RECORD_BYTES = 16 << 20
#: the shuffle that orders the tiles a typed-in game never named
PHYSICAL_SEED = 0

_TOP_KEYS = {
    "format",
    "info",
    "options",
    "seats",
    "seed",
    "stack",
    "map_start_tile",
    "table",
    "changes",
    "moves",
    "result",
}
_BOOL_OPTIONS = (*SWITCHES, *DEFAULT_ON)
#: options written only when they differ from their default, so that older records (and the
#: records of games without them) read and write as before
_OPTIONAL_OPTIONS = {
    "inns_cathedrals": False,
    "small_city_scores_2": False,
    "farmers": True,
    "plain_unfinished_inns_cathedrals": False,
    "inns": True,
    "cathedrals": True,
    "traders_builders": False,
}
_OPTION_KEYS = {"players", "map", "meeples", "copies", "start_squares", *_BOOL_OPTIONS}
_TURN_KEYS = {
    "seat",
    "tile",
    "x",
    "y",
    "rotation",
    "figure",
    "recall",
    "actions",
    "ms",
    "comment",
}
_DISCARD_KEYS = {"discard", "comment"}


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message names where and why."""


@dataclass(frozen=True, slots=True)
class Seat:
    name: str | None
    kind: str

    def label(self, index: int) -> str:
        return self.name if self.name else f"seat {index}"


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn: the drawn tile, its placement, step 2, and the decisions taken before the next."""

    number: int  # 1-based position in ``moves``, as error messages name it
    seat: int
    tile: str
    place: PlaceTile
    #: the step-2 action (a figure, PASS, or the abbot's recall); None = not taken yet
    step2: Any
    actions: tuple[tuple[int, Any], ...]
    #: the time each decision of the turn took (one per ply, in order); None: not recorded
    ms: tuple[int, ...] | None = None

    @property
    def where(self) -> str:
        return f"move {self.number} (seat {self.seat}, {self.tile})"

    @property
    def plies(self) -> int:
        """The actions this turn holds: the placement, step 2 (once taken), the decisions."""
        return 1 + (self.step2 is not None) + len(self.actions)


@dataclass(frozen=True, slots=True)
class Discard:
    """A drawn tile that fit nowhere and was removed from the game (docs/rules.md §1 step 1)."""

    number: int
    tile: str

    @property
    def where(self) -> str:
        return f"move {self.number} (discard {self.tile})"


Move = Turn | Discard


@dataclass(frozen=True)
class Record:
    """A checked record: what :func:`replay_record` needs, and the seats for display."""

    options: GameOptions
    seats: tuple[Seat, ...]
    moves: tuple[Move, ...]
    result: dict[str, Any] | None
    info: dict[str, str]
    #: map games: the land tile on the second start square (docs/rules.md D7)
    map_start_tile: str | None = None
    #: a game played at a table: its settings, seat changes and times (None: none recorded)
    table: TableRecord | None = None


# ---------------------------------------------------------------------------------- reading


def read_record(source: str | os.PathLike[str] | Mapping[str, Any]) -> Record:
    """Read and check a record (a path to a JSON file, or the decoded JSON) without replaying it."""
    if isinstance(source, Mapping):
        return parse_record(source)
    path = Path(source)
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_RECORD_BYTES + 1)  # bounded: the path may be /dev/zero
    except OSError as exc:
        raise RecordError(f"{path}: cannot read the record: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"{path}: more than {MAX_RECORD_BYTES >> 20} MiB, too big for a record")
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark, as some editors write, is fine
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"{path}: not a text file (byte {exc.start} is not UTF-8); a record is JSON text"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    return parse_record(data)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    names: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
    return names.get(type(value), repr(value))


def _keys(obj: Any, where: str, allowed: set[str], required: tuple[str, ...] = ()) -> None:
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: must be a JSON object, not {_type_name(obj)}")
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise RecordError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    for key in required:
        if key not in obj:
            raise RecordError(f"{where}: missing {key!r}")


def _int(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj[key]
    if not _is_int(value):
        raise RecordError(f"{where}: {key!r} must be a whole number, not {_type_name(value)}")
    return value


def _str(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj[key]
    if not isinstance(value, str) or not value:
        raise RecordError(f"{where}: {key!r} must be a non-empty string, not {_type_name(value)}")
    return value


def _tile_id(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise RecordError(f"{where}: a tile id must be a string, not {_type_name(value)}")
    try:
        tile_by_id(value)
    except KeyError:
        raise RecordError(
            f"{where}: unknown tile {short_repr(value)} (ids look like 'base/E')"
        ) from None
    return value


def parse_record(data: Any) -> Record:
    """Check the shape of decoded record JSON; every error names the key or move at fault."""
    # The format first: a file of another kind is named as such, not picked apart key by key.
    if isinstance(data, dict) and data.get("format", RECORD_FORMAT) != RECORD_FORMAT:
        raise RecordError(
            f"record: 'format' must be {RECORD_FORMAT!r}, not {short_repr(data['format'])}: "
            "this is not a Carcassonne game record"
        )
    _keys(data, "record", _TOP_KEYS, ("format", "moves"))
    info = data.get("info", {})
    if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
        raise RecordError("record: 'info' must be an object of strings")
    seats = _parse_seats(data.get("seats"))
    options = _parse_options(data.get("options", {}), seats)
    seed = data.get("seed")
    if seed is not None and not _is_int(seed):
        raise RecordError(f"record: 'seed' must be a whole number or null, not {_type_name(seed)}")
    stack = data.get("stack")
    if stack is not None:
        if not isinstance(stack, list):
            raise RecordError(
                f"record: 'stack' must be a list of tile ids, not {_type_name(stack)}"
            )
        stack = tuple(_tile_id(t, f"stack entry {i + 1}") for i, t in enumerate(stack))
    options = options.with_(seed=seed, stack=stack)
    map_start_tile = data.get("map_start_tile")
    if map_start_tile is not None:
        if options.map is None:
            raise RecordError("record: 'map_start_tile' is only for map games")
        map_start_tile = _tile_id(map_start_tile, "record: 'map_start_tile'")
    # Expansions register their action types when loaded; their decisions are parsed below.
    build_expansions(options)
    moves = data["moves"]
    if not isinstance(moves, list):
        raise RecordError(f"record: 'moves' must be a list, not {_type_name(moves)}")
    parsed = _parse_moves(moves, options.players)
    for move in parsed[:-1]:
        if isinstance(move, Turn) and move.step2 is None:
            raise RecordError(
                f"{move.where}: no 'figure' (write \"figure\": null for none); only the last "
                "move may stop before its figure step"
            )
    result = _parse_result(data.get("result"), options.players)
    table = _parse_table(data, parsed, seats, options.players)
    if result is not None and "standings" in result and table is None:
        raise RecordError("result: 'standings' come with the seat 'changes', which are missing")
    return Record(options, seats, parsed, result, info, map_start_tile, table)


def _parse_moves(moves: list[Any], players: int) -> tuple[Move, ...]:
    return tuple(_parse_move(raw, i + 1, players) for i, raw in enumerate(moves))


def _parse_seats(raw: Any) -> tuple[Seat, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise RecordError(f"record: 'seats' must be a list, not {_type_name(raw)}")
    seats = []
    for i, seat in enumerate(raw):
        where = f"seats[{i}]"
        _keys(seat, where, {"name", "kind"})
        name = _str(seat, "name", where) if "name" in seat else None
        kind = seat.get("kind", "human")
        if kind != "human":
            try:
                kind = check_bot_spec(kind)
            except ValueError as exc:
                raise RecordError(
                    f"{where}: 'kind' must be human or a bot spec ({', '.join(BOT_NAMES)}, "
                    f"optionally with parameters): {exc}"
                ) from None
        seats.append(Seat(name, kind))
    return tuple(seats)


def _parse_options(raw: Any, seats: tuple[Seat, ...]) -> GameOptions:
    where = "options"
    _keys(raw, where, _OPTION_KEYS)
    values: dict[str, Any] = {}
    for key in _BOOL_OPTIONS:
        if key in raw:
            if not isinstance(raw[key], bool):
                raise RecordError(f"{where}: {key!r} must be true or false")
            values[key] = raw[key]
    for key in ("players", "copies"):
        if key in raw:
            values[key] = _int(raw, key, where)
    if not 1 <= values.get("copies", 1) <= MAX_COPIES:
        raise RecordError(f"{where}: 'copies' must be from 1 to {MAX_COPIES}")
    for key, check in (("map", _str), ("meeples", _int)):
        if raw.get(key) is not None:
            values[key] = check(raw, key, where)
    starts = raw.get("start_squares")
    if starts is not None:
        if not (
            isinstance(starts, list)
            and len(starts) == 2
            and all(isinstance(s, str) for s in starts)
        ):
            raise RecordError(f"{where}: 'start_squares' must be a list of two square names")
        values["start_squares"] = tuple(starts)
    if seats:
        players = values.setdefault("players", len(seats))
        if players != len(seats):
            raise RecordError(f"record: 'seats' lists {len(seats)} for {players} players")
    return GameOptions(**values)


def _parse_move(raw: Any, number: int, players: int) -> Move:
    where = f"move {number}"
    if isinstance(raw, dict) and "discard" in raw:
        _keys(raw, where, _DISCARD_KEYS)
        return Discard(number, _tile_id(raw["discard"], where))
    _keys(raw, where, _TURN_KEYS, ("seat", "tile", "x", "y", "rotation"))
    seat = _seat(raw, where, players)
    tile = _tile_id(raw["tile"], where)
    where = f"move {number} (seat {seat}, {tile})"
    x, y, rotation = (_int(raw, key, where) for key in ("x", "y", "rotation"))
    if rotation not in ROTATIONS:
        raise RecordError(f"{where}: 'rotation' must be 0, 90, 180 or 270, not {rotation}")
    step2: Any = None
    if "figure" in raw:
        step2 = _parse_figure(raw["figure"], where)
    if "recall" in raw:
        if step2 not in (None, PASS):
            raise RecordError(f"{where}: a turn has a figure or an abbot recall, not both")
        recall = raw["recall"]
        _keys(recall, f"{where}: 'recall'", {"x", "y"}, ("x", "y"))
        step2 = RecallAbbot(_int(recall, "x", where), _int(recall, "y", where))
    actions = raw.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError(f"{where}: 'actions' must be a list, not {_type_name(actions)}")
    if actions and step2 is None:
        raise RecordError(f"{where}: 'actions' come after the figure step, which is missing")
    decisions = tuple(
        _parse_decision(entry, f"{where}, action {i + 1}", players)
        for i, entry in enumerate(actions)
    )
    turn = Turn(number, seat, tile, PlaceTile(x, y, rotation), step2, decisions)
    if "ms" not in raw:
        return turn
    ms = raw["ms"]
    if not (isinstance(ms, list) and all(_is_int(value) and value >= 0 for value in ms)):
        raise RecordError(
            f"{where}: 'ms' must be a list of whole numbers from 0 (milliseconds), "
            f"not {short_repr(ms)}"
        )
    if len(ms) != turn.plies:
        raise RecordError(
            f"{where}: 'ms' lists {len(ms)} times for the {turn.plies} decisions of this turn "
            "(one per decision: the placement, the figure step, then each action)"
        )
    return Turn(number, seat, tile, turn.place, step2, decisions, tuple(ms))


def _seat(obj: dict[str, Any], where: str, players: int) -> int:
    seat = _int(obj, "seat", where)
    if not 0 <= seat < players:
        raise RecordError(f"{where}: seat {seat} does not exist (seats are 0 to {players - 1})")
    return seat


def _parse_figure(raw: Any, where: str) -> Any:
    if raw is None:
        return PASS
    where = f"{where}: 'figure'"
    _keys(raw, where, {"type", "location"}, ("type", "location"))
    return PlaceFigure(_str(raw, "type", where), _str(raw, "location", where))


def _parse_decision(raw: Any, where: str, players: int) -> tuple[int, Any]:
    _keys(raw, where, {"seat", "action"}, ("seat", "action"))
    try:
        action = action_from_json(raw["action"])
    except ActionFormatError as exc:
        raise RecordError(f"{where}: {exc}") from None
    return _seat(raw, where, players), action


def _parse_result(raw: Any, players: int) -> dict[str, Any] | None:
    if raw is None:
        return None
    _keys(raw, "result", {"scores", "finished", "standings"})
    scores = raw.get("scores")
    if scores is not None and not (
        isinstance(scores, list) and len(scores) == players and all(_is_int(s) for s in scores)
    ):
        raise RecordError(f"result: 'scores' must be a list of {players} whole numbers")
    if "finished" in raw and not isinstance(raw["finished"], bool):
        raise RecordError("result: 'finished' must be true or false")
    if "standings" in raw:
        places = raw["standings"]
        seats = (
            sorted(seat for place in places for seat in place)
            if isinstance(places, list)
            and all(
                isinstance(place, list) and place and all(map(_is_int, place)) for place in places
            )
            else None
        )
        if seats != list(range(players)):
            raise RecordError(
                "result: 'standings' must list the places from first to last, each a list of "
                f"seats, every seat from 0 to {players - 1} once"
            )
    return dict(raw)


def _parse_table(
    data: dict[str, Any], moves: tuple[Move, ...], seats: tuple[Seat, ...], players: int
) -> TableRecord | None:
    """The table's settings, seat changes and times, if the record has any."""
    turns = [move for move in moves if isinstance(move, Turn)]
    timed = [turn.ms is not None for turn in turns]
    if any(timed) and not all(timed):
        missing = turns[timed.index(False)]
        raise RecordError(f"{missing.where}: no 'ms', while other moves have their times")
    if "table" not in data and "changes" not in data and not any(timed):
        return None
    try:
        settings = TableSettings.from_json(data.get("table", {}))
    except TimeControlError as exc:
        message = str(exc) if str(exc).startswith("table") else f"table: {exc}"
        raise RecordError(f"record: {message}") from None
    raw = data.get("changes", [])
    if not isinstance(raw, list):
        raise RecordError(f"record: 'changes' must be a list, not {_type_name(raw)}")
    changes = []
    for i, entry in enumerate(raw):
        try:
            changes.append(SeatChange.from_json(entry, f"changes[{i}]"))
        except ValueError as exc:
            raise RecordError(str(exc)) from None
    plies = sum(turn.plies for turn in turns)
    _check_changes(changes, settings, seats, players, plies, turns)
    spent = tuple(ms for turn in turns for ms in turn.ms or ())
    return TableRecord.of(settings, changes, spent)


def _check_changes(
    changes: Sequence[SeatChange],
    settings: TableSettings,
    seats: Sequence[Seat],
    players: int,
    plies: int,
    turns: Sequence[Turn],
) -> None:
    """Changes that could have happened at this table, in this game; else an error naming the
    change and the move it happened in."""
    for i, change in enumerate(changes):
        where = f"changes[{i}] ({change.change} of seat {change.seat} at ply {change.ply}"
        where += f", {_move_at_ply(turns, change.ply)})"
        if change.ply > plies:
            raise RecordError(f"{where}: the moves hold only {plies} actions")
        if seats and change.seat < len(seats) and seats[change.seat].kind != "human":
            raise RecordError(f"{where}: seat {change.seat} is a bot, only people leave a seat")
        if change.change == "timeout" and (
            not settings.control.timed or settings.on_timeout != "lose"
        ):
            raise RecordError(
                f"{where}: a timeout ranks a seat last only on a timed table with "
                '"on_timeout": "lose"'
            )
        try:
            statuses(changes[: i + 1], players)
        except ValueError as exc:
            raise RecordError(f"{where}: {str(exc).partition(': ')[2]}") from None


def _move_at_ply(turns: Sequence[Turn], ply: int) -> str:
    """Where ``ply`` actions had been taken, for messages: before which move's decision."""
    taken = 0
    for turn in turns:
        if ply < taken + turn.plies:
            return f"in {turn.where}"
        taken += turn.plies
    return "after the last move"


# ---------------------------------------------------------------------------------- replaying


def load_record(source: str | os.PathLike[str] | Mapping[str, Any]) -> Game:
    """Read a record and replay it; raises :class:`RecordError` and returns nothing on error."""
    return replay_record(read_record(source))


def replay_record(record: Record) -> Game:
    """Rebuild the game a checked record describes, checking every move against the engine."""
    options = record.options
    if options.stack is None and options.seed is None:
        options = options.with_(stack=_physical_stack(record), seed=PHYSICAL_SEED)
    try:
        game = Game(options)
    except (ValueError, KeyError, OSError) as exc:
        raise RecordError(f"setup: {exc}") from None
    if record.map_start_tile is not None and record.map_start_tile != _map_start_tile(game):
        raise RecordError(
            f"setup: the record puts {record.map_start_tile} on the second start square, but the "
            f"game puts {_map_start_tile(game)} there"
        )
    source = _draw_source(record.options)
    drawn = 0  # how many of game.draws the record has accounted for
    for move in record.moves:
        if isinstance(move, Discard):
            drawn = _check_discard(game, move, drawn)
        else:
            drawn = _check_draw(game, move, drawn, source)
            _replay_turn(game, move)
    if record.result is not None:
        _check_result(game, record.result, record.table)
    return game


def _draw_source(options: GameOptions) -> str:
    if options.stack is not None:
        return "the record's stack"
    if options.seed is not None:
        return f"the shuffle of seed {options.seed}"
    return "the tiles the record names"


def _physical_stack(record: Record) -> tuple[str, ...]:
    """The draw order of a typed-in game: the named tiles, then the rest (seed-0 shuffle).

    On a map the tile on the second start square comes first: the engine puts the top of the
    stack there (docs/rules.md D7).
    """
    options = record.options
    if options.map is not None and (options.start_squares is None or not record.map_start_tile):
        raise RecordError(
            "setup: a map game typed in without 'seed' or 'stack' must give "
            "options.start_squares and 'map_start_tile' (the tile on the second start square)"
        )
    try:
        reference = Game(options.with_(seed=PHYSICAL_SEED, stack=None))
    except (ValueError, KeyError, OSError) as exc:
        raise RecordError(f"setup: {exc}") from None
    # the draw order of the reference game: what it drew while setting up, then its stack
    pool = [tile for tile, _ in reference.draws] + [tile.id for tile in reversed(reference.stack)]
    named: list[str] = []
    entries: list[tuple[str, str]] = []  # (where, tile) for every tile the record names
    if record.map_start_tile is not None:
        pool.append(_map_start_tile(reference))  # type: ignore[arg-type]
        entries.append(("record: 'map_start_tile'", record.map_start_tile))
    entries.extend((move.where, move.tile) for move in record.moves)
    available = Counter(pool)
    used: Counter[str] = Counter()
    for where, tile in entries:
        named.append(tile)
        used[tile] += 1
        if used[tile] > available[tile]:
            held = available[tile]
            if held == 0:
                reason = (
                    f"{tile} is not in this game's tile sets ({', '.join(reference.tile_sets())})"
                )
            else:
                reason = f"{tile} is named more often than the enabled tile sets hold ({held})"
            raise RecordError(f"{where}: {reason}")
    rest = []
    for tile in pool:
        if used[tile]:
            used[tile] -= 1
        else:
            rest.append(tile)
    return (*named, *rest)


def _map_start_tile(game: Game) -> str | None:
    """The tile the engine put on the second start square of a map game (None: none there)."""
    if game.map is None:
        return None
    placed = game.board.get(game.map.start_squares[game.used_start_squares[1]])
    return placed.tile.id if placed is not None else None


def _check_discard(game: Game, move: Discard, drawn: int) -> int:
    draws = game.draws
    if drawn >= len(draws):
        raise RecordError(f"{move.where}: {_no_draw_reason(game)}, so there is nothing to discard")
    tile, discarded = draws[drawn]
    if tile != move.tile:
        got = "was discarded" if discarded else "was drawn and can be placed"
        raise RecordError(
            f"{move.where}: wrong discard: the record discards {move.tile}, but {tile} {got}"
        )
    if not discarded:
        raise RecordError(
            f"{move.where}: wrong discard: {tile} fits on the board, so it is not discarded "
            "(a tile is discarded only if it fits nowhere)"
        )
    return drawn + 1


def _no_draw_reason(game: Game) -> str:
    if game.is_over:
        return "the game is over (no tiles left)"
    return f"seat {game.to_move} must still decide '{game.phase}' (list it in the 'actions')"


def _check_draw(game: Game, move: Turn, drawn: int, source: str) -> int:
    draws = game.draws
    if game.phase != "tile" or drawn >= len(draws):
        raise RecordError(f"{move.where}: {_no_draw_reason(game)}")
    tile, discarded = draws[drawn]
    if discarded:
        raise RecordError(
            f"{move.where}: {tile} fits nowhere and was discarded before this turn; the record "
            f'must list {{"discard": "{tile}"}} here'
        )
    if tile != move.tile:
        raise RecordError(
            f"{move.where}: tile mismatch: the record says {move.tile}, but {source} "
            f"draws {tile} here"
        )
    if move.seat != game.active:
        raise RecordError(f"{move.where}: it is seat {game.active}'s turn, not seat {move.seat}'s")
    return drawn + 1


def _replay_turn(game: Game, move: Turn) -> None:
    _apply(game, move.place, move.where)
    if move.step2 is None:
        return
    _apply(game, move.step2, move.where)
    for i, (seat, action) in enumerate(move.actions):
        where = f"{move.where}, action {i + 1}"
        if game.phase in ("tile", "over"):
            state = "the game is over" if game.is_over else "the next turn has begun"
            raise RecordError(f"{where}: no decision is pending ({state})")
        if seat != game.to_move:
            raise RecordError(
                f"{where}: seat {game.to_move} decides '{game.phase}' now, not seat {seat}"
            )
        _apply(game, action, where)


def _apply(game: Game, action: Action, where: str) -> None:
    """One action of the record, for the seat to move: the record's own checks, with their own
    messages, said which seat that must be."""
    try:
        replay_onto(game, ((game.to_move, action),))
    except ReplayError as exc:
        if not isinstance(exc.cause, IllegalAction):
            raise exc.cause from None  # an engine fault, not the record's: as it came
        raise RecordError(f"{where}: illegal {_describe(action)}: {exc.cause}") from None


def _describe(action: Any) -> str:
    if isinstance(action, PlaceTile):
        return f"placement at ({action.x}, {action.y}) rotation {action.rotation}"
    if isinstance(action, PlaceFigure):
        return f"{action.figure} on {action.location}"
    if isinstance(action, RecallAbbot):
        return f"abbot recall from ({action.x}, {action.y})"
    return f"action {json.dumps(action_to_json(action))}"


def _check_result(game: Game, result: dict[str, Any], table: TableRecord | None) -> None:
    scores = result.get("scores")
    if scores is not None and list(scores) != game.scores:
        raise RecordError(
            f"result: the record says scores {scores}, the replay gives {game.scores}"
        )
    finished = result.get("finished")
    if finished is not None and finished != game.is_over:
        state = "is over" if game.is_over else "is not over"
        raise RecordError(
            f"result: the record says finished={str(finished).lower()}, but the game {state}"
        )
    standings = result.get("standings")
    if standings is not None and table is not None:
        places = standings_of(game, table)
        if standings != places:
            raise RecordError(
                f"result: the record says standings {standings}, the replay and the seat "
                f"changes give {places}"
            )


def standings_of(game: Game, table: TableRecord) -> list[list[int]]:
    """The places of ``game`` at its table: by score, the seats that left last."""
    return ranking(game.scores, statuses(table.changes, game.players))


# ---------------------------------------------------------------------------------- writing


def record_from_game(
    game: Game,
    seats: Sequence[Mapping[str, str] | Seat] | None = None,
    table: TableRecord | None = None,
) -> dict[str, Any]:
    """The record of ``game`` so far (options, seats, every move and discard, the result).

    Every :class:`Game` has a seed (one is drawn when none is given), so the record reproduces
    the draw order and any other setup chance, such as the Map-Chips layout.  ``table``: the
    game was played at a table; its settings, seat changes and times (``spent_ms``: one per
    action of the game, or none) are written too, with the standings when a seat changed hands.
    """
    options = game.options
    record: dict[str, Any] = {"format": RECORD_FORMAT, "options": options_to_json(options)}
    if seats:
        # The seats go through the reader's checks, so a written record always reads back.
        checked = _parse_seats([_seat_json(seat) for seat in seats])
        if len(checked) != game.players:
            raise RecordError(f"{len(checked)} seats given for {game.players} players")
        record["seats"] = [_seat_json(seat) for seat in checked]
    record["seed"] = options.seed
    if options.stack is not None:
        record["stack"] = list(options.stack)
    spent: Sequence[int] = ()
    if table is not None:
        spent = table.spent_ms
        if spent and len(spent) != len(game.history):
            raise RecordError(
                f"table: {len(spent)} times (spent_ms) for the {len(game.history)} actions"
            )
        record["table"] = table.settings.to_json()
        if table.changes:
            record["changes"] = [change.to_json() for change in table.changes]
    record["moves"] = _moves_json(game, spent)
    record["result"] = {"scores": list(game.scores), "finished": game.is_over}
    if table is not None:
        # A written record always reads back: the table's part goes through the reader's checks.
        written = _parse_seats(record.get("seats"))
        _parse_table(record, _parse_moves(record["moves"], game.players), written, game.players)
        if table.changes:
            record["result"]["standings"] = standings_of(game, table)
    return record


def options_to_json(options: GameOptions) -> dict[str, Any]:
    """The rule options of a game as JSON (no seed, no stack: the record keeps those apart)."""
    optional = {
        key: getattr(options, key)
        for key, default in _OPTIONAL_OPTIONS.items()
        if getattr(options, key) != default
    }
    return {
        **optional,
        "players": options.players,
        "river": options.river,
        "abbot": options.abbot,
        "bets": options.bets,
        "map": options.map,
        "map_chips": options.map_chips,
        "meeples": options.meeples,
        "copies": options.copies,
        "start_squares": list(options.start_squares) if options.start_squares else None,
    }


def _seat_json(seat: Mapping[str, str] | Seat) -> dict[str, Any]:
    if isinstance(seat, Seat):
        return {"kind": seat.kind} if seat.name is None else {"name": seat.name, "kind": seat.kind}
    return dict(seat)


def _moves_json(game: Game, spent_ms: Sequence[int] = ()) -> list[dict[str, Any]]:
    """The moves of ``game``; with ``spent_ms`` (one per action), each turn's ``ms`` last."""
    draws = game.draws
    drawn = 0
    moves: list[dict[str, Any]] = []
    turn: dict[str, Any] = {}
    times: dict[int, list[int]] = {}  # id of a turn's dict -> its times, added at the end
    step2_due = False
    for ply, (seat, action) in enumerate(game.history):
        if isinstance(action, PlaceTile):
            while draws[drawn][1]:
                moves.append({"discard": draws[drawn][0]})
                drawn += 1
            x, y, rotation = action
            turn = {"seat": seat, "tile": draws[drawn][0], "x": x, "y": y, "rotation": rotation}
            drawn += 1
            moves.append(turn)
            step2_due = True
        elif step2_due:
            turn.update(_step2_json(action))
            step2_due = False
        else:
            turn.setdefault("actions", []).append({"seat": seat, "action": action_to_json(action)})
        if spent_ms:
            times.setdefault(id(turn), []).append(spent_ms[ply])
    moves.extend({"discard": tile} for tile, discarded in draws[drawn:] if discarded)
    for move in moves:
        if id(move) in times:
            move["ms"] = times[id(move)]
    return moves


def _step2_json(action: Any) -> dict[str, Any]:
    if isinstance(action, Pass):
        return {"figure": None}
    if isinstance(action, PlaceFigure):
        return {"figure": {"type": action.figure, "location": action.location}}
    if isinstance(action, RecallAbbot):
        return {"recall": {"x": action.x, "y": action.y}}
    raise RecordError(f"cannot record step-2 action {action!r}")


def save_record(
    game: Game,
    path: str | os.PathLike[str],
    seats: Sequence[Mapping[str, str] | Seat] | None = None,
    table: TableRecord | None = None,
) -> None:
    """Write the record of ``game`` as indented JSON, one move per line."""
    Path(path).write_text(dumps_record(record_from_game(game, seats, table)), encoding="utf-8")


def dumps_record(record: dict[str, Any]) -> str:
    """Record JSON laid out for people: the setup indented, then each move on one line."""
    head = json.dumps({key: value for key, value in record.items() if key != "moves"}, indent=2)
    moves = ",\n    ".join(json.dumps(move) for move in record["moves"])
    body = f"[\n    {moves}\n  ]" if moves else "[]"
    return f'{head[:-2]},\n  "moves": {body}\n}}\n'
