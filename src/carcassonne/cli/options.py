"""Flags shared by the subcommands that start games (game options; where bot games run), and
checked argument types.

The types (:func:`int_in`, :func:`seconds_in`, :func:`port`) refuse a bad value while the
command line is parsed, with argparse's usual one-line error naming the flag, so no command
starts on a value it would otherwise quietly replace or crash on.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Callable

from ..bots import check_bot_spec, split_bot_specs
from ..expansions.registry import EXPANSIONS, VARIANTS, variant_help
from ..options import MAX_COPIES, MAX_PLAYERS, MIN_PLAYERS, GameOptions
from .errors import CommandError


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (no upper bound if None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {value}")
        return value

    return parse


def seconds_in(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number of seconds more than ``low`` and at most ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if not low < value <= high:
            raise argparse.ArgumentTypeError(f"must be more than {low:g} and at most {high:g}")
        return value

    return parse


#: an argparse type: a TCP port number
port = int_in(0, 65535)


def add_game_options(parser: argparse.ArgumentParser, players: bool = True) -> None:
    group = parser.add_argument_group("game options")
    if players:
        group.add_argument(
            "--players",
            type=int_in(MIN_PLAYERS, MAX_PLAYERS),
            default=2,
            help=f"number of seats ({MIN_PLAYERS}-{MAX_PLAYERS})",
        )
    for spec in EXPANSIONS:
        if spec.map_use != "needs":
            group.add_argument(spec.flag, action="store_true", help=spec.help)
    for variant in VARIANTS:
        group.add_argument(
            variant.flag,
            dest=variant.field,
            action="store_false" if variant.default else "store_true",
            help=variant_help(variant),
        )
    group.add_argument("--map", metavar="NAME", help="play on a map (e.g. 'france')")
    for spec in EXPANSIONS:
        if spec.map_use == "needs":
            group.add_argument(spec.flag, action="store_true", help=spec.help)
    group.add_argument(
        "--meeples",
        type=int_in(1),
        default=None,
        help="meeples per seat (default 7, 9 on a map)",
    )
    group.add_argument(
        "--copies",
        type=int_in(1, MAX_COPIES),
        default=1,
        help=f"copies of the base tile set (1-{MAX_COPIES})",
    )
    group.add_argument(
        "--start-squares",
        metavar="A,B",
        help="map games: the two start squares to use; the first gets the start tile",
    )
    group.add_argument("--seed", type=int, default=None, help="seed for the shuffle")


def options_from_args(args: argparse.Namespace, players: int | None = None) -> GameOptions:
    """The game the flags describe; the engine checks their combination (``GameSetupError``)."""
    starts = None
    if args.start_squares is not None:
        parts = tuple(s.strip() for s in args.start_squares.split(","))
        if len(parts) != 2 or not all(parts):
            raise CommandError("--start-squares takes exactly two names, e.g. Nancy,Limoges")
        starts = parts
    return GameOptions(
        players=players if players is not None else args.players,
        map=args.map,
        **{spec.field: getattr(args, spec.field) for spec in EXPANSIONS},
        **{variant.field: getattr(args, variant.field) for variant in VARIANTS},
        meeples=args.meeples,
        copies=args.copies,
        start_squares=starts,
        seed=args.seed,
    )


def add_runner_options(parser: argparse.ArgumentParser) -> None:
    """``--jobs`` and ``--ray``: where a batch of bot games is played (same results anywhere)."""
    group = parser.add_argument_group("where the games run")
    group.add_argument(
        "--jobs",
        type=int_in(1),
        default=None,
        help="worker processes on this machine (default 1); with --ray local, the CPUs the "
        "local Ray instance may use (default all)",
    )
    group.add_argument(
        "--ray",
        metavar="local|ADDRESS",
        help="play the games as Ray tasks (needs the [ray] extra): 'local' starts Ray on this "
        "machine, ADDRESS joins a running cluster (its head's host:port, or 'auto')",
    )


def runner_settings(args: argparse.Namespace) -> tuple[int, str | None]:
    """The worker count and Ray address ``--jobs`` and ``--ray`` ask for."""
    if args.ray is None:
        return args.jobs or 1, None
    if not args.ray.strip():
        raise CommandError("--ray takes 'local' or the address of a Ray cluster's head")
    if importlib.util.find_spec("ray") is None:
        raise CommandError(
            "--ray needs Ray, which is not installed: pip install 'carcassonne-engine[ray]'"
        )
    return args.jobs or os.cpu_count() or 1, args.ray.strip()


def writable_folder(flag: str, path: str) -> str:
    """Make the folder a flag names, or raise a CommandError saying why it cannot be."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CommandError(f"{flag} {path}: this is a file, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or exc
        raise CommandError(f"{flag} {path}: cannot make this folder: {reason}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CommandError(f"{flag} {path}: the folder is not writable")
    return path


def bot_specs(players: str) -> list[str]:
    """The checked bot specs of a ``--players`` value (a bad one is an error naming the flag)."""
    try:
        return [check_bot_spec(spec) for spec in split_bot_specs(players)]
    except ValueError as exc:
        raise CommandError(f"--players: {exc}") from None
