"""`carcassonne review FILE [--seat N] [--iterations K] [--seed S] [--top K] [--json]`.

Reviews a game record (:mod:`carcassonne.bots.review`): every decision of the reviewed seats (by
default the human ones) is searched by the expert from that seat's view, with a progress bar on
a terminal, then printed: each seat's accuracy and marks, and a table of the biggest mistakes
(turn, move played, better move, points lost).  ``--json`` prints the review as one JSON object
instead (the same document the web's review serves).  A bad record exits with status 1 naming
the move at fault, a seat that is not in the game with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..actions import PlaceTile
from ..batch.runner import Progress
from ..bots import check_bot_spec
from ..bots.review import DEFAULT_ITERATIONS, MARK_NAMES, MAX_ITERATIONS, Mark, Review, review
from ..formats.actions import action_to_json
from ..formats.record import Record, read_record, replay_record
from ..game import Game
from .errors import CommandError
from .wording import decision_label, figure_label

#: rows of the mistakes table unless --top says otherwise
DEFAULT_TOP = 10


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "review",
        help="review a game record: mark each decision from best to blunder",
        description="Review a game record (docs/record-format.md): the expert searches every "
        "decision of the reviewed seats from that seat's view and marks it by the expected "
        "points it lost (best, good, inaccuracy, mistake, blunder; docs/bots.md).",
    )
    parser.add_argument("file", metavar="FILE", help="a carcassonne-record/1 JSON file")
    parser.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="N",
        help="review seat N (0 is the first; repeat for more; default: every human seat)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        metavar="K",
        help=f"playouts per decision (default {DEFAULT_ITERATIONS}, at most {MAX_ITERATIONS})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    parser.add_argument(
        "--top",
        type=int,
        default=DEFAULT_TOP,
        metavar="K",
        help=f"rows of the biggest mistakes (default {DEFAULT_TOP})",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (and no progress bar)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.iterations <= MAX_ITERATIONS:
        raise CommandError(f"--iterations must be 1 to {MAX_ITERATIONS}, not {args.iterations}")
    if args.top < 0:
        raise CommandError(f"--top must be at least 0, not {args.top}")
    if args.seed < 0:
        raise CommandError(f"--seed must be at least 0, not {args.seed}")
    # A RecordError (a bad bot seat too) is reported by main, exit status 1.
    record = read_record(args.file, check_bot_spec)
    game = replay_record(record)
    names = seat_names(record, game.players)
    seats = _reviewed_seats(record, game.players, args.seat)
    progress: Progress | None = None

    def heard(done: int, count: int) -> None:
        nonlocal progress
        if progress is None and count:
            progress = Progress(count, sys.stderr, enabled=not args.json, unit="decisions")
        if progress is not None:
            progress.update(done)

    try:
        result = review(
            game.options, game.history, seats, heard, iterations=args.iterations, seed=args.seed
        )
    finally:
        if progress is not None:
            progress.close()
    if args.json:
        print(json.dumps({"names": names, **result.to_json(action_to_json)}, indent=2))
    else:
        print(review_text(args.file, game, result, names, args.top))
    return 0


def seat_names(record: Record, players: int) -> list[str]:
    return [record.seats[i].label(i) if record.seats else f"seat {i}" for i in range(players)]


def _reviewed_seats(record: Record, players: int, asked: list[int] | None) -> list[int]:
    """The seats asked for (checked), else the human ones; CommandError if there are none."""
    if asked:
        for seat in asked:
            if not 0 <= seat < players:
                raise CommandError(f"--seat {seat}: the game has seats 0 to {players - 1}")
        return sorted(set(asked))
    humans = [i for i in range(players) if not record.seats or record.seats[i].kind == "human"]
    if not humans:
        raise CommandError("every seat of this game is a bot: name the seats to review (--seat N)")
    return humans


def move_label(game: Game, action: Any) -> str:
    """``action`` in words, as it was taken in ``game`` (the position before it)."""
    if isinstance(action, PlaceTile):  # the tile by its id: the table stays narrow
        tile = game.current_tile.id if game.current_tile else "tile"
        return f"{tile} at ({action.x}, {action.y}) {action.rotation}°"
    if game.phase == "figure":
        return figure_label(game, action)
    return decision_label(action)


def _labels(game: Game, marks: list[Mark]) -> dict[int, tuple[str, str]]:
    """For each mark's ply: the move played and the better one, in words."""
    wanted = {mark.ply: mark for mark in marks}
    replayed = Game(game.options)
    labels = {}
    for ply, (_, action) in enumerate(game.history, 1):
        if ply in wanted:
            labels[ply] = (move_label(replayed, action), move_label(replayed, wanted[ply].best))
        replayed.apply(action)
    return labels


def review_text(path: str, game: Game, result: Review, names: list[str], top: int) -> str:
    width = max(len("seat"), *(len(names[seat]) for seat in result.seats))
    lines = [
        f"{path}: {len(result.marks)} decisions of "
        f"{', '.join(names[seat] for seat in result.seats)} reviewed "
        f"({result.iterations} playouts each, seed {result.seed})",
        "Accuracy (100: every move the best):",
    ]
    for seat in result.seats:
        accuracy = result.accuracy(seat)
        counts = result.counts(seat)
        marks = ", ".join(f"{name} {counts[name]}" for name in MARK_NAMES)
        shown = "  -  " if accuracy is None else f"{accuracy:5.1f}"
        lines.append(f"  {names[seat]:<{width}}  {shown}   {marks}")
    if top == 0:
        return "\n".join(lines)
    worst = result.worst(top)
    lines.append("")
    if not worst:
        lines.append("No move lost points.")
        return "\n".join(lines)
    lines.append("Biggest mistakes (expected points lost):")
    labels = _labels(game, worst)
    played_width = max(len(labels[m.ply][0]) for m in worst)
    lines.append(
        f"  {'turn':>4}  {'seat':<{width}}  {'mark':<10}  {'lost':>5}  "
        f"{'played':<{played_width}}  better"
    )
    for mark in worst:
        played, better = labels[mark.ply]
        lines.append(
            f"  {mark.turn:>4}  {names[mark.seat]:<{width}}  {mark.mark:<10}  {mark.lost:>5.1f}  "
            f"{played:<{played_width}}  {better}"
        )
    return "\n".join(lines)
