"""`carcassonne bots`: the bots on offer and the parameters each takes in a seat spec."""

from __future__ import annotations

import argparse

from ..bots import BOT_NAMES, bot_description, bot_parameters


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "bots",
        help="list the bots and the parameters they take",
        description="List the bots and their parameters. A seat names a bot by a spec, "
        "name:key=value,key=value, e.g. expert:seconds=0.5 or greedy:seed=3 (in play --seats "
        "and simulate --players).",
    )
    parser.set_defaults(run=run)


def describe_bots() -> list[str]:
    lines = ["Bots (a seat spec is name:key=value,key=value, e.g. expert:seconds=0.5):", ""]
    for name in BOT_NAMES:
        lines.append(f"{name}: {bot_description(name)}")
        for parameter in bot_parameters(name):
            default = "" if parameter.default is None else f" = {parameter.default}"
            head = f"  {parameter.name} ({parameter.type.__name__}{default})"
            lines.append(f"{head:<28} {parameter.help}")
        lines.append("")
    lines.append("Example: carcassonne simulate --players expert:seconds=0.1,greedy --games 30")
    return lines


def run(args: argparse.Namespace) -> int:
    print("\n".join(describe_bots()))
    return 0
