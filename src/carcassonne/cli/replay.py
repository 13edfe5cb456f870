"""`carcassonne replay` (placeholder until implemented)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser("replay", help="replay (not implemented yet)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    print("not implemented yet")
    return 1
