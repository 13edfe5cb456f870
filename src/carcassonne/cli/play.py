"""`carcassonne play`: a game in the terminal, hotseat humans and/or bots.

The loop asks each seat in turn: a bot's ``choose``, or a human at the keyboard, who sees the
board (:mod:`.render`), the scores, what happened since their last move, and a numbered list of
the legal actions.  Tile placements are grouped by square (lettered on the board) so the list stays
short; any phase an expansion adds is listed generically from its JSON actions, so new phases work
without changes here.  Hidden information is only ever taken from ``game.view(seat)`` of the human
who is deciding.

:func:`play_game` is the whole session with injectable input and output (the tests drive it with
scripted input); :func:`run` is the command.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ..actions import PASS, Pass, PlaceFigure, PlaceTile
from ..bots import BOT_NAMES, Bot, check_bot_spec, make_bot, parse_bot_spec, split_bot_specs
from ..events import Event, ScoreEvent
from ..expansions.actions import SellWine, SettleAgainst
from ..expansions.mapchips import OUTLET_POINTS
from ..formats.actions import ActionFormatError, action_to_json
from ..game import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Game,
    GameOptions,
    GameSummary,
    IllegalAction,
)
from ..tiles import KIND_NAMES, ROTATIONS, TileType, tile_by_id
from .errors import CommandError
from .options import add_game_options, options_from_args
from .panels import PANEL_WRITERS
from .render import (
    PREVIEW_SIZE,
    TILE_SIZE,
    board_columns,
    paint,
    render_board,
    seat_name,
    seat_tag,
    sgr,
    tile_block,
)
from .render_map import map_columns, map_legend, render_map
from .tile_words import describe_tile

HUMAN = "human"
SEAT_KINDS = (HUMAN, *BOT_NAMES)
DEFAULT_OPPONENT = "greedy"
#: the bot that answers ``hint``: the expert, with a think time a player is glad to wait for
DEFAULT_HINTS = "expert:seconds=1"
#: how many moves a hint suggests
HINT_COUNT = 3
#: square labels: letters that are not commands (h, q, u) and not easily misread (l, o, p)
LABEL_LETTERS = "abcdefgijkmnrstvwxyz"
#: tile sizes to try, largest first, until the board fits the terminal
BOARD_SIZES = (TILE_SIZE, (7, 5), (7, 3), (5, 3))
#: score sources that are features on the board (the core's own scoring)
FEATURE_SOURCES = ("city", "road", "inn", "cathedral", "monastery", "garden", "field")
#: what a road with an inn and a city with a cathedral pay per tile (and coat of arms), completed
_MARKED_RATES = {"inn": ("road with an inn", 2), "cathedral": ("city with a cathedral", 3)}
#: public expansion entries longer than this are left to the board and the log
PANEL_PUBLIC_WIDTH = 60

InputFn = Callable[[str], str]


class _Quit(Exception):
    """The player asked to stop (or the input ended)."""


# ----------------------------------------------------------------------------------- command


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "play",
        help="play in the terminal against bots or friends at one keyboard",
        description="Play Carcassonne in the terminal. By default you (Red) play against one "
        "greedy bot. Seats move in the order given; humans share the keyboard (hotseat).",
    )
    parser.add_argument(
        "--seats",
        metavar="LIST",
        help="comma-separated seats in play order, each one of "
        f"{', '.join(SEAT_KINDS)}; a bot may take parameters, e.g. expert:seconds=2 (see "
        f"'carcassonne bots') (default: human,{DEFAULT_OPPONENT}; with --players N: "
        f"one human and N-1 {DEFAULT_OPPONENT} bots)",
    )
    parser.add_argument(
        "--hints",
        metavar="SPEC",
        default=DEFAULT_HINTS,
        help="the expert bot that answers 'hint' with its best moves "
        f"(default {DEFAULT_HINTS}; e.g. expert:seconds=3 for better ones)",
    )
    parser.add_argument(
        "--save", metavar="FILE", help="offer to save the game record to FILE (at the end or on q)"
    )
    parser.add_argument("--no-color", action="store_true", help="plain characters, no colours")
    add_game_options(parser)
    parser.set_defaults(players=None, run=run)


def parse_seats(text: str | None, players: int | None) -> list[str]:
    """Seat kinds from ``--seats`` / ``--players``; raises ValueError naming what is wrong."""
    if text is None:
        count = 2 if players is None else players
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise ValueError(
                f"--players must be between {MIN_PLAYERS} and {MAX_PLAYERS}, not {count}"
            )
        return [HUMAN] + [DEFAULT_OPPONENT] * (count - 1)
    seats = [check_seat(part) for part in split_bot_specs(text)]
    if not seats:
        raise ValueError("--seats names no seat")
    if players is not None and players != len(seats):
        raise ValueError(f"--players {players} does not match the {len(seats)} seats of --seats")
    return seats


def check_seat(kind: str) -> str:
    """``human`` or a bot spec in canonical form; ValueError naming what is wrong."""
    kind = kind.strip()
    if kind.lower() == HUMAN:
        return HUMAN
    if kind.partition(":")[0].strip().lower() not in BOT_NAMES:
        raise ValueError(f"unknown seat {kind!r} in --seats (choose from {', '.join(SEAT_KINDS)})")
    try:
        return check_bot_spec(kind)
    except ValueError as exc:
        raise ValueError(f"seat {kind!r}: {exc}") from None


def check_hint_bot(spec: str) -> str:
    """The canonical spec of the bot giving hints: it must be one that can (the expert)."""
    spec = check_bot_spec(spec)
    if not hasattr(make_bot(spec, 0), "hints"):
        raise ValueError(f"the {parse_bot_spec(spec)[0]} bot gives no hints (use expert)")
    return spec


def run(args: argparse.Namespace) -> int:
    try:
        seats = parse_seats(args.seats, args.players)
        hints = check_hint_bot(args.hints)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    options = options_from_args(args, players=len(seats))
    Game(options)  # a GameSetupError now, before the screen is cleared
    if args.save is not None:
        check_save_path(args.save)
    colour = not args.no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input())
    play_game(options, seats, input, sys.stdout, colour=colour, save_path=args.save, hints=hints)
    return 0


def check_save_path(path: str) -> None:
    """Refuse a ``--save`` target that could never be written, before an hour of play is lost."""
    if os.path.isdir(path):
        raise CommandError(f"--save {path}: this is a folder; give a file name")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise CommandError(f"--save {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(f"--save {path}: the folder {folder} is not writable")


def play_game(
    options: GameOptions,
    seats: Sequence[str],
    input_fn: InputFn = input,
    output: TextIO = sys.stdout,
    *,
    colour: bool = False,
    save_path: str | None = None,
    terminal: tuple[int, int] | None = None,
    hints: str = DEFAULT_HINTS,
) -> Game:
    """Play one game to the end (or until a human quits) and return it.

    ``seats`` are seat kinds in play order (``human`` or a bot spec such as ``greedy`` or
    ``expert:seconds=2``).  A game without seed gets a random one, so that undo (a replay) and
    records reproduce it; it is shown only once the game is over (it fixes the stack's order),
    a seed the player chose stays in the header.  ``terminal`` is (columns, rows) to fit the board
    to; default: the real terminal's.  ``hints`` is the spec of the expert bot that answers a
    human's ``hint``.
    """
    if len(seats) != options.players:
        raise ValueError(f"{len(seats)} seats for a {options.players}-player game")
    seats = [check_seat(kind) for kind in seats]
    hints = check_hint_bot(hints)
    seed_chosen = options.seed is not None
    if options.seed is None and options.stack is None:
        options = options.with_(seed=random.randrange(1 << 31))
    session = _Session(
        options, seats, input_fn, output, colour, save_path, terminal, hints, seed_chosen
    )
    session.play()
    return session.game


# ------------------------------------------------------------------------------ descriptions


def tile_words(tile: TileType) -> str:
    """The tile as players see it, its id in brackets for those who type records:
    ``a monastery with a road [base/A]``."""
    return f"{describe_tile(tile)} [{tile.id}]"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def _format_value(value: Any, names: Sequence[str] = ()) -> str:
    """Any JSON-like value on one line; seat numbers become ``names``, None (hidden) is ``?``."""
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            if key in ("seat", "owner") and isinstance(item, int) and 0 <= item < len(names):
                parts.append(names[item])
            else:
                parts.append(f"{str(key).replace('_', ' ')} {_format_value(item, names)}")
        return ", ".join(parts) or "-"
    if isinstance(value, list | tuple):
        if any(isinstance(item, dict | list | tuple) for item in value):
            return "[" + "; ".join(_format_value(item, names) for item in value) + "]"
        return ", ".join(_format_value(item, names) for item in value) or "-"
    return "?" if value is None else str(value)


def _details(detail: dict[str, Any], names: Sequence[str]) -> str:
    """An event's details as `` at (x, y) (key value, …)``; empty when there are none."""
    rest = dict(detail)
    square = rest.pop("square", None)
    where = f" at ({square[0]}, {square[1]})" if isinstance(square, list | tuple) else ""
    return where + (f" ({_format_value(rest, names)})" if rest else "")


def generic_label(action: Any) -> str:
    """Any action in words from its JSON form: ``recall abbot at (2, 1)``, ``bet chip 3``."""
    try:
        data = action_to_json(action)
    except ActionFormatError:
        return repr(action)
    words = [str(data.pop("type")).replace("-", " ")]
    if "x" in data and "y" in data:
        words.append(f"at ({data.pop('x')}, {data.pop('y')})")
    words += [f"{key} {_format_value(value)}" for key, value in data.items()]
    return " ".join(words)


def decision_label(action: Any) -> str:
    """An expansion's decision as players say it: ``sell one purple wine (chip 2) by export: +5``,
    ``settle the bets at (3, -1) against its road S``; other actions in their generic words."""
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, SellWine):
        chips = "chip" if len(action.chips) == 1 else "chips"
        values = " + ".join(str(value) for value in action.chips)
        buyer = "by export" if action.outlet == "export" else "to the town"
        colour = action.colour.replace("-", " ")
        return f"sell one {colour} wine ({chips} {values}) {buyer}: +{OUTLET_POINTS[action.outlet]}"
    if isinstance(action, SettleAgainst):
        where = f"({action.x}, {action.y})"
        return f"settle the bets at {where} against its {action.kind} {action.location}"
    return generic_label(action)


def figure_label(game: Game, action: Any) -> str:
    """Step-2 options as players say them: ``farmer on field NL``, ``abbot on monastery``."""
    if isinstance(action, Pass):
        return "no figure"
    if not isinstance(action, PlaceFigure) or game.last_placed is None:
        return generic_label(action)
    orientation = game.last_placed.orientation
    kind = KIND_NAMES[orientation.segments[orientation.locations[action.location]].kind]
    figure = "farmer" if action.figure == "meeple" and kind == "field" else action.figure
    if action.location == kind:  # centre features are named by kind
        return f"{figure} on {kind}"
    return f"{figure} on {kind} {action.location}"


def _expansion_sentence(event: ScoreEvent, names: Sequence[str]) -> str | None:
    """A bet settled, a map chip collected, a wine sold or a goods majority as a sentence with
    its own numbers (the web log's wording); None for other events."""
    detail = event.detail
    seat, points = next(iter(event.points.items()), (0, 0))  # these events pay one seat
    square = detail.get("square")
    where = f"({square[0]}, {square[1]})" if isinstance(square, list | tuple) else ""
    if event.source == "bet":
        owner = names[detail["owner"]]
        tiles = _plural(detail["tiles"], "tile")
        outcome = f"wins {detail['paid']}" if detail["paid"] else "loses"
        why = "final scoring" if event.reason == "final" else event.reason
        return (
            f"Bet at {where}: {owner}'s chip {detail['chip']} {outcome} — "
            f"the {detail['feature']} has {tiles} ({why})."
        )
    if event.source == "map-chip":
        colour = str(detail["colour"]).replace("-", " ")
        article = "an" if colour[0] in "aeiou" else "a"
        chip = f"{article} {colour} map chip ({detail['value']})"
        return f"{names[seat]} collects {chip} at {where}: +{points}."
    if event.source == "wine":
        colour = str(detail["colour"]).replace("-", " ")
        values = detail["chips"]
        chips = ("chip " if len(values) == 1 else "chips ") + " + ".join(map(str, values))
        if event.reason == "town":
            town = f"{detail['town']} at {where}"
            return f"{names[seat]} sells {colour} wine ({chips}) in {town}: +{points}."
        return f"{names[seat]} exports {colour} wine ({chips}): +{points}."
    if event.source == "goods":
        tokens = _plural(detail["tokens"], "token")
        return f"{names[seat]} has the most {detail['goods']} ({tokens}): +{points}."
    return None


def describe_event(event: Event, names: Sequence[str]) -> str:
    """One score or game event in plain words, with its breakdown."""
    if not isinstance(event, ScoreEvent):
        if event.type == "discard":
            tile = tile_words(tile_by_id(str(event.detail["tile"])))
            return f"{tile[:1].upper()}{tile[1:]} fits nowhere and was discarded."
        who = f"{names[event.seat]}: " if event.seat is not None else ""
        return f"{who}{event.type.replace('-', ' ')}{_details(event.detail, names)}."
    paid = ", ".join(f"{names[s]} +{p}" for s, p in sorted(event.points.items()))
    value = event.detail.get("value")
    source, reason = event.source, event.reason
    if reason == "abbot-recall":
        square = event.detail.get("square")
        where = f" at ({square[0]}, {square[1]})" if square else ""
        return f"Abbot recalled from the {source}{where}: {paid or 'nobody scores'}."
    sentence = _expansion_sentence(event, names)
    if sentence is not None:
        return sentence
    if source not in FEATURE_SOURCES:
        # another expansion's points: its details say what for
        what = f"{source.replace('-', ' ').capitalize()} {reason.replace('-', ' ')}"
        extra = {k: v for k, v in event.detail.items() if k != "value"}
        return f"{what}{_details(extra, names)}: {paid or 'no points'}."
    if source == "field":
        cities = event.detail.get("completed_cities", 0)
        what = "Field"
        counted = _plural(cities, "completed city", "completed cities")
        # each winner's own rate: 3, or 4 for one whose pig stands there (D45)
        rates = sorted(set(event.detail.get("per_city", {}).values()), reverse=True)
        products = [f"{counted} × {rate} = {cities * rate}" for rate in rates]
        breakdown = " or ".join(products) or f"{counted} = 0"
    else:
        name, rate = _MARKED_RATES.get(source, (source, 0))
        what = name.capitalize() + (" completed" if reason == "completed" else " unfinished")
        if source in ("city", "road", "inn", "cathedral"):
            parts = [_plural(event.tiles, "tile")]
            if event.coats_of_arms:
                parts.append(_plural(event.coats_of_arms, "coat of arms", "coats of arms"))
            if rate:
                parts[-1] += f" × {rate}" if reason == "completed" else " × 0 (unfinished)"
        elif reason == "completed":
            parts = ["surrounded"]
        else:
            parts = [f"1 + {_plural((value or 1) - 1, 'neighbour')}"]
        breakdown = ", ".join(parts) + (f" = {value}" if value is not None else "")
    text = f"{what} ({breakdown})"
    if not event.figures:
        return f"{text}: nobody had a figure there."
    if len(event.figures) > 1:
        counts = ", ".join(f"{names[s]} {n}" for s, n in sorted(event.figures.items()))
        text += f" [figures: {counts}]"
    return f"{text}: {paid or 'nobody scores'}."


# ----------------------------------------------------------------------------------- session


class _Session:
    """One game at the keyboard: the loop, the screens, the input parsing."""

    def __init__(
        self,
        options: GameOptions,
        seats: list[str],
        input_fn: InputFn,
        output: TextIO,
        colour: bool,
        save_path: str | None,
        terminal: tuple[int, int] | None,
        hints: str,
        seed_in_header: bool,
    ) -> None:
        self.options = options
        self.seed_in_header = seed_in_header  # False for a drawn seed: it is told at the end
        self.seats = seats
        self.input_fn = input_fn
        self.out = output
        self.colour = colour
        self.save_path = save_path
        self.width, self.rows = terminal or tuple(shutil.get_terminal_size((100, 40)))
        self.clear = output.isatty() and os.environ.get("TERM") != "dumb"
        self.humans = [s for s, kind in enumerate(seats) if kind == HUMAN]
        seed = options.seed or 0
        self.bots: dict[int, Bot] = {
            s: make_bot(kind, seed * 31 + s) for s, kind in enumerate(seats) if kind != HUMAN
        }
        single = len(self.humans) == 1
        self.names = [
            seat_name(s) + (" (you)" if single else "") if kind == HUMAN else bot_name(s, kind)
            for s, kind in enumerate(seats)
        ]
        # Seeded like the bots, so a hint is the same when asked again after an undo.
        self.hints_spec = hints
        self.hint_seed = seed * 31 + MAX_PLAYERS
        self.game = Game(options)
        self.log: list[str] = []
        self.shown = 0  # log lines already printed (games without humans print as they go)
        self.recap = dict.fromkeys(self.humans, 0)  # human seat -> where its recap starts
        self.reported = len(self.game.events)
        self.last_human: int | None = None
        self.notice = ""  # one line for the next screen (auto-pass, undo…)
        self.input_closed = False

    # -------------------------------------------------------------------------- output

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def tag(self, seat: int) -> str:
        return seat_tag(seat, self.colour) + " " + self.names[seat]

    def bold(self, text: str) -> str:
        return paint(text, sgr(bold=True), self.colour)

    def dim(self, text: str) -> str:
        return paint(text, sgr(245), self.colour)

    def turn_number(self) -> int:
        """The turn being played: ``game.turn`` counts placed tiles, so before placing add one."""
        return self.game.turn + (self.game.phase == "tile")

    # ---------------------------------------------------------------------------- loop

    def play(self) -> None:
        try:
            # self.game, not a local: undo replaces the game.
            while not self.game.is_over:
                seat = self.game.to_move
                if seat in self.bots:
                    self.apply(seat, self.bots[seat].choose(self.game))
                    if not self.humans:
                        self.flush_log()
                    continue
                if self.game.phase == "figure" and self.game.legal_actions() == [PASS]:
                    self.apply(seat, PASS, "no figure (none can go on this tile)")
                    continue
                action = self.ask(seat)
                if action is not None:  # None: undone, ask again
                    self.apply(seat, action)
        except _Quit:
            self.quit()
            return
        self.finish()

    def apply(self, seat: int, action: Any, text: str | None = None) -> None:
        """Apply ``action`` for ``seat`` and log it (``text`` overrides its description)."""
        game = self.game
        if text is None and isinstance(action, PlaceTile):
            tile = tile_words(game.current_tile) if game.current_tile else "?"
            text = f"placed {tile} at ({action.x}, {action.y}), rotation {action.rotation}°"
        elif text is None:
            text = figure_label(game, action)
        phase = game.phase
        game.apply(action)
        if phase == "tile" and seat in self.humans:
            # A human's screens recap the round from their own last turn on.
            self.recap[seat] = len(self.log)
        if phase == "tile":
            self.log.append(self.bold(f"Turn {game.turn}") + f" · {self.tag(seat)} {text}.")
        elif phase == "figure":
            self.log.append(f"  {self.names[seat]}: {text}.")
        # Expansion decisions may be secret (a bet's chip): what they reveal is in the events.
        self.report_events()
        if seat in self.humans:
            self.last_human = seat

    def report_events(self) -> None:
        game = self.game
        final_started = False
        for event in game.events[self.reported :]:
            if isinstance(event, ScoreEvent) and event.reason == "final" and not final_started:
                final_started = True
                self.log.append(self.bold("Final scoring"))
            self.log.append("  " + describe_event(event, self.names))
        self.reported = len(game.events)

    def flush_log(self) -> None:
        for line in self.log[self.shown :]:
            self.say(line)
        self.shown = len(self.log)

    def warn(self, text: str) -> str:
        return paint(text, sgr(203, bold=True), self.colour)

    # -------------------------------------------------------------------------- screen

    def board_lines(self, labels: dict[tuple[int, int], str]) -> list[str]:
        """The board in the largest tile size with which it fits the terminal.

        Preferably the whole board on screen; else the largest that fits the width (scrolling up
        is better than wrapped lines).  A board or map too wide for the terminal even at the
        smallest size is cut to the columns around the action, and says so.  A map's legend
        goes underneath.
        """
        game = self.game
        on_map = game.map is not None
        draw: Callable[..., list[str]] = render_map if on_map else render_board
        boards = [draw(game, self.colour, labels=labels, size=size) for size in BOARD_SIZES]
        legend = map_legend(game, self.colour) if on_map else []
        wide_enough = [b for b in boards if _visible_len(b[-1]) <= self.width]
        chosen = next((b for b in wide_enough if len(b) <= self.rows - 2), None)
        if chosen is not None or wide_enough:
            return (chosen or wide_enough[0]) + legend
        size = BOARD_SIZES[-1]
        first, last = (map_columns if on_map else board_columns)(game, labels, size, self.width)
        cut = draw(game, self.colour, labels=labels, size=size, columns=(first, last))
        whole = max(_visible_len(line) for line in boards[-1])
        goes_on = "┊: the map goes on" if on_map else "‹ ›: the board goes on"
        note = (
            f"Columns {first} to {last} shown ({goes_on}); a terminal {whole} columns wide "
            "shows all of it."
        )
        return cut + legend + [self.dim(line) for line in _wrap("", note, self.width)]

    def scores_lines(self) -> list[str]:
        game = self.game
        # meeples first, then other figure types in the order the supplies list them
        figure_types = list(dict.fromkeys(f for supply in game.supply for f in supply))
        width = max(len(n) for n in self.names) + 2
        # Traders & Builders: every seat's trade goods are public (docs/rules.md §12)
        goods = game.view(None)["expansions"].get("traders_builders", {}).get("goods")
        kinds = list(goods[0]) if goods else []
        header = (
            "   "
            + "Seat".ljust(width)
            + "Score  "
            + "  ".join([f"{f}s left" for f in figure_types] + kinds)
        )
        lines = [self.dim(header)]
        for seat in range(game.players):
            marker = "▶" if seat == game.active and not game.is_over else " "
            counts = "  ".join(
                [str(game.supply[seat].get(f, 0)).rjust(len(f) + 6) for f in figure_types]
                + [str(goods[seat][k]).rjust(len(k)) for k in kinds]
            )
            lines.append(
                f" {marker} {seat_tag(seat, self.colour)} {self.names[seat].ljust(width - 2)}"
                f"{game.scores[seat]:>5}  {counts}"
            )
        return lines

    def panel_lines(self, seat: int) -> list[str]:
        """Expansion panels from the deciding human's own view (others' secrets never get here):
        in sentences for the Bets and Map-Chips (:mod:`.panels`), key by key for the others."""
        game = self.game
        names = [seat_name(s) for s in range(game.players)]
        public = game.view(None)["expansions"]
        lines = []
        for name, panel in game.view(seat)["expansions"].items():
            writer = PANEL_WRITERS.get(name)
            if writer is not None:
                sentences = writer(game, panel, seat, self.colour)
                entries = [line for text in sentences for line in _wrap("  ", text, self.width, 2)]
            else:
                entries = self.panel_entries(panel, public.get(name, {}), names)
            if entries:
                lines.append(self.bold(name.replace("-", " ").capitalize()) + " (your view)")
                lines += entries
        return lines

    def panel_entries(
        self, panel: dict[str, Any], public: dict[str, Any], names: list[str]
    ) -> list[str]:
        """An expansion's view key by key, for expansions without sentences of their own.

        An entry is shown when it is private to this seat (it differs from a spectator's view),
        or when it is public and short; long public entries are what the board and the event
        log already show.
        """
        entries = []
        for key, value in panel.items():
            label = str(key).replace("_", " ")
            text = _format_value(value, names)
            private = public.get(key) != value
            if not private and len(text) > PANEL_PUBLIC_WIDTH:
                continue
            if len(label) + len(text) + 4 <= self.width or not isinstance(value, list):
                entries.append(f"  {label}: {text}")
            else:  # one item a line
                entries.append(f"  {label}:")
                entries += [f"    - {_format_value(item, names)}" for item in value]
        return entries

    def screen(self, seat: int, labels: dict[tuple[int, int], str]) -> None:
        game = self.game
        if self.clear:
            self.out.write("\x1b[H\x1b[2J")
        title = (
            f"Carcassonne · turn {self.turn_number()} · {_plural(len(game.stack), 'tile')} left"
            + (f" · seed {self.options.seed}" if self.seed_in_header else "")
        )
        self.say(self.bold(title))
        # What happened first: on a short terminal the board and the menu stay in view.
        for entry in self.log[self.recap[seat] :]:
            for line in _wrap_log(entry, self.width):
                self.say(line)
        if self.notice:
            self.say(self.notice)
            self.notice = ""
        for line in self.board_lines(labels):
            self.say(line)
        for line in self.scores_lines():
            self.say(line)
        for line in self.panel_lines(seat):
            self.say(line)
        self.say()

    # --------------------------------------------------------------------------- input

    def read(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            self.input_closed = True
            self.say()  # end the prompt's line
            raise _Quit from None
        except KeyboardInterrupt:
            self.say()
            raise _Quit from None

    def handover(self, seat: int) -> None:
        """Hotseat with hidden information: let the next player take the keyboard unseen."""
        if len(self.humans) < 2 or self.last_human in (None, seat):
            return
        game = self.game
        views = [game.view(s)["expansions"] for s in self.humans]
        if all(v == views[0] for v in views):
            return
        if self.clear:
            self.out.write("\x1b[H\x1b[2J")
        self.read(f"Hand the keyboard to {self.names[seat]} and press Enter. ")

    def ask(self, seat: int) -> Any:
        """One decision of a human: an action, or None after undo/help (the loop asks again)."""
        game = self.game
        self.handover(seat)
        self.last_human = seat
        if game.phase == "tile":
            menu: _Menu = _TileMenu(self, seat)
        else:
            menu = _ListMenu(self, seat)
        self.screen(seat, menu.labels)
        for line in menu.lines():
            self.say(line)
        while True:
            text = self.read(f"{seat_name(seat)}> ").strip()
            word = text.lower()
            if word in ("q", "quit", "exit"):
                raise _Quit
            if word in ("h", "help", "?"):
                self.say(self.help_text())
                continue
            if word in ("u", "undo"):
                if self.undo():
                    return None
                continue
            if word in ("hint", "hints"):
                for line in self.hint_lines(seat, menu):
                    self.say(line)
                continue
            if not word:
                self.say(menu.hint)
                continue
            action = menu.parse(word)
            if isinstance(action, str):
                self.say(self.warn(action))
                continue
            if action not in game.legal_actions():
                # Typed rather than picked (e.g. an equivalent rotation of a symmetric tile):
                # let the engine judge it on a copy, so a refusal leaves the game untouched.
                try:
                    game.copy().apply(action)
                except IllegalAction as exc:
                    self.say(self.warn(f"Not allowed: {exc}"))
                    continue
            return action

    def hint_lines(self, seat: int, menu: _Menu) -> list[str]:
        """The expert's best moves for ``seat`` with their expected lead; other humans are told
        in the log that a hint was used (it is no secret at the table)."""
        bot = make_bot(self.hints_spec, self.hint_seed + self.game.turn)
        hints = bot.hints(self.game, HINT_COUNT)  # type: ignore[attr-defined]
        if len(self.humans) > 1:
            self.log.append(f"  {self.names[seat]} asked for a hint.")
        lines = [self.bold(f"Hints ({self.hints_spec}):")]
        for n, hint in enumerate(hints, 1):
            lead = hint.expected_points
            if hint.samples:
                worth = f"expected lead {lead:+.1f} points over the best opponent"
            else:
                worth = "the only move"
            lines.append(f"  {n}. {menu.describe(hint.action)}  ({worth})")
        return lines

    def help_text(self) -> str:
        if self.colour:
            ground = (
                paint("  ", sgr(bg=137), True)
                + " city   "
                + paint("  ", sgr(bg=64), True)
                + " field   "
            )
        else:
            ground = "# city   . field   "
        figures = "  ".join(
            f"{seat_tag(s, self.colour)} {seat_name(s)}" for s in range(self.game.players)
        )
        return "\n".join(
            [
                self.bold("How to play"),
                "  Place the drawn tile next to the others so that every touching edge matches",
                "  (city to city, road to road, field to field). Then you may put a figure on one",
                "  free feature of that tile. Finished roads, cities and monasteries score at",
                "  once; fields and unfinished features score at the end.",
                self.bold("Typing moves"),
                "  placing a tile: a move number (3), a square letter and rotation (b 90),",
                "                  or x y rotation (2 -1 180); a letter alone if one rotation fits",
                "  other steps:    an option number; 0 or p passes when passing is allowed",
                "  hint  the expert's best moves    u undo your last move    h this help    q quit",
                self.bold("The board"),
                f"  {ground}│ ─ road   ~ river   [M] monastery   (*) garden   <$> betting office",
                "  ♦ coat of arms   ⌂ inn   † cathedral   ┏ ┛ corners: the tile placed last",
                "  dotted squares with letters: where the drawn tile fits",
                f"  figures: {figures} (lowercase: abbot; doubled: large meeple;"
                " ^ builder, @ pig in their seat's colour; w g c: trade goods)",
            ]
        )

    def undo(self) -> bool:
        """Take back the last human action and everything after it, by replaying the rest."""
        history = self.game.history
        human = set(self.humans)
        cut = max((i for i, (s, _) in enumerate(history) if s in human), default=None)
        if cut is None:
            self.say(self.warn("Nothing to undo yet."))
            return False
        game = Game(self.options)
        for _, action in history[:cut]:
            game.apply(action)
        self.game = game
        self.reported = len(game.events)
        self.recap = dict.fromkeys(self.humans, len(self.log))  # the undone lines are history
        self.last_human = None
        self.notice = f"Undone: back to turn {self.turn_number()}, {game.phase} step."
        return True

    # ------------------------------------------------------------------------- the end

    def finish(self) -> None:
        game = self.game
        if self.clear:
            self.out.write("\x1b[H\x1b[2J")
        seed = f" · seed {self.options.seed}" if self.options.seed is not None else ""
        self.say(self.bold(f"Carcassonne · game over{seed}"))
        for line in self.board_lines({}):
            self.say(line)
        self.say()
        start = min(self.recap.values(), default=self.shown)
        for entry in self.log[start:]:
            for line in _wrap_log(entry, self.width):
                self.say(line)
        self.say()
        summary = GameSummary.of(game)
        sources = [s for s in FEATURE_SOURCES if any(s in b for b in summary.by_source)]
        sources += sorted({s for b in summary.by_source for s in b} - set(sources))
        width = max(len(n) for n in self.names) + 2
        self.say(self.bold("Final scores"))
        columns = [max(len(s), 4) + 2 for s in sources]
        header = "".join(s.rjust(w) for s, w in zip(sources, columns, strict=True))
        self.say(self.dim("   " + "Seat".ljust(width) + "Total" + header))
        for seat in sorted(range(game.players), key=lambda s: -game.scores[s]):
            by = summary.by_source[seat]
            points = "".join(
                str(by.get(s, 0)).rjust(w) for s, w in zip(sources, columns, strict=True)
            )
            self.say(
                f"   {seat_tag(seat, self.colour)} {self.names[seat].ljust(width - 2)}"
                f"{game.scores[seat]:>5}{points}"
            )
        winners = [self.names[s] for s in game.winners()]
        if len(winners) == 1:
            self.say(self.bold(f"\n{winners[0]} wins!"))
        else:
            self.say(self.bold(f"\nShared victory: {' and '.join(winners)}."))
        self.offer_save("Save the game record to")

    def quit(self) -> None:
        self.say("Game stopped.")
        if self.input_closed:
            return
        self.offer_save("Save the unfinished game to")

    def offer_save(self, question: str) -> None:
        if not self.save_path:
            return
        replacing = " (replacing it)" if os.path.exists(self.save_path) else ""
        try:
            answer = self.input_fn(f"{question} {self.save_path}{replacing}? [Y/n] ").strip()
        except (EOFError, KeyboardInterrupt):
            return
        if answer.lower() not in ("", "y", "yes"):
            return
        try:
            from ..formats.record import save_record
        except ImportError:
            self.say(self.warn("Saving records is not available in this version."))
            return
        seats = [{"name": seat_name(s), "kind": kind} for s, kind in enumerate(self.seats)]
        try:
            save_record(self.game, self.save_path, seats)
        except (OSError, ValueError) as exc:
            self.say(self.warn(f"Could not save: {exc}"))
            return
        self.say(f"Saved to {self.save_path}.")


def bot_name(seat: int, spec: str) -> str:
    """``Blue (expert bot, seconds 2.0)``: the seat's colour and what plays it."""
    name, params = parse_bot_spec(spec)
    details = "".join(f", {key} {value}" for key, value in params.items())
    return f"{seat_name(seat)} ({name} bot{details})"


def _visible_len(text: str) -> int:
    out, skip = 0, False
    for ch in text:
        if ch == "\x1b":
            skip = True
        elif skip:
            skip = ch != "m"
        else:
            out += 1
    return out


# ------------------------------------------------------------------------------------ menus


class _Menu:
    labels: dict[tuple[int, int], str] = {}
    hint = "Type an option number, or h for help."

    def lines(self) -> list[str]:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        """The chosen action, or an error message (str)."""
        raise NotImplementedError

    def describe(self, action: Any) -> str:
        """``action`` as the player would type it, and in words."""
        raise NotImplementedError


def _columns(entries: list[str], width: int, gap: int = 3) -> list[str]:
    """Entries in as many columns as fit ``width``, filled down then across (like ``ls``)."""
    if not entries:
        return []
    lengths = [_visible_len(e) for e in entries]
    for ncols in range(len(entries), 0, -1):
        nrows = -(-len(entries) // ncols)
        ncols = -(-len(entries) // nrows)
        widths = [max(lengths[c * nrows : (c + 1) * nrows]) for c in range(ncols)]
        if 2 + sum(widths) + gap * (ncols - 1) <= width or ncols == 1:
            break
    rows = []
    for r in range(nrows):
        cells = []
        for c in range(ncols):
            i = c * nrows + r
            if i < len(entries):
                pad = widths[c] - lengths[i] + gap if c < ncols - 1 else 0
                cells.append(entries[i] + " " * pad)
        rows.append(("  " + "".join(cells)).rstrip())
    return rows


def _wrap(prefix: str, text: str, width: int, hang: int = 0) -> list[str]:
    """``prefix`` + ``text`` wrapped at spaces to ``width`` visible columns (colour codes take
    none); later lines start under the text, ``hang`` columns further in."""
    if _visible_len(prefix + text) <= width:
        return [prefix + text]
    indent = " " * (_visible_len(prefix) + hang)
    lines, line, empty = [], prefix, True
    for word in text.split():
        if not empty and _visible_len(f"{line} {word}") > width:
            lines.append(line)
            line, empty = indent, True
        line, empty = (line + word if empty else f"{line} {word}"), False
    return [*lines, line]


def _wrap_log(line: str, width: int) -> list[str]:
    """A log line wrapped to ``width``, its later lines indented under its first word."""
    text = line.lstrip(" ")
    return _wrap(line[: len(line) - len(text)], text, width, 4)


def _with_commands(hint: str, width: int) -> list[str]:
    commands = "hint · h help · u undo · q quit"
    if len(hint) + 2 + len(commands) <= width:
        return [f"{hint}  {commands}"]
    return [hint, commands]


def _label(n: int) -> str:
    letters = LABEL_LETTERS
    if n < len(letters):
        return letters[n]
    return letters[n // len(letters) - 1] + letters[n % len(letters)]


class _TileMenu(_Menu):
    """Step 1: placements numbered, grouped by square; squares lettered on the board."""

    hint = 'Type a move number, a square and rotation ("b 90"), or "x y rotation".'

    def __init__(self, session: _Session, seat: int) -> None:
        self.session = session
        self.seat = seat
        game = session.game
        self.moves: list[PlaceTile] = sorted(
            game.legal_actions(), key=lambda a: (a.y, a.x, a.rotation)
        )
        self.squares: dict[tuple[int, int], list[PlaceTile]] = {}
        for move in self.moves:
            self.squares.setdefault((move.x, move.y), []).append(move)
        self.labels = {sq: _label(i) for i, sq in enumerate(self.squares)}
        self.by_label = {label: sq for sq, label in self.labels.items()}

    def lines(self) -> list[str]:
        s = self.session
        tile = s.game.current_tile
        assert tile is not None
        rotations = sorted({m.rotation for m in self.moves})
        out = _wrap(s.tag(self.seat) + ": ", f"place {tile_words(tile)}.", s.width)
        out.append("It fits in these rotations:")
        blocks = [tile_block(tile.orientations[r // 90], (), s.colour) for r in rotations]
        out.append("  " + "".join(f"{r}°".center(TILE_SIZE[0] + 3) for r in rotations))
        for row in range(TILE_SIZE[1]):
            out.append("  " + "".join(" " + b[row] + "  " for b in blocks))
        out.append("Moves by square (letters on the board):")
        entries = []
        number = 1
        names = {sq: f"({sq[0]}, {sq[1]}):" for sq in self.squares}
        pad = max(len(n) for n in names.values())
        for square, moves in self.squares.items():
            label = s.bold(self.labels[square].rjust(2))
            options = []
            for move in moves:
                options.append(f"{number:>2}) {move.rotation}°")
                number += 1
            entries.append(f"{label} {names[square].ljust(pad)} " + "  ".join(options))
        out += _columns(entries, s.width)
        out += [s.dim(line) for line in _with_commands(self.hint, s.width)]
        return out

    def parse(self, text: str) -> Any:
        tokens = (
            text.replace(",", " ").replace("(", " ").replace(")", " ").replace("°", " ").split()
        )
        tile = self.session.game.current_tile
        assert tile is not None
        if len(tokens) == 1 and tokens[0].lstrip("-").isdigit():
            n = int(tokens[0])
            if 1 <= n <= len(self.moves):
                return self.moves[n - 1]
            return f"There is no move {n}: choose 1 to {len(self.moves)}."
        if tokens and tokens[0] in self.by_label:
            square = self.by_label[tokens[0]]
            return self._at(square, tokens[1:], f"square {tokens[0]}")
        if len(tokens) in (2, 3) and all(_is_int(t) for t in tokens):
            square = (int(tokens[0]), int(tokens[1]))
            if square not in self.squares:
                if square in {(p.xy) for p in self.session.game.board.values()}:
                    return f"Square {square} already holds a tile."
                return f"This tile fits nowhere at {square}: pick a lettered square."
            return self._at(square, tokens[2:], str(square))
        return f"I did not understand {text!r}. " + self.hint

    def describe(self, action: Any) -> str:
        label = self.labels[(action.x, action.y)]
        return (
            f"{label} {action.rotation}: square {label} at ({action.x}, {action.y}), "
            f"rotation {action.rotation}°"
        )

    def _at(self, square: tuple[int, int], rest: list[str], name: str) -> Any:
        moves = self.squares[square]
        choices = ", ".join(f"{m.rotation}°" for m in moves)
        if not rest:
            if len(moves) == 1:
                return moves[0]
            example = f"{name.split()[-1]} {moves[1].rotation}"
            return f"Several rotations fit on {name} ({choices}): add one, e.g. {example}."
        if len(rest) > 1 or not _is_int(rest[0]):
            return f"After {name} type a rotation ({choices})."
        rotation = int(rest[0])
        if rotation not in ROTATIONS:
            return "A rotation is 0, 90, 180 or 270 (degrees clockwise)."
        for move in moves:
            if move.rotation == rotation:
                return move
        # Symmetric tiles list one rotation of each shape; the engine accepts the equal ones.
        return PlaceTile(square[0], square[1], rotation)


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()


class _ListMenu(_Menu):
    """Step 2 and every expansion phase: the legal actions, numbered; pass is 0."""

    def __init__(self, session: _Session, seat: int) -> None:
        self.session = session
        self.seat = seat
        game = session.game
        legal = list(game.legal_actions())
        self.passing = PASS in legal
        others = [a for a in legal if a != PASS]
        self.options: dict[int, Any] = dict(enumerate(others, start=1))
        if self.passing:
            self.options[0] = PASS
        self.figure_phase = game.phase == "figure"
        self.hint = "Type an option number" + (", or 0 / p to pass." if self.passing else ".")

    def label(self, action: Any) -> str:
        if self.figure_phase:
            return figure_label(self.session.game, action)
        return decision_label(action)

    def lines(self) -> list[str]:
        s = self.session
        game = s.game
        out = []
        if self.figure_phase and game.last_placed is not None:
            placed = game.last_placed
            x, y = placed.xy
            question = f"place a figure on the tile at ({x}, {y})? The numbers show where each "
            out += _wrap(f"{s.tag(self.seat)}: ", question + "option stands.", s.width)
            marks: dict[str, str] = {}
            for n, action in sorted(self.options.items()):
                if isinstance(action, PlaceFigure):
                    marks.setdefault(action.location, _mark(n))
            for row in tile_block(placed.orientation, (), s.colour, marks=marks, size=PREVIEW_SIZE):
                out.append("    " + row)
        else:
            out.append(f"{s.tag(self.seat)}: {game.phase.replace('-', ' ')} — choose:")
        entries = [f"{n:>2}) {self.label(a)}" for n, a in sorted(self.options.items())]
        out += _columns(entries, s.width)
        out += [s.dim(line) for line in _with_commands(self.hint, s.width)]
        return out

    def describe(self, action: Any) -> str:
        number = next(n for n, a in self.options.items() if a == action)
        return f"{number}: {self.label(action)}"

    def parse(self, text: str) -> Any:
        if text in ("p", "pass", "n", "none"):
            return PASS if self.passing else "Passing is not allowed now."
        if _is_int(text):
            n = int(text)
            if n in self.options:
                return self.options[n]
            return f"There is no option {n}: choose {min(self.options)} to {max(self.options)}."
        return f"I did not understand {text!r}. " + self.hint


def _mark(n: int) -> str:
    return str(n) if n < 10 else chr(ord("a") + n - 10)
