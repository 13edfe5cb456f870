"""`carcassonne serve` (placeholder until implemented)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser("serve", help="serve (not implemented yet)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    print("not implemented yet")
    return 1
