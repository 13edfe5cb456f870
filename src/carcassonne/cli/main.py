"""Entry point of the ``carcassonne`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="carcassonne",
        description="Carcassonne: base game (C3), River, Abbot, The Bets, France map with "
        "Map-Chips. Play in the terminal or the browser, simulate bot games, replay records.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    from . import play, replay, serve, simulate

    for module in (play, simulate, replay, serve):
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
