"""`carcassonne play`: a game in the terminal, hotseat humans and/or bots.

This module is the command: its arguments, the seats (``human`` or a bot spec, in play order)
and the checks made before the screen is cleared.  The game itself is a :class:`.session.Session`
(the loop, the screens and the input); the menus are in :mod:`.menus`, the wording of tiles,
actions and events in :mod:`.wording`.

:func:`play_game` is the whole game with injectable input and output (the tests drive it with
scripted input); :func:`run` is the command.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import random
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from ..bots import SPEC_NAMES, check_bot_spec, make_hinting_bot, split_bot_specs
from ..bots.expert import HINT_BOT
from ..clocks import PRESETS, TimeControlError, parse
from ..game import MAX_PLAYERS, MIN_PLAYERS, Game, GameOptions
from ..standings import DEFAULT_STAND_IN, ON_TIMEOUT, STAND_IN_BOTS, TableSettings
from .errors import CommandError
from .options import add_game_options, options_from_args
from .session import HUMAN, InputFn, Session, wall_clock_ms
from .table import ClockFn

SEAT_KINDS = (HUMAN, *SPEC_NAMES)
DEFAULT_OPPONENT = "greedy"


def register(commands: argparse._SubParsersAction) -> None:
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
        f"{', '.join(SEAT_KINDS)} (a level of the ladder, weakest first, or a bot); a bot may "
        "take parameters, e.g. expert:seconds=2 (see "
        f"'carcassonne bots') (default: human,{DEFAULT_OPPONENT}; with --players N: "
        f"one human and N-1 {DEFAULT_OPPONENT} bots)",
    )
    parser.add_argument(
        "--hints",
        metavar="SPEC",
        default=HINT_BOT,
        help="the expert bot that answers 'hint' with its best moves "
        f"(default {HINT_BOT}; e.g. expert:seconds=3 for better ones)",
    )
    parser.add_argument(
        "--save", metavar="FILE", help="offer to save the game record to FILE (at the end or on q)"
    )
    parser.add_argument(
        "--clock",
        metavar="TIME",
        default="none",
        help="the human seats' clocks: none (default), a real-time preset "
        f"({', '.join(k for k in PRESETS if '+' in k)}: minutes + seconds per turn) or any "
        "<minutes>+<seconds>, a turn-based bank "
        f"({', '.join(k for k in PRESETS if '+' not in k)}: + 1 day per move, capped) or "
        "<days>d[+<hours>h]",
    )
    parser.add_argument(
        "--on-timeout",
        choices=ON_TIMEOUT,
        default="stand-in",
        help="when a clock runs out: the stand-in bot plays the seat until its player takes it "
        "back (stand-in, default), or the seat is ranked last (lose)",
    )
    parser.add_argument(
        "--stand-in",
        choices=STAND_IN_BOTS,
        default=DEFAULT_STAND_IN,
        help=f"the bot that plays a seat that resigned or ran out of time (default "
        f"{DEFAULT_STAND_IN})",
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
    if kind.partition(":")[0].strip().lower() not in SPEC_NAMES:
        raise ValueError(f"unknown seat {kind!r} in --seats (choose from {', '.join(SEAT_KINDS)})")
    try:
        return check_bot_spec(kind)
    except ValueError as exc:
        raise ValueError(f"seat {kind!r}: {exc}") from None


def check_hint_bot(spec: str) -> str:
    """The canonical spec of the bot giving hints: it must be one that can (the expert)."""
    spec = check_bot_spec(spec)
    make_hinting_bot(spec, 0)
    return spec


def run(args: argparse.Namespace) -> int:
    try:
        seats = parse_seats(args.seats, args.players)
        hints = check_hint_bot(args.hints)
        table = table_from_args(args)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    options = options_from_args(args, players=len(seats))
    Game(options)  # a GameSetupError now, before the screen is cleared
    if args.save is not None:
        check_save_path(args.save)
    colour = not args.no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input())
    play_one = functools.partial(
        play_game,
        input_fn=input,
        output=sys.stdout,
        colour=colour,
        save_path=args.save,
        hints=hints,
        table=table,
    )
    play_games(options, seats, input, play_one)
    return 0


PLAY_AGAIN = "Play again with the seats rotated (the second player starts)? [y/N] "


def play_games(
    options: GameOptions,
    seats: Sequence[str],
    input_fn: InputFn,
    play_one: Callable[[GameOptions, Sequence[str]], Game],
) -> list[Game]:
    """Play games by ``play_one`` (:func:`play_game` with the session's settings) until the
    players stop: after a game played to its end by at least one person, :data:`PLAY_AGAIN`
    starts the next with the same options (a new random seed: a chosen one would deal the same
    tiles) and table, each seat one earlier, as "Play again" does on the web (``docs/web.md``,
    *Rematch*). The games played, in order."""
    games = []
    while True:
        game = play_one(options, seats)
        games.append(game)
        if not game.is_over or HUMAN not in seats:
            return games
        try:
            again = input_fn(PLAY_AGAIN).strip().lower() in ("y", "yes")
        except (EOFError, KeyboardInterrupt):
            return games
        if not again:
            return games
        seats = [*seats[1:], seats[0]]
        options = options.with_(seed=None)


def table_from_args(args: argparse.Namespace) -> TableSettings:
    """The table settings of ``--clock``, ``--on-timeout`` and ``--stand-in``; ValueError."""
    try:
        control = parse(args.clock)
    except TimeControlError as exc:
        raise ValueError(f"--clock: {exc}") from None
    if args.on_timeout == "lose" and not control.timed:
        raise ValueError("--on-timeout lose needs a --clock (a game without one has no timeout)")
    return TableSettings(control, args.stand_in, args.on_timeout)


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
    hints: str = HINT_BOT,
    table: TableSettings | None = None,
    clock: ClockFn = wall_clock_ms,
) -> Game:
    """Play one game to the end (or until a human quits) and return it.

    ``seats`` are seat kinds in play order (``human`` or a bot spec such as ``greedy`` or
    ``expert:seconds=2``).  A game without seed gets a random one, so that undo (a replay) and
    records reproduce it; it is shown only once the game is over (it fixes the stack's order),
    a seed the player chose stays in the header.  ``terminal`` is (columns, rows) to fit the board
    to; default: the real terminal's.  ``hints`` is the spec of the expert bot that answers a
    human's ``hint``.  ``table``: the clock, stand-in and timeout settings (default: no clock);
    ``clock`` gives the time in milliseconds (the tests' is fake).
    """
    if len(seats) != options.players:
        raise ValueError(f"{len(seats)} seats for a {options.players}-player game")
    seats = [check_seat(kind) for kind in seats]
    hints = check_hint_bot(hints)
    seed_chosen = options.seed is not None
    if options.seed is None and options.stack is None:
        options = options.with_(seed=random.randrange(1 << 31))
    session = Session(
        options,
        seats,
        input_fn,
        output,
        colour,
        save_path,
        terminal,
        hints,
        seed_chosen,
        table=table,
        clock=clock,
    )
    session.play()
    return session.game
