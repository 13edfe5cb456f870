"""Game-option flags shared by every subcommand that starts games."""

from __future__ import annotations

import argparse

from ..game import GameOptions


def add_game_options(parser: argparse.ArgumentParser, players: bool = True) -> None:
    group = parser.add_argument_group("game options")
    if players:
        group.add_argument("--players", type=int, default=2, help="number of seats (2-6)")
    group.add_argument("--river", action="store_true", help="play with the River (C3 box)")
    group.add_argument("--abbot", action="store_true", help="play with the Abbot (C3 box)")
    group.add_argument("--bets", action="store_true", help="play with The Bets")
    group.add_argument("--map", metavar="NAME", help="play on a map (e.g. 'france')")
    group.add_argument(
        "--map-chips", action="store_true", help="play with the map's Map-Chips (needs --map)"
    )
    group.add_argument(
        "--meeples", type=int, default=None, help="meeples per seat (default 7, 9 on a map)"
    )
    group.add_argument("--copies", type=int, default=1, help="copies of the base tile set")
    group.add_argument(
        "--start-squares",
        metavar="A,B",
        help="map games: the two start squares to use; the first gets the start tile",
    )
    group.add_argument("--seed", type=int, default=None, help="seed for the shuffle")


def options_from_args(args: argparse.Namespace, players: int | None = None) -> GameOptions:
    starts = None
    if getattr(args, "start_squares", None):
        parts = tuple(s.strip() for s in args.start_squares.split(","))
        if len(parts) != 2:
            raise SystemExit("--start-squares takes exactly two names, e.g. Nancy,Limoges")
        starts = parts
    return GameOptions(
        players=players if players is not None else args.players,
        river=args.river,
        abbot=args.abbot,
        bets=args.bets,
        map=args.map,
        map_chips=args.map_chips,
        meeples=args.meeples,
        copies=args.copies,
        start_squares=starts,  # type: ignore[arg-type]
        seed=args.seed,
    )
