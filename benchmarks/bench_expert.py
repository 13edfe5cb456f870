"""Expert bot strength and cost: win rate against other bots, with a 95 % interval.

Plays ``--games`` games of the expert (``--expert SPEC``) against ``--opponents`` (one spec per
other seat, default one greedy bot), seats rotating from game to game as in ``carcassonne
simulate`` (game ``i`` is shuffled with seed ``S + i``, or with ``--paired`` each shuffle is played
once per seating), and prints per bot: wins, win rate with
its Wilson 95 % interval (a tie counts as a shared win), mean score and mean points by source;
then what the expert's searches cost: seconds and playouts per searched decision (median and
10th-90th percentile), so that a time budget can be read as iterations on this machine; and
each bot's fields at the end of the game: farmed alone, or contested (farmed by several seats) and
won, shared or lost, how many a game and the points they paid (where a bot's field points go).

    python benchmarks/bench_expert.py --games 100 --expert expert:seconds=0.5 --jobs 2
    python benchmarks/bench_expert.py --games 100 --bets --map france --map-chips
    python benchmarks/bench_expert.py --games 60 --opponents greedy,greedy     # 3 players
    python benchmarks/bench_expert.py --games 100 --expert expert:iterations=40 --json
    python benchmarks/bench_expert.py --games 100 --save runs/base.jsonl   # resumable
    python benchmarks/bench_expert.py --games 200 --paired --expert expert:iterations=500 \
        --opponents expert:iterations=200,learned=0    # against the expert before issue 26
    python benchmarks/bench_expert.py --games 100 --paired --expert expert:iterations=60,depth=4 \
        --save new.jsonl --against old.jsonl   # paired with another expert's games, same seeds

``--against FILE``: another ``--save`` file of the same opponents, options and seeds (another
version or setting of the expert): the report adds the paired difference of the expert's margin
on the games both played, with its 95 % interval, and how many games turned into wins or losses.
A change of the expert is seen far sooner so than by comparing two win rates: on the same
shuffle and seating, most of the luck of the draw cancels out.

Not a test: run it by hand and put the figures in ``benchmarks/README.md``.  With a time budget
the figures depend on how busy the machine is (the searches get fewer playouts), so the cost
lines are part of the result.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from carcassonne.batch.runner import Result, bot_seed, map_in_workers
from carcassonne.bots import check_bot_spec, make_bot, split_bot_specs
from carcassonne.bots.expert import ExpertBot
from carcassonne.cli.options import add_game_options, options_from_args
from carcassonne.cli.simulate import build_report, seat_order
from carcassonne.events import ScoreEvent
from carcassonne.game import Game, GameOptions, GameSummary


@dataclass(frozen=True, slots=True)
class Task:
    index: int
    options: GameOptions
    specs: tuple[str, ...]  # bot spec per seat


#: one field scored at the end: each seat's farmers on it, and what it paid each seat
Farm = tuple[list[int], list[int]]


@dataclass(slots=True)
class Played:
    result: Result
    #: (seconds, playouts) of each expert decision that was searched (more than one option)
    searches: list[tuple[float, int]]
    #: the fields farmed at the end (None: a game saved before they were kept)
    farms: list[Farm] | None = None


def farms_of(game: Game) -> list[Farm]:
    """Each field the final scoring paid (or paid nothing): its farmers and points per seat."""
    seats = range(game.players)
    return [
        ([event.figures.get(s, 0) for s in seats], [event.points.get(s, 0) for s in seats])
        for event in game.events
        if isinstance(event, ScoreEvent) and event.source == "field"
    ]


@dataclass(slots=True)
class FarmTally:
    """One bot's fields at the end, per kind of outcome: how many, and the points they paid
    (for ``lost``: what they paid the seats that took them)."""

    alone: list[int]
    won: list[int]
    shared: list[int]
    lost: list[int]


def farm_tallies(played: list[Played], players: int) -> tuple[int, list[FarmTally]]:
    """Games with their fields kept, and each entrant's fields in them: farmed by it alone,
    and contested (farmed by several seats) won outright, shared (a tie) or lost."""
    tallies = [FarmTally([0, 0], [0, 0], [0, 0], [0, 0]) for _ in range(players)]
    games = 0
    for game in played:
        if game.farms is None:
            continue
        games += 1
        entrants = seat_order(game.result.index, players, True)
        for farmers, points in game.farms:
            farming = [s for s in range(players) if farmers[s]]
            for seat in farming:
                tally = tallies[entrants[seat]]
                most = max(farmers)
                if len(farming) == 1:
                    kind, paid = tally.alone, points[seat]
                elif farmers[seat] < most:
                    kind, paid = tally.lost, max(points)
                elif farmers.count(most) == 1:
                    kind, paid = tally.won, points[seat]
                else:
                    kind, paid = tally.shared, points[seat]
                kind[0] += 1
                kind[1] += paid
    return games, tallies


def play(task: Task) -> Played:
    options = task.options
    assert options.seed is not None
    game = Game(options)
    bots = [make_bot(spec, bot_seed(options.seed, seat)) for seat, spec in enumerate(task.specs)]
    searches: list[tuple[float, int]] = []
    while not game.is_over:
        bot = bots[game.to_move]
        searched = isinstance(bot, ExpertBot) and len(game.legal_actions()) > 1
        action = bot.choose(game)
        if searched:
            assert isinstance(bot, ExpertBot)
            searches.append((bot.stats.seconds, bot.stats.playouts))
        game.apply(action)
    summary = GameSummary.of(game)
    result = Result(task.index, list(game.scores), game.winners(), summary.by_source, [])
    return Played(result, searches, farms_of(game))


def expert_margin(result: Result, players: int) -> int:
    """The expert's score minus the best other seat's in ``result``."""
    seat = seat_order(result.index, players, True).index(0)
    return result.scores[seat] - max(s for i, s in enumerate(result.scores) if i != seat)


@dataclass(frozen=True, slots=True)
class PairedDifference:
    """This run's expert against another one's on the games both played (same seeds)."""

    games: int
    wins: float
    other_wins: float
    #: mean of (this expert's margin - the other's) per game, and its 95 % half-width
    margin_difference: float
    half_width: float
    #: games this expert won (lost) that the other did not win (lose)
    turned_into_wins: int
    turned_into_losses: int


def paired_difference(
    mine: list[Result], others: list[Result], players: int
) -> PairedDifference | None:
    """The paired comparison of two runs' games by index; None with fewer than 2 in common."""
    theirs = {r.index: r for r in others}
    pairs = [(r, theirs[r.index]) for r in mine if r.index in theirs]
    if len(pairs) < 2:
        return None
    diffs = [expert_margin(a, players) - expert_margin(b, players) for a, b in pairs]
    shares = [(expert_share(a, players), expert_share(b, players)) for a, b in pairs]
    return PairedDifference(
        len(pairs),
        sum(a for a, _ in shares),
        sum(b for _, b in shares),
        statistics.mean(diffs),
        1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)),
        sum(1 for a, b in shares if a == 1 and b < 1),
        sum(1 for a, b in shares if a == 0 and b > 0),
    )


def load_other_run(path: Path, tasks: list[Task], paired: bool) -> list[Result]:
    """The games of another ``--save`` file whose opponents, options and pairing are this run's
    (its expert may differ); exits naming the file and what differs otherwise."""
    if not path.exists():
        sys.exit(f"--against {path}: no such file")
    lines = path.read_text().splitlines()
    theirs = json.loads(lines[0]) if lines else {}
    mine = settings_line(tasks, paired)
    for key in ("options", "paired"):
        if theirs.get(key) != mine.get(key):
            sys.exit(f"--against {path}: its games were played with other {key}")
    if not isinstance(theirs.get("specs"), list) or theirs["specs"][1:] != mine["specs"][1:]:
        sys.exit(f"--against {path}: its games were played against other opponents")
    return [Result(**json.loads(line)["result"]) for line in lines[1:]]


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a win rate (ties counted as half wins)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentiles(values: list[float]) -> tuple[float, float, float]:
    """10th percentile, median, 90th percentile."""
    if not values:
        return 0.0, 0.0, 0.0
    ordered = sorted(values)
    low = ordered[int(0.1 * (len(ordered) - 1))]
    high = ordered[int(0.9 * (len(ordered) - 1))]
    return low, statistics.median(ordered), high


def run(tasks: list[Task], jobs: int, save: Path | None, paired: bool) -> list[Played]:
    """Play the tasks not already in ``save``, appending each finished game to it; on Ctrl-C or
    SIGTERM stop and keep the finished games, so a long run cut short reports what it has and
    the same command resumes it.  Progress goes to stderr."""
    played = load_saved(save, tasks, paired) if save else []
    done = {p.result.index for p in played}
    todo = [t for t in tasks if t.index not in done]
    wins = sum(expert_share(p.result, len(tasks[0].specs)) for p in played)
    if played:
        print(f"resuming: {len(played)} games already in {save}", file=sys.stderr)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        for game in map_in_workers(play, todo, len(todo), jobs):
            played.append(game)
            if save:
                with save.open("a") as handle:
                    handle.write(json.dumps(played_to_json(game)) + "\n")
            wins += expert_share(game.result, len(tasks[0].specs))
            print(f"{len(played)}/{len(tasks)} games, expert wins {wins:g}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"interrupted: reporting the {len(played)} finished games", file=sys.stderr)
    return played


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def expert_share(result: Result, players: int) -> float:
    """The expert's part of a win: 1, a share of a tie, or 0."""
    expert_seat = seat_order(result.index, players, True).index(0)
    return 1 / len(result.winners) if expert_seat in result.winners else 0.0


def settings_line(tasks: list[Task], paired: bool) -> dict[str, object]:
    """What must match for games saved by an earlier run to count in this one."""
    first = tasks[0]
    settings: dict[str, object] = {
        "specs": list(first.specs),
        "options": repr(first.options.with_(seed=None)),
    }
    if paired:
        settings["paired"] = True
    return settings


def played_to_json(game: Played) -> dict[str, object]:
    return {"result": game.result.to_json(), "searches": game.searches, "farms": game.farms}


def load_saved(save: Path, tasks: list[Task], paired: bool) -> list[Played]:
    """Games an earlier run saved with the same settings (the file starts with them); a file of
    other settings is refused rather than mixed in."""
    settings = settings_line(tasks, paired)
    if not save.exists():
        save.write_text(json.dumps(settings) + "\n")
        return []
    lines = save.read_text().splitlines()
    if not lines or json.loads(lines[0]) != settings:
        sys.exit(f"{save} holds games of other settings: choose another --save file")
    indices = {t.index for t in tasks}
    played = []
    for line in lines[1:]:
        data = json.loads(line)
        result = Result(**data["result"])
        if result.index in indices:
            farms = data.get("farms")
            played.append(
                Played(
                    result,
                    [(s, n) for s, n in data["searches"]],
                    None if farms is None else [(f, p) for f, p in farms],
                )
            )
    return played


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--expert", default="expert:seconds=0.5", help="the expert's spec")
    parser.add_argument(
        "--opponents", default="greedy", help="specs of the other seats (default greedy)"
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="play each shuffle once per seating (game i gets seed S + i // players), so luck "
        "of the draw cancels out between the bots",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--save",
        type=Path,
        help="append each finished game to this JSON-lines file; the same command resumes from it",
    )
    parser.add_argument(
        "--against",
        type=Path,
        help="another --save file of the same opponents and seeds: report the paired difference",
    )
    add_game_options(parser, players=False)
    args = parser.parse_args()
    specs = [check_bot_spec(args.expert)] + [
        check_bot_spec(s) for s in split_bot_specs(args.opponents)
    ]
    first_seed = 1000 if args.seed is None else args.seed
    args.seed = first_seed
    options = options_from_args(args, players=len(specs))
    tasks = [
        Task(
            i,
            options.with_(seed=first_seed + (i // len(specs) if args.paired else i)),
            tuple(specs[e] for e in seat_order(i, len(specs), True)),
        )
        for i in range(args.games)
    ]
    others = load_other_run(args.against, tasks, args.paired) if args.against else None
    start = time.perf_counter()
    played = run(tasks, args.jobs, args.save, args.paired)
    seconds = time.perf_counter() - start
    if not played:
        print("no game finished", file=sys.stderr)
        return 1
    played.sort(key=lambda p: p.result.index)
    report = build_report([p.result for p in played], specs, options, True, seconds, [])
    for row in report["bots"]:
        low, high = wilson(row["wins"], row["games"])
        row["win_rate_95"] = [round(low, 3), round(high, 3)]
    searches = [s for p in played for s in p.searches]
    times = percentiles([s for s, _ in searches])
    playouts = percentiles([float(n) for _, n in searches])
    report["expert_searches"] = {
        "decisions": len(searches),
        "seconds_p10_median_p90": [round(t, 4) for t in times],
        "playouts_p10_median_p90": list(playouts),
    }
    farmed, tallies = farm_tallies(played, len(specs))
    if farmed:
        report["fields_per_game"] = {
            "games": farmed,
            "bots": [
                {
                    kind: [round(n / farmed, 2), round(points / farmed, 2)]
                    for kind, (n, points) in asdict(tally).items()
                }
                for tally in tallies
            ],
        }
    against = None
    if others is not None:
        against = paired_difference([p.result for p in played], others, len(specs))
        report["against"] = None if against is None else asdict(against)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    sources = list(report["bots"][0]["mean_points_by_source"])
    print(f"{report['games']} of {len(tasks)} games, {', '.join(specs)}, options:")
    print("  " + ", ".join(f"{k}={v}" for k, v in report["options"].items() if v))
    print(f"{'bot':<32} {'wins':>6} {'win %':>6} {'95 % CI':>12} {'mean':>6}  by source")
    for row in report["bots"]:
        low, high = row["win_rate_95"]
        by = " ".join(f"{s} {row['mean_points_by_source'][s]:.1f}" for s in sources)
        print(
            f"{row['bot']:<32} {row['wins']:>6} {100 * row['win_rate']:>6.1f} "
            f"{100 * low:>5.1f}-{100 * high:<5.1f} {row['mean_score']:>6.1f}  {by}"
        )
    print(
        f"expert searches: {len(searches)}; seconds per search p10/median/p90 "
        f"{times[0]:.3f}/{times[1]:.3f}/{times[2]:.3f}; playouts {playouts[0]:.0f}/"
        f"{playouts[1]:.0f}/{playouts[2]:.0f}"
    )
    if farmed:
        print(
            f"fields at the end, per game of {farmed} (how many, points): farmed alone; "
            "contested and won / shared / lost (points they paid the winner)"
        )
        for row, tally in zip(report["bots"], tallies, strict=True):
            alone, won, shared, lost = (
                f"{n / farmed:.2f} ({points / farmed:.1f})" for n, points in asdict(tally).values()
            )
            print(f"  {row['bot']:<32} alone {alone}; won {won}, shared {shared}, lost {lost}")
    if against is not None:
        print(
            f"against {args.against}, {against.games} games both played: wins {against.wins:g} "
            f"(theirs {against.other_wins:g}), margin {against.margin_difference:+.1f} "
            f"± {against.half_width:.1f} a game (95 %), {against.turned_into_wins} turned into "
            f"wins, {against.turned_into_losses} into losses"
        )
    elif others is not None:
        print(f"against {args.against}: fewer than 2 games both played")
    print(f"{seconds:.1f} s wall clock, --jobs {args.jobs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
