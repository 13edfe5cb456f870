"""`carcassonne bots`: the ladder's levels and the bots on offer, and what a seat spec takes."""

from __future__ import annotations

import argparse

from ..bots import BOT_NAMES, bot_description, bot_parameters
from ..bots.levels import LEVELS


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "bots",
        help="list the levels, the bots and the parameters they take",
        description="List the ladder's levels (weakest first) and the bots with their "
        "parameters. A seat names a level (casual) or a bot by a spec, "
        "name:key=value,key=value, e.g. expert:seconds=0.5 or greedy:seed=3 (in play --seats, "
        "simulate and tournament --players).",
    )
    parser.set_defaults(run=run)


def describe_bots() -> list[str]:
    width = max(len(level.name) for level in LEVELS)
    lines = ["Levels, weakest first (each beats the one below in about 65-80 % of games):", ""]
    for rank, level in enumerate(LEVELS, 1):
        lines.append(f"{rank}. {level.name:<{width}}  {level.description}")
        lines.append(f"   {'':<{width}}  = {level.spec}")
    lines += ["", "Bots (a seat spec is name:key=value,key=value, e.g. expert:seconds=0.5):", ""]
    for name in BOT_NAMES:
        lines.append(f"{name}: {bot_description(name)}")
        for parameter in bot_parameters(name):
            default = "" if parameter.default is None else f" = {parameter.default}"
            head = f"  {parameter.name} ({parameter.type.__name__}{default})"
            lines.append(f"{head:<28} {parameter.help}")
        lines.append("")
    lines.append("Examples: carcassonne play --seats human,casual")
    lines.append("          carcassonne simulate --players expert:seconds=0.1,greedy --games 30")
    return lines


def run(args: argparse.Namespace) -> int:
    print("\n".join(describe_bots()))
    return 0
