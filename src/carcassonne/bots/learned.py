"""A learned evaluation of positions: the expert's value where its playouts stop.

The static evaluation (:mod:`evaluate`) guesses what each unfinished feature will pay from a few
hand-set constants.  This one describes a seat's position by :data:`FEATURES`: the static
estimates of the open roads, cities, monasteries and fields it holds, how many such features tie
up its figures, its cities one tile from closing, its figures in hand, the expansions' assets
(bets, goods) and the wines its map chips make, each also multiplied by the share of the game
left; and values the seat at

    certain points + sum(weight * feature)

(certain points: its score and what features completed this turn pay it), with weights fitted
by self-play (``benchmarks/train_evaluation.py``, one command, seeded: least squares of the
margin one seat still made over the other until the end of greedy games, on the difference of
their features).  Only differences between seats matter (the bot compares seats), so there is no
constant term.  Each rule family (:data:`FAMILIES`, :func:`family`) has weights of its own: what
a feature is worth depends on the rules around it (on a map, the border closes cities, so a
farmer's field pays far more than in a base game; one fit for all families valued farmers below
what they pay on the map).  The weights are shipped in ``data/evaluation.json``;
:func:`load_weights` checks that file and refuses a damaged one with an error naming it.

Information-fair: every feature is read from the board, the scores, the figures, the number of
tiles left and the expansions' adjustments, which value hidden chips by what the deciding seat
may expect (:func:`evaluate.register_adjustment`); never the stack order.  So two worlds the
seat cannot tell apart get the same value.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, Final

from ..board import DELTAS
from ..expansions.registry import evaluation_family
from ..features import Feature
from ..game import MEEPLE, Game
from ..options import GameOptions
from ..placement import rotations_fitting
from ..tiles import CITY, FIELD, ROAD, TileType
from .evaluate import DEFAULT_WEIGHTS, Evaluator, is_done
from .mapchips_policy import wines_in_front

#: tiles left at which the "share of the game left" is 1 (a base game starts with 71)
FULL_GAME_TILES: Final = 72.0

#: what describes a seat's position, in the order of the weights; each ``*_late`` twin is the same
#: number times the share of the game left (so a weight can change as the game goes on)
BASE_FEATURES: tuple[str, ...] = (
    "road_points",  # static estimate of the open roads the seat holds
    "roads",  # how many open roads the seat holds
    "city_points",
    "cities",
    "cities_one_edge",  # open cities the seat holds that one tile could close
    # the chance to complete, from the tiles still to come (public: only their order is hidden)
    "city_fit_points",  # city points * share of the tiles to come that fit its hardest square
    "city_dead_points",  # points of cities with a square no tile to come fits (never complete)
    "road_fit_points",
    "road_dead_points",
    "monastery_points",  # monasteries (and gardens)
    "monasteries",
    "field_points",
    "fields",
    "hand_points",  # the static value of the figures in hand
    "meeples",  # meeples in hand
    "adjustment",  # the expansions' assets (bets, goods)
    "wines",  # wines the seat's face-up map chips make, still to sell (Map-Chips)
)
FEATURES: tuple[str, ...] = BASE_FEATURES + tuple(f"{name}_late" for name in BASE_FEATURES)
_COUNT: Final = len(BASE_FEATURES)
# indices in a row of BASE_FEATURES (Final: constants, not module lookups, when compiled)
_ROAD_POINTS: Final = 0
_ROADS: Final = 1
_CITY_POINTS: Final = 2
_CITIES: Final = 3
_ONE_EDGE: Final = 4
_CITY_FIT: Final = 5
_CITY_DEAD: Final = 6
_ROAD_FIT: Final = 7
_ROAD_DEAD: Final = 8
_MONASTERY_POINTS: Final = 9
_MONASTERIES: Final = 10
_FIELD_POINTS: Final = 11
_FIELDS: Final = 12
_HAND: Final = 13
_MEEPLES: Final = 14
_ADJUSTMENT: Final = 15
_WINES: Final = 16

#: the rule families with weights of their own (see :func:`family`)
FAMILIES: tuple[str, ...] = ("base", "map", "inns-traders")

#: the shipped weights (package data)
DATA_FILE = "evaluation.json"
#: what the data file says it is
FORMAT = "carcassonne-evaluation"
VERSION = 2

#: family -> the weights of :data:`FEATURES`
FamilyWeights = dict[str, tuple[float, ...]]

_loaded: dict[str, FamilyWeights] = {}


def family(options: GameOptions) -> str:
    """The rule family whose weights value a game with ``options`` (``map``, ``inns-traders``
    or ``base``): the registry says which expansions make which
    (:func:`~carcassonne.expansions.registry.evaluation_family`)."""
    return evaluation_family(options)


class EvaluationDataError(ValueError):
    """The evaluation data file is damaged (the message names it and what is wrong)."""


def parse_weights(data: Any, source: str) -> FamilyWeights:
    """The weights of a decoded evaluation file, per family, checked; :class:`EvaluationDataError`
    naming ``source`` and the fault otherwise."""
    if not isinstance(data, dict):
        raise EvaluationDataError(f"{source}: expected a JSON object")
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise EvaluationDataError(
            f"{source}: not a {FORMAT} file of version {VERSION} "
            f"(format {data.get('format')!r}, version {data.get('version')!r})"
        )
    names = data.get("features")
    if names != list(FEATURES):
        raise EvaluationDataError(
            f"{source}: features must be exactly {', '.join(FEATURES)} (in that order)"
        )
    by_family = data.get("weights")
    if not isinstance(by_family, dict) or sorted(by_family) != sorted(FAMILIES):
        raise EvaluationDataError(
            f"{source}: weights must be an object with one list per family: {', '.join(FAMILIES)}"
        )
    return {name: _checked(by_family[name], f"{source}: weights of {name}") for name in FAMILIES}


def _checked(weights: Any, where: str) -> tuple[float, ...]:
    if not isinstance(weights, list) or len(weights) != len(FEATURES):
        raise EvaluationDataError(f"{where} must be a list of {len(FEATURES)} numbers")
    checked: list[float] = []
    for name, weight in zip(FEATURES, weights, strict=True):
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            raise EvaluationDataError(f"{where}: {name} is not a number: {weight!r}")
        if not math.isfinite(weight) or abs(weight) > 1000:
            raise EvaluationDataError(f"{where}: {name} out of range: {weight!r}")
        checked.append(float(weight))
    return tuple(checked)


def read_weights(ref: Traversable | Path, source: str) -> FamilyWeights:
    """The checked weights in the file ``ref`` (``source`` names it in errors)."""
    try:
        data = json.loads(ref.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise EvaluationDataError(f"{source}: cannot be read: {error}") from None
    return parse_weights(data, source)


def load_weights() -> FamilyWeights:
    """The shipped weights, read and checked once per process."""
    weights = _loaded.get(DATA_FILE)
    if weights is None:
        ref = resources.files("carcassonne") / "data" / DATA_FILE
        weights = _loaded[DATA_FILE] = read_weights(ref, f"carcassonne/data/{DATA_FILE}")
    return weights


def seat_features(game: Game, seat: int) -> tuple[list[float], list[list[float]]]:
    """Each seat's certain points (its score and the features completed but not paid yet,
    which a valuation mid-turn meets) and its :data:`FEATURES` in ``game``, as ``seat`` values
    it (the expansions' adjustments value hidden chips for ``seat``)."""
    certain, rows, late = _base_features(game, seat)
    return certain, [row + [late * x for x in row] for row in rows]


def _base_features(game: Game, seat: int) -> tuple[list[float], list[list[float]], float]:
    """:func:`seat_features` without the ``*_late`` twins, and the share of the game left."""
    evaluator = Evaluator(game, DEFAULT_WEIGHTS)
    evaluator.seat = seat
    certain = [float(score) for score in game.scores]
    rows = [[0.0] * _COUNT for _ in range(game.players)]
    for adjust in evaluator.adjustments:
        for s, delta in enumerate(adjust(game, game, seat)):
            rows[s][_ADJUSTMENT] += delta
    free = [supply.get(MEEPLE, 0) for supply in game.supply]
    hands = [dict(supply) for supply in game.supply]
    seen: set[Feature] = set()  # features hash by identity
    seg_feature = game.seg_feature
    tiles_to_come = TilesToCome(game)
    for segment in game.figures:
        feature = seg_feature[segment]
        if feature in seen:
            continue
        seen.add(feature)
        holders = game.majority(feature)
        points = evaluator.potential(game, feature)
        if is_done(game, feature):
            for s, figure, _ in feature.figures:
                hands[s][figure] = hands[s].get(figure, 0) + 1
                if figure == MEEPLE:
                    free[s] += 1
            for s in holders:
                certain[s] += points
            continue
        kind = feature.kind
        line = kind in (ROAD, CITY)  # what tiles to come may complete
        fit = tiles_to_come.hardest_fit(game, feature) if line else 0.0
        fit_at = dead_at = -1
        if kind == ROAD:
            points_at, count_at = _ROAD_POINTS, _ROADS
            fit_at, dead_at = _ROAD_FIT, _ROAD_DEAD
        elif kind == CITY:
            points_at, count_at = _CITY_POINTS, _CITIES
            fit_at, dead_at = _CITY_FIT, _CITY_DEAD
        elif kind == FIELD:
            points_at, count_at = _FIELD_POINTS, _FIELDS
        else:
            points_at, count_at = _MONASTERY_POINTS, _MONASTERIES
        for s in holders:
            row = rows[s]
            row[points_at] += points
            row[count_at] += 1.0
            if line:
                row[fit_at] += fit * points
                if fit == 0.0:
                    row[dead_at] += points
                if kind == CITY and feature.open == 1:
                    row[_ONE_EDGE] += 1.0
    for s, hand in enumerate(hands):
        row = rows[s]
        for figure, count in hand.items():
            row[_HAND] += evaluator.hand_value(figure, count)
        row[_MEEPLES] = float(free[s])
    wines = wines_in_front(game)
    if wines is not None:
        for s, count in enumerate(wines):
            rows[s][_WINES] = float(count)
    return certain, rows, min(1.0, evaluator.tiles_left / FULL_GAME_TILES)


class TilesToCome:
    """The tiles still to be placed (the stack, and the tile drawn while it waits to be placed:
    their order aside, public) and which open squares they fit, counted once per square
    constraint."""

    __slots__ = ("counts", "types", "total", "_fits")

    def __init__(self, game: Game) -> None:
        #: tile type (by its registry index) -> copies to come
        counts: dict[int, int] = {}
        types: dict[int, TileType] = {}
        drawn = game.current_tile if game.phase == "tile" else None
        for tile in game.stack if drawn is None else [*game.stack, drawn]:
            counts[tile.index] = counts.get(tile.index, 0) + 1
            types[tile.index] = tile
        self.counts = counts
        self.types = types
        self.total = sum(counts.values())
        self._fits: dict[int, float] = {}

    def share_fitting(self, key: int) -> float:
        """Share of the tiles to come that fit an open square of constraint ``key``."""
        share = self._fits.get(key)
        if share is None:
            types = self.types
            fitting = 0
            # (a loop over the dict's items: a generator costs more when compiled)
            for index, copies in self.counts.items():
                if rotations_fitting(types[index], key):
                    fitting += copies
            share = self._fits[key] = fitting / self.total if self.total else 0.0
        return share

    def hardest_fit(self, game: Game, feature: Feature) -> float:
        """The smallest share of the tiles to come that fit one of the open squares the road
        or city ``feature`` runs into (0: it can never be completed)."""
        board = game.board
        frontier = game.frontier
        seg_feature = game.seg_feature
        hardest = 1.0
        for pos in feature.squares:
            placed = board[pos]
            edge_segment = placed.orientation.edge_segment
            for side in range(4):
                segment = edge_segment[side]
                if segment < 0 or seg_feature[placed.base + segment] is not feature:
                    continue
                square = frontier.get(pos + DELTAS[side])
                if square is not None:
                    hardest = min(hardest, self.share_fitting(square[0]))
        return hardest


class LearnedEvaluation:
    """Values positions with the learned weights of the game's family (:func:`load_weights`
    unless given; one tuple given is used for every family)."""

    __slots__ = ("weights", "_split")

    def __init__(self, weights: FamilyWeights | tuple[float, ...] | None = None) -> None:
        if weights is None:
            weights = load_weights()
        elif isinstance(weights, tuple):
            weights = dict.fromkeys(FAMILIES, weights)
        self.weights: FamilyWeights = weights
        # per family, the weights of the features and of their *_late twins, applied without
        # building the twins
        self._split = {name: (w[:_COUNT], w[_COUNT:]) for name, w in weights.items()}

    def seat_values(self, game: Game, seat: int) -> list[float]:
        """Each seat's expected final score as ``seat`` sees it; a finished game's scores."""
        if game.is_over:
            return [float(s) for s in game.scores]
        values, rows, late = _base_features(game, seat)
        early_weights, late_weights = self._split[family(game.options)]
        for s, row in enumerate(rows):
            early = latter = 0.0
            for i, x in enumerate(row):
                if x:
                    early += early_weights[i] * x
                    latter += late_weights[i] * x
            values[s] += early + late * latter
        return values
