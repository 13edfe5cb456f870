"""Game review: each decision of the reviewed seats marked by the expected points it lost.

:func:`review` replays a game and, at every decision of a reviewed seat that had more than one
legal action, runs the expert's search from that seat's view (:meth:`.ExpertBot.hints` with the
move played kept in the race: both are played out in the same sampled worlds, so their difference
is the moves', not the draws').  The expert samples worlds of what the seat could not see (the
stack order, other seats' chips), so a decision is judged by what the seat could know then: two
games it could not tell apart get the same review.

Each decision's **loss** is the best move's expected lead minus the played move's (never below
0), and its mark the first class whose bound it does not exceed (:data:`MARKS`):

========== ==============
best       0.5 points lost
good       2
inaccuracy 5
mistake    10
blunder    more than 10
========== ==============

A decision's accuracy is ``100 * exp(-loss / ACCURACY_SCALE)`` (100 for the best move, 61 for 5
points lost, 37 for 10); a seat's is the mean over its reviewed decisions, and its chart series
the running mean after each one.

The search has an iteration budget and a seed per decision (from the review's seed and the ply),
so a review is reproducible: the same game, seats, budget and seed give the same review, on a
busy machine or an idle one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..game import Game
from ..options import GameOptions
from ..replaying import Move, replay
from .expert import ExpertBot

#: the marks, best first, each with the most points lost it allows (the last allows any)
MARKS: tuple[tuple[str, float], ...] = (
    ("best", 0.5),
    ("good", 2.0),
    ("inaccuracy", 5.0),
    ("mistake", 10.0),
    ("blunder", math.inf),
)
MARK_NAMES = tuple(name for name, _ in MARKS)
#: points lost that bring a decision's accuracy down to 1/e (37)
ACCURACY_SCALE = 10.0
#: playouts per reviewed decision: a base game of two players (about 125 decisions) is reviewed
#: in about 20 s of one core (docs/bots.md, "Review")
DEFAULT_ITERATIONS = 120
#: most playouts per decision a review may ask for
MAX_ITERATIONS = 2000

#: ``progress(done, total)``: called before the first decision and after each one
Progress = Callable[[int, int], None]
#: an action as JSON (the edges hand in ``formats.actions.action_to_json``: bots know no format)
ActionEncoder = Callable[[Any], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Mark:
    """One reviewed decision: ``ply`` counts the game's actions from 1, ``turn`` the tile turns
    from 1 (as score events and players count them); points are the seat's expected lead over
    the best other seat after the move."""

    ply: int
    turn: int
    seat: int
    played: Any
    best: Any
    played_points: float
    best_points: float

    @property
    def lost(self) -> float:
        return max(0.0, round(self.best_points - self.played_points, 2))

    @property
    def mark(self) -> str:
        return mark_of(self.lost)

    @property
    def accuracy(self) -> float:
        return 100.0 * math.exp(-self.lost / ACCURACY_SCALE)

    def to_json(self, encode: ActionEncoder) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "turn": self.turn,
            "seat": self.seat,
            "played": encode(self.played),
            "best": encode(self.best),
            "played_points": self.played_points,
            "best_points": self.best_points,
            "lost": self.lost,
            "mark": self.mark,
        }


@dataclass(frozen=True, slots=True)
class Review:
    """The marks of a game's reviewed decisions, in the game's order, and how they were found."""

    seats: tuple[int, ...]
    iterations: int
    seed: int
    marks: tuple[Mark, ...]

    def accuracy(self, seat: int) -> float | None:
        """``seat``'s mean accuracy (0-100), None if none of its decisions was reviewed."""
        series = self.series(seat)
        return series[-1][1] if series else None

    def series(self, seat: int) -> list[tuple[int, float]]:
        """``(ply, running accuracy)`` after each of ``seat``'s reviewed decisions."""
        points: list[tuple[int, float]] = []
        total = 0.0
        for mark in self.marks:
            if mark.seat == seat:
                total += mark.accuracy
                points.append((mark.ply, round(total / (len(points) + 1), 1)))
        return points

    def counts(self, seat: int) -> dict[str, int]:
        """How many of ``seat``'s decisions got each mark."""
        counts = dict.fromkeys(MARK_NAMES, 0)
        for mark in self.marks:
            if mark.seat == seat:
                counts[mark.mark] += 1
        return counts

    def worst(self, limit: int) -> list[Mark]:
        """The ``limit`` decisions that lost most (ties in the game's order), none that lost
        nothing."""
        lost = [mark for mark in self.marks if mark.lost > 0]
        return sorted(lost, key=lambda m: (-m.lost, m.ply))[:limit]

    def to_json(self, encode: ActionEncoder) -> dict[str, Any]:
        """The review as one JSON document (what ``carcassonne review --json`` prints and the
        web serves: docs/web.md)."""
        return {
            "seats": list(self.seats),
            "iterations": self.iterations,
            "seed": self.seed,
            "thresholds": {name: bound for name, bound in MARKS if math.isfinite(bound)},
            "marks": [mark.to_json(encode) for mark in self.marks],
            "accuracy": {str(seat): self.accuracy(seat) for seat in self.seats},
            "counts": {str(seat): self.counts(seat) for seat in self.seats},
            "series": {str(seat): self.series(seat) for seat in self.seats},
        }


def mark_of(lost: float) -> str:
    """The mark of a decision that lost ``lost`` expected points."""
    return next(name for name, bound in MARKS if lost <= bound)


def decisions(options: GameOptions, moves: Sequence[Move], seats: Iterable[int]) -> list[int]:
    """The indices in ``moves`` of the decisions a review of ``seats`` looks at: theirs, with
    more than one legal action."""
    wanted = set(seats)
    game = Game(options)
    chosen = []
    for index, (seat, action) in enumerate(moves):
        if seat in wanted and len(game.legal_actions()) > 1:
            chosen.append(index)
        game.apply(action)
    return chosen


def review_decision(game: Game, played: Any, iterations: int, seed: int) -> Mark:
    """The mark of ``played`` for the seat to move in ``game``, from that seat's sampled worlds
    only; ``seed`` is the review's (each decision searches with its own, from it and the ply,
    so reviewing fewer seats or more of the game leaves a decision's mark as it was)."""
    ply = len(game.history) + 1
    bot = ExpertBot(seed * 1_000_003 + ply, iterations=iterations)
    hints = bot.hints(game, 1, include=played)
    best = hints[0]
    mine = next(h for h in hints if h.action == played)
    if mine.expected_points >= best.expected_points:  # a late entrant may rank above on fewer
        best = mine
    # the turn as players count it: a tile about to be placed starts the next one
    turn = game.turn + (game.phase == "tile")
    return Mark(
        ply, turn, game.to_move, played, best.action, mine.expected_points,
        best.expected_points,
    )  # fmt: skip


def review(
    options: GameOptions,
    moves: Sequence[Move],
    seats: Iterable[int],
    progress: Progress | None = None,
    *,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
) -> Review:
    """Review the decisions of ``seats`` in the game ``options`` sets up, played by ``moves``.

    ``progress(done, total)`` hears of each decision reviewed.  Raises ReplayError if the moves
    do not replay, ValueError for a budget out of range.
    """
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be 1 to {MAX_ITERATIONS}, not {iterations}")
    reviewed = tuple(sorted(set(seats)))
    replay(options, moves)  # every move checked before any search is spent on them
    wanted = decisions(options, moves, reviewed)
    if progress:
        progress(0, len(wanted))
    game = Game(options)
    marks: list[Mark] = []
    for index in wanted:
        for _, action in moves[len(game.history) : index]:
            game.apply(action)
        marks.append(review_decision(game, moves[index][1], iterations, seed))
        if progress:
            progress(len(marks), len(wanted))
    return Review(reviewed, iterations, seed, tuple(marks))
