"""`carcassonne simulate`: play many bot games and report who wins, by how much, and from what.

    carcassonne simulate --games 200 --players greedy,random --seed 1 [--abbot ...] [--jobs 2]

``--players`` names one bot per seat.  Seats rotate from game to game (game ``i`` gives seat
``s`` to the ``(s + i) % n``-th bot) so that no bot keeps the first-player advantage; pass
``--fixed-seats`` to switch that off.  Game ``i`` is shuffled with seed ``S + i`` and its bots are
seeded from it, so a run with ``--seed S`` is reproducible whatever ``--jobs`` is.

The report gives per bot: games, wins (a tie shares the win between the tied seats), win rate,
mean score and mean points per source (city, road, monastery, garden, field, and every source an
expansion pays: bet, map-chip, wine…), taken from the games' score events; then per seat; then
games per second.  ``--json`` prints the same as one JSON object.

Expansions add lines to the report with :func:`register_summary`; the bundled ones (bets,
map chips) are registered at the end of this module::

    from carcassonne.cli.simulate import register_summary

    def bet_lines(games: Sequence[Game]) -> list[str]:
        return [f"bets won: ..."]

    register_summary("bets", bet_lines)

The name is the expansion's ``Expansion.name``; the function is called once per run, with every
finished game, only when that expansion is on.  Its lines are appended to the text report and
listed under ``"notes"`` in the JSON one.  The games are replayed one at a time as the function
reads them (a run keeps only their moves), so iterate over them rather than keep them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, overload

from ..batch.runner import (
    LOCAL_RAY,
    Progress,
    Result,
    Task,
    describe_options,
    entrant_labels,
    report_sources,
    run_tasks,
)
from ..bots import SPEC_NAMES
from ..expansions import build_expansions
from ..game import Game, GameOptions
from ..replaying import replay
from .errors import CommandError
from .options import (
    add_game_options,
    add_runner_options,
    bot_specs,
    int_in,
    options_from_args,
    runner_settings,
    writable_folder,
)

Summary = Callable[[Sequence[Game]], list[str]]

_SUMMARIES: dict[str, Summary] = {}


def register_summary(name: str, fn: Summary) -> None:
    """Append ``fn(games)``'s lines to reports of runs with expansion ``name`` on."""
    _SUMMARIES[name] = fn


def seat_order(index: int, entrants: int, rotate: bool) -> tuple[int, ...]:
    """Entrant sitting in each seat of game ``index``."""
    shift = index % entrants if rotate else 0
    return tuple((seat + shift) % entrants for seat in range(entrants))


@dataclass
class Tally:
    """Running totals for one bot entrant or one seat."""

    label: str
    games: int = 0
    wins: float = 0.0
    score: int = 0

    def add(self, score: int, win: float) -> None:
        self.games += 1
        self.wins += win
        self.score += score

    def row(self) -> dict[str, Any]:
        games = max(self.games, 1)
        return {
            "games": self.games,
            "wins": win_count(self.wins),
            "win_rate": round(self.wins / games, 4),
            "mean_score": round(self.score / games, 2),
        }


def win_count(wins: float) -> int | float:
    """Wins as people count them: ``200``, not ``200.0``; a share of tied wins keeps its
    fraction (``99.5``, rounded to 3 places)."""
    wins = round(wins, 3)
    return int(wins) if wins.is_integer() else wins


def build_report(
    results: list[Result],
    names: list[str],
    options: GameOptions,
    rotate: bool,
    seconds: float,
    notes: list[str],
) -> dict[str, Any]:
    """The run's figures as a JSON-ready dict (``options.seed`` is the first game's seed)."""
    labels = entrant_labels(names)
    bots = [Tally(label) for label in labels]
    seats = [Tally(str(seat)) for seat in range(len(names))]
    points: list[dict[str, int]] = [{} for _ in names]
    for result in results:
        share = 1.0 / len(result.winners)
        for seat, entrant in enumerate(seat_order(result.index, len(names), rotate)):
            win = share if seat in result.winners else 0.0
            bots[entrant].add(result.scores[seat], win)
            seats[seat].add(result.scores[seat], win)
            for source, value in result.by_source[seat].items():
                points[entrant][source] = points[entrant].get(source, 0) + value
    sources = report_sources(points)
    bot_rows = []
    for tally, totals in zip(bots, points, strict=True):
        row = {"bot": tally.label, **tally.row()}
        row["mean_points_by_source"] = {
            s: round(totals.get(s, 0) / max(tally.games, 1), 2) for s in sources
        }
        bot_rows.append(row)
    game_options = {k: v for k, v in asdict(options).items() if k not in ("seed", "stack")}
    return {
        "games": len(results),
        "players": names,
        "options": game_options,
        "seeds": [options.seed, (options.seed or 0) + len(results) - 1],
        "rotate_seats": rotate,
        "seconds": round(seconds, 3),
        "games_per_second": round(len(results) / seconds, 2) if seconds > 0 else None,
        "bots": bot_rows,
        "seats": [{"seat": int(t.label), **t.row()} for t in seats],
        "notes": notes,
    }


def format_report(report: dict[str, Any], options: GameOptions) -> str:
    sources = list(report["bots"][0]["mean_points_by_source"])
    lo, hi = report["seeds"]
    seats = "rotating seats" if report["rotate_seats"] else "fixed seats"
    lines = [
        f"{report['games']} games, {len(report['players'])} players "
        f"({', '.join(report['players'])}), {describe_options(options)}, seeds {lo}..{hi}, "
        f"{seats}",
        "",
    ]
    label_width = max(4, *(len(r["bot"]) for r in report["bots"]))
    head = f"{'bot':<{label_width}} {'games':>6} {'wins':>7} {'win %':>6} {'mean':>6}"
    head += "".join(f" {s:>{max(5, len(s))}}" for s in sources)
    lines.append(head)
    for row in report["bots"]:
        line = (
            f"{row['bot']:<{label_width}} {row['games']:>6} {row['wins']:>7} "
            f"{100 * row['win_rate']:>6.1f} {row['mean_score']:>6.1f}"
        )
        by_source = row["mean_points_by_source"]
        line += "".join(f" {by_source[s]:>{max(5, len(s))}.1f}" for s in sources)
        lines.append(line)
    lines.append("(mean = mean final score; source columns = mean points per game from it)")
    lines += ["", f"{'seat':<{label_width}} {'games':>6} {'wins':>7} {'win %':>6} {'mean':>6}"]
    for row in report["seats"]:
        lines.append(
            f"{row['seat']:<{label_width}} {row['games']:>6} {row['wins']:>7} "
            f"{100 * row['win_rate']:>6.1f} {row['mean_score']:>6.1f}"
        )
    if report["notes"]:
        lines += ["", *report["notes"]]
    rate = report["games_per_second"]
    lines += ["", f"{report['seconds']:.2f} s, {rate} games/s"]
    return "\n".join(lines)


def active_summaries(options: GameOptions) -> list[Summary]:
    """The registered summaries of the expansions these options turn on."""
    on = {ext.name for ext in build_expansions(options)}
    return [fn for name, fn in _SUMMARIES.items() if name in on]


class Replays(Sequence[Game]):
    """The finished games of a run, rebuilt from their moves when read: one at a time in memory
    however long the run (a game object is far bigger than its moves)."""

    def __init__(self, options: GameOptions, results: list[Result]) -> None:
        if options.seed is None:
            raise ValueError("replaying a run needs its first game's seed")
        self.options = options
        self.first_seed: int = options.seed
        self.results = results

    def __len__(self) -> int:
        return len(self.results)

    @overload
    def __getitem__(self, index: int) -> Game: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Game]: ...

    def __getitem__(self, index: int | slice) -> Game | Sequence[Game]:
        if isinstance(index, slice):
            return Replays(self.options, self.results[index])
        result = self.results[index]
        return replay(self.options.with_(seed=self.first_seed + result.index), result.history)


def expansion_notes(options: GameOptions, results: list[Result]) -> list[str]:
    """Lines from the registered summaries of the expansions that are on (``options.seed`` is
    the first game's seed; ``results`` keep their moves)."""
    games = Replays(options, results)
    return [line for summary in active_summaries(options) for line in summary(games)]


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "simulate",
        help="play many bot games and report win rates and points by source",
        description="Play many bot games and report who wins, by how much, and from what. "
        "Game i is shuffled with seed S+i (--seed S), and bots rotate through the seats.",
    )
    parser.add_argument("--games", type=int_in(1), default=100, help="games to play (default 100)")
    parser.add_argument(
        "--players",
        default="greedy,random",
        metavar="BOT,BOT,...",
        help=f"one bot per seat, from: {', '.join(SPEC_NAMES)}, each with optional parameters "
        "(expert:seconds=0.5,greedy; see 'carcassonne bots') (default greedy,random)",
    )
    parser.add_argument(
        "--fixed-seats", action="store_true", help="do not rotate the bots through the seats"
    )
    parser.add_argument(
        "--save-records",
        metavar="DIR",
        help="write one game record per game into DIR (created if missing; game-00001.json… "
        "there are replaced)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the report as JSON (and no progress bar)"
    )
    add_runner_options(parser)
    add_game_options(parser, players=False)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    names = bot_specs(args.players)
    first_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    args.seed = first_seed
    options = options_from_args(args, players=len(names))
    Game(options)  # reject impossible option combinations before starting workers
    jobs, ray_address = runner_settings(args)
    record_dir = None
    if args.save_records is not None:
        if ray_address not in (None, LOCAL_RAY):
            raise CommandError(
                "--save-records with --ray ADDRESS would write the records on the cluster's "
                "machines; use --ray local or --jobs"
            )
        record_dir = writable_folder("--save-records", args.save_records)
    rotate = not args.fixed_seats
    keep_history = bool(active_summaries(options))
    tasks = (
        Task(
            i,
            options.with_(seed=first_seed + i),
            tuple(names[e] for e in seat_order(i, len(names), rotate)),
            record_dir,
            keep_history,
        )
        for i in range(args.games)
    )
    progress = Progress(args.games, sys.stderr, enabled=not args.json)
    results: list[Result] = []
    start = time.perf_counter()
    try:
        for result in run_tasks(tasks, args.games, jobs, ray_address):
            results.append(result)
            progress.update(len(results))
    finally:
        progress.close()
    seconds = time.perf_counter() - start
    results.sort(key=lambda r: r.index)
    notes = expansion_notes(options, results)
    report = build_report(results, names, options, rotate, seconds, notes)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(format_report(report, options))
    return 0


def _register_bundled_summaries() -> None:
    from ..expansions.bets import bet_summary
    from ..expansions.mapchips import wine_summary

    register_summary("bets", bet_summary)
    register_summary("map-chips", wine_summary)


_register_bundled_summaries()
