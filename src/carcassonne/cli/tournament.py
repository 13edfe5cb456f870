"""`carcassonne tournament`: every bot against every other in every seating, rated, reported.

    carcassonne tournament --players random,greedy,expert:seconds=0.2 --games 600 --out DIR
        [--seats 2,3] [game options] [--jobs N | --ray local|ADDRESS] [--json]

Writes ``DIR/report.md``, ``DIR/report.json`` and ``DIR/plots/*.png|svg``; keeps the finished
games in ``DIR/games.jsonl`` so that the same command, run again, plays only what is missing (see
:mod:`carcassonne.batch.tournament` for the schedule, the store and the ratings).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from ..batch.runner import Progress, run_tasks
from ..batch.tournament import (
    PLOTS_DIR,
    REPORT_JSON,
    REPORT_MD,
    Settings,
    Store,
    TournamentError,
    build_report,
    format_markdown,
)
from ..bots import SPEC_NAMES
from ..game import MAX_PLAYERS, MIN_PLAYERS, Game
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

#: games a new tournament plays when --games is not given
DEFAULT_GAMES = 100
#: the [tournament] extra: ratings and plots
EXTRA_MODULES = ("openskill", "matplotlib")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "tournament",
        help="rate bots against each other in every seating; a report with plots in a folder",
        description="Play every bot against every other in every seating, rate them "
        "(Plackett-Luce, with 95% intervals) and write a Markdown + JSON report with plots "
        "into --out. Finished games are kept there: run the same command again to resume an "
        "interrupted tournament, or with a larger --games to extend it.",
    )
    parser.add_argument(
        "--players",
        metavar="BOT,BOT,...",
        help=f"the bots taking part, from: {', '.join(SPEC_NAMES)}, each with optional "
        "parameters (expert:seconds=0.2,greedy; see 'carcassonne bots')",
    )
    parser.add_argument(
        "--seats",
        metavar="N[,N...]",
        help=f"players per game, one size or several ({MIN_PLAYERS}-{MAX_PLAYERS}, default 2): "
        "each size plays every ordered choice of that many bots",
    )
    parser.add_argument(
        "--games",
        type=int_in(1),
        help=f"games in all (default {DEFAULT_GAMES}, or as many as the folder's tournament had)",
    )
    parser.add_argument("--out", metavar="DIR", required=True, help="the tournament's folder")
    parser.add_argument(
        "--json", action="store_true", help="print the report as JSON (and no progress bar)"
    )
    add_runner_options(parser)
    add_game_options(parser, players=False)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    missing = [name for name in EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise CommandError(
            f"tournament needs {' and '.join(missing)}: "
            "pip install 'carcassonne-engine[tournament]'"
        )
    jobs, ray_address = runner_settings(args)
    folder = Path(writable_folder("--out", args.out))
    store = Store(folder)
    try:
        saved = store.saved_settings()
    except TournamentError as exc:
        raise CommandError(str(exc), status=1) from None
    try:
        settings = requested_settings(args, saved)
    except TournamentError as exc:
        raise CommandError(str(exc)) from None
    if saved is not None and saved != settings:
        differences = "; ".join(saved.differences(settings))
        raise CommandError(
            f"--out {args.out} holds a tournament with other settings: this command asks for "
            f"{differences}. Rerun it with the folder's settings, or use another --out"
        )
    for size in settings.seats:  # reject impossible option combinations before any game
        Game(settings.options.with_(players=size, seed=settings.seed))
    games = args.games or store.saved_games() or DEFAULT_GAMES
    store.start(settings, games)
    try:
        offsets = store.scan(settings, games)
    except TournamentError as exc:
        raise CommandError(str(exc), status=1) from None
    seatings = settings.seatings()
    to_play = [i for i in range(games) if offsets[i] < 0]
    progress = Progress(games, sys.stderr, enabled=not args.json, done=games - len(to_play))
    writer = store.appender()
    start = time.perf_counter()
    played = 0
    try:
        tasks = (settings.task(i, seatings) for i in to_play)
        for result in run_tasks(tasks, len(to_play), jobs, ray_address):
            offsets[result.index] = writer.write(result)
            played += 1
            progress.update(games - len(to_play) + played)
    except KeyboardInterrupt:
        progress.close()
        done = games - len(to_play) + played
        print(
            f"\n{done} of {games} games are kept in {args.out}: "
            "run the same command again to play the rest",
            file=sys.stderr,
        )
        raise
    finally:
        writer.close()
        progress.close()
    seconds = time.perf_counter() - start
    run_info: dict[str, Any] = {
        "games_played": len(to_play),
        "seconds": round(seconds, 3),
        "games_per_second": round(len(to_play) / seconds, 2) if to_play and seconds else None,
        "jobs": jobs,
        "ray": ray_address,
    }
    report = build_report(settings, store.results(settings, offsets), run_info)
    write_report(report, folder)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(summary_text(report, args.out))
    return 0


def requested_settings(args: argparse.Namespace, saved: Settings | None) -> Settings:
    """The settings the flags ask for; players, seats and seed default to the folder's."""
    if args.players is not None:
        players = tuple(bot_specs(args.players))
    elif saved is not None:
        players = saved.players
    else:
        raise CommandError("--players is needed to start a tournament (e.g. random,greedy)")
    if args.seats is not None:
        seats = parse_seats(args.seats)
    else:
        seats = saved.seats if saved is not None else (2,)
    if args.seed is not None:
        seed = args.seed
    elif saved is not None:
        seed = saved.seed
    else:
        seed = random.SystemRandom().randrange(2**31)
    options = options_from_args(args, players=seats[0]).with_(players=2, seed=None)
    return Settings(players, seats, options, seed)


def parse_seats(text: str) -> tuple[int, ...]:
    sizes = []
    for part in text.split(","):
        try:
            sizes.append(int(part))
        except ValueError:
            raise CommandError(
                f"--seats takes numbers of players separated by commas, not {text!r}"
            ) from None
    return tuple(sizes)


def write_report(report: dict[str, Any], folder: Path) -> None:
    from ..batch.plots import write_plots

    (folder / REPORT_JSON).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    written = write_plots(report, folder / PLOTS_DIR)
    names = sorted({path.stem for path in written}, key=[p.stem for p in written].index)
    (folder / REPORT_MD).write_text(format_markdown(report, names), encoding="utf-8")


def summary_text(report: dict[str, Any], out: str) -> str:
    """The ratings, for the terminal; the rest is in the folder."""
    bots = {b["bot"]: b for b in report["bots"]}
    width = max(4, *(len(label) for label in bots))
    lines = [
        f"{report['tournament']['games']} games; ratings (Plackett-Luce mu, 95% interval):",
        "",
        f"{'bot':<{width}} {'mu':>7} {'interval':>17} {'win %':>6} {'mean':>6}",
    ]
    for label in report["ranking"]:
        row = bots[label]
        rating = row["rating"]
        lines.append(
            f"{label:<{width}} {rating['mu']:>7.2f} "
            f"{rating['low']:>8.2f}..{rating['high']:<7.2f} "
            f"{100 * row['win_rate']:>6.1f} {row['mean_score']:>6.1f}"
        )
    rate = report["run"].get("games_per_second")
    played = report["run"]["games_played"]
    lines += ["", f"{played} games played now" + (f", {rate} games/s" if rate else "")]
    lines.append(f"report: {Path(out) / REPORT_MD} (JSON: {REPORT_JSON}, plots: {PLOTS_DIR}/)")
    return "\n".join(lines)
