"""A tournament: every bot meets every other in every seating; ratings, a report, resumable.

**Schedule.**  For each table size ``n`` (2–6) every ordered choice of ``n`` different entrants
is one *seating*; a round plays each seating once, and game ``i`` plays seating ``i mod round``
with the shuffle seed ``S + i``.  So every bot meets every other from every seat equally often
in every full round, and a game's result depends only on its index: the same whether it was
played here, in a worker process or on a Ray cluster, in one run or across a resumed one.

**Store.**  ``DIR/tournament.json`` holds the settings, ``DIR/games.jsonl`` one line per
finished game (written as games finish, so an interrupted run loses only the games in play).
Running the same command again plays only the games missing from ``games.jsonl``; asking for
more games extends the tournament.

**Ratings.**  Plackett–Luce (openskill), every game a ranking of its seats by final score (equal
scores share a rank), applied in game order so that the ratings depend on the results alone.
Bots do not learn between games, so no drift (``tau``) is added.  A rating is reported as
``mu`` with the interval ``mu ± 1.96 sigma``.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..game import MAX_PLAYERS, MIN_PLAYERS, GameOptions
from .runner import Result, Task, describe_options, entrant_labels, report_sources
from .tallies import tally_layout

SETTINGS_FILE = "tournament.json"
GAMES_FILE = "games.jsonl"
REPORT_MD = "report.md"
REPORT_JSON = "report.json"
PLOTS_DIR = "plots"
#: a bump means an older folder cannot be resumed by this version
STORE_VERSION = 1
#: half-width of a rating's interval in sigmas (95 % of a normal distribution)
INTERVAL_SIGMAS = 1.96
#: seatings in a round at most: the round is listed in memory (10 bots at tables of 6 make
#: 151,200; 12 would make 665,280)
MAX_SEATINGS = 200_000


class TournamentError(Exception):
    """A tournament folder or setting that cannot be used, said in one line."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What fixes every game of a tournament (not how many, nor where they are played)."""

    players: tuple[str, ...]  # one bot spec per entrant
    seats: tuple[int, ...]  # table sizes
    options: GameOptions  # players and seed are set per game
    seed: int  # game i is shuffled with seed + i

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise TournamentError("a tournament needs at least two bots")
        for size in self.seats:
            if not MIN_PLAYERS <= size <= MAX_PLAYERS:
                raise TournamentError(
                    f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} seats, not {size}"
                )
            if size > len(self.players):
                raise TournamentError(
                    f"tables of {size} need at least {size} bots, not {len(self.players)}"
                )
        if len(set(self.seats)) != len(self.seats):
            raise TournamentError("each table size may be named once")
        per_round = sum(math.perm(len(self.players), size) for size in self.seats)
        if per_round > MAX_SEATINGS:
            raise TournamentError(
                f"{len(self.players)} bots at tables of {', '.join(map(str, self.seats))} make "
                f"{per_round} seatings per round, more than {MAX_SEATINGS}: use fewer bots or "
                "smaller tables"
            )

    @property
    def labels(self) -> list[str]:
        return entrant_labels(list(self.players))

    def seatings(self) -> list[tuple[int, ...]]:
        """One round: for each table size, every ordered choice of entrants (by index)."""
        entrants = range(len(self.players))
        return [
            seating for size in self.seats for seating in itertools.permutations(entrants, size)
        ]

    def task(self, index: int, seatings: list[tuple[int, ...]]) -> Task:
        seating = seatings[index % len(seatings)]
        options = self.options.with_(players=len(seating), seed=self.seed + index)
        return Task(index, options, tuple(self.players[e] for e in seating))

    def to_json(self) -> dict[str, Any]:
        options = {k: v for k, v in asdict(self.options).items() if k not in _PER_GAME}
        return {
            "version": STORE_VERSION,
            "players": list(self.players),
            "seats": list(self.seats),
            "options": options,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        if not isinstance(data, dict) or data.get("version") != STORE_VERSION:
            raise TournamentError("not a tournament this version can resume")
        try:
            options = dict(data["options"])
            if options.get("start_squares") is not None:
                options["start_squares"] = tuple(options["start_squares"])
            return cls(
                players=tuple(str(p) for p in data["players"]),
                seats=tuple(int(n) for n in data["seats"]),
                options=GameOptions(**options),
                seed=int(data["seed"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise TournamentError(f"unreadable settings ({exc})") from None

    def differences(self, other: Settings) -> list[str]:
        """What ``other`` asks for that differs from these settings, one phrase per setting."""
        mine, theirs = self.to_json(), other.to_json()
        found = [
            f"{key} {theirs[key]} (it has {mine[key]})"
            for key in ("players", "seats", "seed")
            if mine[key] != theirs[key]
        ]
        found += [
            f"{key.replace('_', '-')} {theirs['options'][key]} (it has {value})"
            for key, value in mine["options"].items()
            if theirs["options"][key] != value
        ]
        return found


_PER_GAME = ("players", "seed", "stack")


class Store:
    """A tournament's folder: its settings and one line per finished game."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.settings_path = folder / SETTINGS_FILE
        self.games_path = folder / GAMES_FILE

    def saved_settings(self) -> Settings | None:
        if not self.settings_path.exists():
            return None
        try:
            data = json.loads(self.settings_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            data = None
        try:
            return Settings.from_json(data)
        except TournamentError as exc:
            raise TournamentError(f"{self.settings_path}: {exc}") from None

    def saved_games(self) -> int | None:
        """How many games the folder's tournament was last asked to play."""
        if not self.settings_path.exists():
            return None
        games = json.loads(self.settings_path.read_text(encoding="utf-8")).get("games")
        return games if isinstance(games, int) and games > 0 else None

    def start(self, settings: Settings, games: int) -> None:
        """Write the settings and the number of games asked for (the folder must exist)."""
        text = json.dumps({**settings.to_json(), "games": games}, indent=2) + "\n"
        self.settings_path.write_text(text, encoding="utf-8")

    def scan(self, settings: Settings, games: int) -> array[int]:
        """Where the line of each finished game among the first ``games`` starts (-1: not
        played yet), every line checked.  A last line cut short by an interruption is dropped
        (the file is truncated before it); any other bad line is an error.  Only offsets are
        kept, so a tournament of millions of games is scanned in little memory."""
        offsets = array("q", [-1]) * games
        if not self.games_path.exists():
            return offsets
        seen: set[int] = set()
        seatings = settings.seatings()
        with self.games_path.open("r+b") as handle:
            offset = 0
            for number, line in enumerate(handle, 1):
                if line.strip():
                    try:
                        index = _result_from_json(json.loads(line), seatings).index
                    except (json.JSONDecodeError, UnicodeDecodeError, TournamentError) as exc:
                        if not line.endswith(b"\n"):  # the line being written when stopped
                            handle.truncate(offset)
                            break
                        raise TournamentError(f"{self.games_path} line {number}: {exc}") from None
                    if index in seen:
                        raise TournamentError(
                            f"{self.games_path} line {number}: game {index} is there twice"
                        )
                    seen.add(index)
                    if index < games:
                        offsets[index] = offset
                    if not line.endswith(b"\n"):  # whole, but unended: end it before appending
                        handle.write(b"\n")
                offset += len(line)
        return offsets

    def results(self, settings: Settings, offsets: array[int]) -> Iterator[Result]:
        """The games at ``offsets`` in index order (each read when needed: the report's pass
        over millions of games holds one at a time)."""
        seatings = settings.seatings()
        with self.games_path.open("rb") as handle:
            for offset in offsets:
                handle.seek(offset)
                yield _result_from_json(json.loads(handle.readline()), seatings)

    def appender(self) -> GameWriter:
        return GameWriter(self.games_path)


class GameWriter:
    """Appends one line per finished game, flushed at once so that a stop loses nothing."""

    def __init__(self, path: Path) -> None:
        self.handle = path.open("ab")

    def write(self, result: Result) -> int:
        """Append the game's line; where it starts."""
        offset = self.handle.tell()
        line = json.dumps(result.to_json(), separators=(",", ":")) + "\n"
        self.handle.write(line.encode("utf-8"))
        self.handle.flush()
        return offset

    def close(self) -> None:
        self.handle.close()


def _result_from_json(data: Any, seatings: list[tuple[int, ...]]) -> Result:
    """A stored game, checked enough that a report can trust its shape."""
    if not isinstance(data, dict):
        raise TournamentError("not a game result")
    try:
        index = int(data["index"])
        scores = [int(s) for s in data["scores"]]
        winners = [int(w) for w in data["winners"]]
        by_source = [{str(k): int(v) for k, v in seat.items()} for seat in data["by_source"]]
        tallies = {
            str(section): [
                {
                    str(item): {str(m): int(c) for m, c in counts.items()}
                    for item, counts in seat.items()
                }
                for seat in seats
            ]
            for section, seats in data.get("tallies", {}).items()
        }
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TournamentError(f"not a game result ({exc})") from None
    if index < 0:
        raise TournamentError(f"game index {index} is negative")
    seats = len(seatings[index % len(seatings)])
    if len(scores) != seats or len(by_source) != seats or not set(winners) <= set(range(seats)):
        raise TournamentError(f"game {index} does not have the {seats} seats it was played with")
    return Result(index, scores, winners, by_source, [], tallies)


# ---------------------------------------------------------------------------------- ratings


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def low(self) -> float:
        return self.mu - INTERVAL_SIGMAS * self.sigma

    @property
    def high(self) -> float:
        return self.mu + INTERVAL_SIGMAS * self.sigma


class Rater:
    """Plackett–Luce ratings of the entrants, updated one game at a time in index order."""

    def __init__(self, settings: Settings) -> None:
        from openskill.models import PlackettLuce  # the [tournament] extra

        self.model = PlackettLuce(tau=0.0)
        self.ratings = [self.model.rating(name=label) for label in settings.labels]
        self.seatings = settings.seatings()

    def add(self, result: Result) -> None:
        seating = self.seatings[result.index % len(self.seatings)]
        teams = [[self.ratings[entrant]] for entrant in seating]
        ranks: list[float] = [
            1.0 + sum(other > score for other in result.scores) for score in result.scores
        ]
        for entrant, (rated,) in zip(seating, self.model.rate(teams, ranks=ranks), strict=True):
            self.ratings[entrant] = rated

    def current(self) -> list[Rating]:
        return [Rating(r.mu, r.sigma) for r in self.ratings]


def rate(settings: Settings, results: Iterable[Result]) -> list[Rating]:
    """Plackett–Luce ratings of the entrants after ``results`` (in index order)."""
    rater = Rater(settings)
    for result in results:
        rater.add(result)
    return rater.current()


# ----------------------------------------------------------------------------------- report


def entrant_games(
    settings: Settings, results: Iterable[Result]
) -> Iterator[tuple[Result, tuple[int, ...]]]:
    """Each result with the entrant in each of its seats."""
    seatings = settings.seatings()
    for result in results:
        yield result, seatings[result.index % len(seatings)]


def build_report(
    settings: Settings, results: Iterable[Result], run: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Everything the report says, JSON-ready, in one pass over ``results`` (in index order;
    read lazily is fine).  Apart from ``run`` (how long this run took, where it ran) it depends
    on the results alone."""
    labels = settings.labels
    count = len(labels)
    scores: list[list[int]] = [[] for _ in labels]
    wins = [0.0] * count
    points: list[dict[str, int]] = [{} for _ in labels]
    met = [[0] * count for _ in labels]
    beat = [[0.0] * count for _ in labels]
    seat_rows: dict[int, list[dict[str, float]]] = {
        size: [{"games": 0, "wins": 0.0, "score": 0} for _ in range(size)]
        for size in settings.seats
    }
    tallies: dict[str, list[dict[str, dict[str, int]]]] = {}
    rater = Rater(settings)
    games = 0
    for result, seating in entrant_games(settings, results):
        games += 1
        rater.add(result)
        share = 1.0 / len(result.winners)
        for seat, entrant in enumerate(seating):
            score = result.scores[seat]
            win = share if seat in result.winners else 0.0
            scores[entrant].append(score)
            wins[entrant] += win
            seat_row = seat_rows[len(seating)][seat]
            seat_row["games"] += 1
            seat_row["wins"] += win
            seat_row["score"] += score
            for source, value in result.by_source[seat].items():
                points[entrant][source] = points[entrant].get(source, 0) + value
            for other_seat, other in enumerate(seating):
                if other != entrant:
                    met[entrant][other] += 1
                    other_score = result.scores[other_seat]
                    beat[entrant][other] += (score > other_score) + 0.5 * (score == other_score)
        for section, seats in result.tallies.items():
            totals = tallies.setdefault(section, [{} for _ in labels])
            for seat, entrant in enumerate(seating):
                for item, counts in seats[seat].items():
                    into = totals[entrant].setdefault(item, {})
                    for measure, value in counts.items():
                        into[measure] = into.get(measure, 0) + value
    ratings = rater.current() if games else []
    sources = report_sources(points)
    bots = []
    for entrant, label in enumerate(labels):
        played = len(scores[entrant])
        row: dict[str, Any] = {
            "bot": label,
            "spec": settings.players[entrant],
            "games": played,
            "wins": _number(wins[entrant]),
            "win_rate": round(wins[entrant] / max(played, 1), 4),
            "mean_score": round(sum(scores[entrant]) / max(played, 1), 2),
            "scores": _spread(scores[entrant]),
            "mean_points_by_source": {
                s: round(points[entrant].get(s, 0) / max(played, 1), 2) for s in sources
            },
        }
        if ratings:
            rating = ratings[entrant]
            row["rating"] = {
                "mu": round(rating.mu, 3),
                "sigma": round(rating.sigma, 3),
                "low": round(rating.low, 3),
                "high": round(rating.high, 3),
            }
        bots.append(row)
    order = sorted(range(count), key=lambda e: -ratings[e].mu) if ratings else list(range(count))
    seatings = settings.seatings()
    return {
        "tournament": {
            **settings.to_json(),
            "games": games,
            "seeds": [settings.seed, settings.seed + games - 1] if games else [],
            "seatings_per_round": len(seatings),
            "full_rounds": games // len(seatings),
        },
        "ranking": [labels[e] for e in order],
        "bots": bots,
        "head_to_head": {
            labels[a]: {
                labels[b]: round(beat[a][b] / met[a][b], 4) if met[a][b] else None
                for b in range(count)
                if b != a
            }
            for a in range(count)
        },
        "seats": {
            str(size): [
                {
                    "seat": seat,
                    "games": int(row["games"]),
                    "win_rate": round(row["wins"] / max(row["games"], 1), 4),
                    "mean_score": round(row["score"] / max(row["games"], 1), 2),
                }
                for seat, row in enumerate(rows)
            ]
            for size, rows in seat_rows.items()
        },
        "tallies": {
            section: _tally_means(section, labels, totals, scores)
            for section, totals in tallies.items()
        },
        "scores": {label: scores[e] for e, label in enumerate(labels)},
        "run": run or {},
    }


def _number(value: float) -> int | float:
    value = round(value, 3)
    return int(value) if value.is_integer() else value


def _spread(scores: list[int]) -> dict[str, float]:
    if not scores:
        return {}
    ordered = sorted(scores)
    quartiles = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else [ordered[0]] * 3
    return {
        "min": ordered[0],
        "q1": round(quartiles[0], 2),
        "median": round(quartiles[1], 2),
        "q3": round(quartiles[2], 2),
        "max": ordered[-1],
        "stdev": round(statistics.pstdev(ordered), 2),
    }


def _tally_means(
    section: str,
    labels: list[str],
    totals: list[dict[str, dict[str, int]]],
    scores: list[list[int]],
) -> dict[str, dict[str, dict[str, float | None]]]:
    """Per bot and item: each measure per game, and each other measure per use (the first
    measure: a chip settled, a wine sold), e.g. ``points_per_settled`` — the value of a chip,
    ``won_per_settled`` — how often it pays.  None where it was never used."""
    items, measures = tally_layout(section)
    count_measure = measures[0]
    means: dict[str, dict[str, dict[str, float | None]]] = {}
    for entrant, label in enumerate(labels):
        games = max(len(scores[entrant]), 1)
        per_item: dict[str, dict[str, float | None]] = {}
        for item in items:
            counts = totals[entrant].get(item, {})
            row: dict[str, float | None] = {
                f"{m}_per_game": round(counts.get(m, 0) / games, 3) for m in measures
            }
            used = counts.get(count_measure, 0)
            for m in measures[1:]:
                row[f"{m}_per_{count_measure}"] = (
                    round(counts.get(m, 0) / used, 3) if used else None
                )
            per_item[item] = row
        means[label] = per_item
    return means


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join("–" if v is None else str(v) for v in row) + " |" for row in rows]
    return lines


def format_markdown(report: dict[str, Any], plots: list[str]) -> str:
    """The report as Markdown: ratings, head to head, scores, points by source, the
    expansions' tallies, seats, and the plots (``plots``: their names, without suffix)."""
    info = report["tournament"]
    bots = {b["bot"]: b for b in report["bots"]}
    seeds = info["seeds"]
    lines = [
        "# Tournament",
        "",
        f"{info['games']} games of {describe_options(_options(info['options']))}, "
        f"tables of {', '.join(map(str, info['seats']))}, "
        f"seeds {seeds[0]}..{seeds[-1] if seeds else ''}; "
        f"{info['full_rounds']} full rounds of {info['seatings_per_round']} seatings.",
        "",
        "## Ratings",
        "",
        "Plackett–Luce (openskill); the interval is mu ± 1.96 sigma (95 %).",
        "",
    ]
    lines += _table(
        ["rank", "bot", "mu", "95 % interval", "games", "wins", "win %", "mean score"],
        [
            [
                rank,
                label,
                f"{bots[label]['rating']['mu']:.2f}" if "rating" in bots[label] else None,
                f"{bots[label]['rating']['low']:.2f} .. {bots[label]['rating']['high']:.2f}"
                if "rating" in bots[label]
                else None,
                bots[label]["games"],
                bots[label]["wins"],
                f"{100 * bots[label]['win_rate']:.1f}",
                f"{bots[label]['mean_score']:.1f}",
            ]
            for rank, label in enumerate(report["ranking"], 1)
        ],
    )
    labels = list(bots)
    lines += [
        "",
        "## Head to head",
        "",
        "Share of shared games the row bot ended above the column bot (a tie counts half).",
        "",
    ]
    lines += _table(
        ["", *labels],
        [
            [a, *("" if a == b else _percent(report["head_to_head"][a][b]) for b in labels)]
            for a in labels
        ],
    )
    lines += ["", "## Final scores", ""]
    lines += _table(
        ["bot", "min", "q1", "median", "q3", "max", "stdev"],
        [[label, *bots[label]["scores"].values()] for label in labels if bots[label]["scores"]],
    )
    sources = list(report["bots"][0]["mean_points_by_source"])
    lines += ["", "## Points by source", "", "Mean points per game.", ""]
    lines += _table(
        ["bot", *sources],
        [[label, *bots[label]["mean_points_by_source"].values()] for label in labels],
    )
    for section, per_bot in report["tallies"].items():
        lines += ["", f"## {section.capitalize()}", ""]
        for label, items in per_bot.items():
            measures = list(next(iter(items.values())))
            lines += [f"**{label}**", ""]
            lines += _table(
                ["", *(m.replace("_", " ") for m in measures)],
                [[item, *row.values()] for item, row in items.items()],
            )
            lines.append("")
    lines += ["", "## Seats", ""]
    for size, rows in report["seats"].items():
        lines += [f"Tables of {size} (seat 1 plays first):", ""]
        lines += _table(
            ["seat", "games", "win %", "mean score"],
            [
                [r["seat"] + 1, r["games"], f"{100 * r['win_rate']:.1f}", r["mean_score"]]
                for r in rows
            ],
        )
        lines.append("")
    if plots:
        lines += ["## Plots", ""]
        lines += [f"![{name}]({PLOTS_DIR}/{name}.svg)" for name in plots]
    return "\n".join(lines).rstrip() + "\n"


def _options(stored: dict[str, Any]) -> GameOptions:
    return GameOptions(**{**stored, "start_squares": None})  # for its description only


def _percent(share: float | None) -> str | None:
    return None if share is None else f"{100 * share:.1f} %"
