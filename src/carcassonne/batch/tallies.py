"""What each expansion paid each seat, counted in the worker that played the game.

A tally turns one finished game into counts per seat: ``{item: {measure: count}}``, e.g. for the
Bets ``{"4/7+": {"settled": 1, "won": 1, "points": 7}}``.  Counting in the worker keeps a result
a few numbers (no moves to ship back or games to replay), and the tournament report adds them up
per bot: the value of each betting chip, of each wine outlet.

An expansion adds its own with :func:`register_tally`; the bundled ones (bets, wine) are
registered at the end of this module.  A tally runs only on games with its expansion on.
"""

from __future__ import annotations

from collections.abc import Callable

from ..events import ScoreEvent
from ..expansions.bets import CHIPS
from ..expansions.mapchips import EXPORT, TOWN, WINE
from ..game import Game

#: per seat: item -> measure -> count
SeatTally = dict[str, dict[str, int]]
#: section (e.g. "bets") -> one SeatTally per seat
Tallies = dict[str, list[SeatTally]]
Tally = Callable[[Game], list[SeatTally]]

#: section -> (expansion name, tally, items in report order, measures in report order)
_TALLIES: dict[str, tuple[str, Tally, tuple[str, ...], tuple[str, ...]]] = {}


def register_tally(
    section: str, expansion: str, fn: Tally, items: tuple[str, ...], measures: tuple[str, ...]
) -> None:
    """Count ``fn(game)`` under ``section`` for games with ``expansion`` (its
    ``Expansion.name``) on; ``items`` and ``measures`` are every key it may return, in the order
    a report lists them."""
    _TALLIES[section] = (expansion, fn, items, measures)


def tally_layout(section: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The items and measures of a registered section, in report order."""
    _, _, items, measures = _TALLIES[section]
    return items, measures


def tally_game(game: Game) -> Tallies:
    """Every registered tally of the expansions this game plays with."""
    on = {expansion.name for expansion in game.expansions}
    return {
        section: fn(game) for section, (expansion, fn, _, _) in _TALLIES.items() if expansion in on
    }


def _empty(game: Game, items: tuple[str, ...], measures: tuple[str, ...]) -> list[SeatTally]:
    return [{item: dict.fromkeys(measures, 0) for item in items} for _ in range(game.players)]


BET_MEASURES = ("settled", "won", "points")


def bet_tally(game: Game) -> list[SeatTally]:
    """Per seat and chip: bets settled, bets that paid, points they paid."""
    seats = _empty(game, CHIPS, BET_MEASURES)
    for event in game.events:
        if isinstance(event, ScoreEvent) and event.source == "bet":
            counts = seats[event.detail["owner"]][event.detail["chip"]]
            paid = event.detail["paid"]
            counts["settled"] += 1
            counts["won"] += paid > 0
            counts["points"] += paid
    return seats


WINE_MEASURES = ("sold", "points")


def wine_tally(game: Game) -> list[SeatTally]:
    """Per seat and outlet (export, town): sales and the points they paid."""
    seats = _empty(game, (EXPORT, TOWN), WINE_MEASURES)
    for event in game.events:
        if isinstance(event, ScoreEvent) and event.source == WINE:
            for seat, points in event.points.items():
                counts = seats[seat][event.reason]
                counts["sold"] += 1
                counts["points"] += points
    return seats


register_tally("bets", "bets", bet_tally, CHIPS, BET_MEASURES)
register_tally("wine", "map-chips", wine_tally, (EXPORT, TOWN), WINE_MEASURES)
