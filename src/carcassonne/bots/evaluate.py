"""A cheap static evaluation of a position, shared by the greedy bot and its phase policies.

The value of a seat is its score, plus what its figures on unfinished features are expected to
earn, plus what the figures still in hand are worth as future opportunities.  Only features with
figures on them are looked at (an unclaimed feature earns nobody anything), so evaluating a
position costs a few dozen operations however large the board is.

The estimates are deliberately simple and tuned against the random bot and against variants of
themselves (see ``benchmarks/README.md``); with no tiles left every estimate is exactly what final
scoring pays, so the last turn is played exactly.

Positions are evaluated *before* the step-3 scoring of the current turn as well as after it, so a
road or city whose open-edge count is 0, or a cloister whose eight neighbours are placed, counts as
completed (its value realised, its figures as good as back in hand) whether or not the engine has
paid it yet.  That makes "tile placed, figure not yet chosen" directly comparable with "turn over".

Expansions adjust the evaluation with :func:`register_adjustment`, from their own modules::

    from carcassonne.bots.evaluate import register_adjustment
    from carcassonne.expansions.mapchips import MapChips

    def chips(before: Game, after: Game, seat: int) -> Sequence[float]:
        ...  # one number per seat, added to that seat's value

    register_adjustment(MapChips, chips)

``before`` is the position the deciding ``seat`` is at, ``after`` the position being valued (a
copy after some of its options were applied, or ``before`` itself with a candidate tile placed on
it, :meth:`Game.placed_for_lookahead`: so read from ``before`` only what placing a tile does not
change, such as the number of tiles left).  Two uses: keep hidden information hidden (a bot
that applies an option to a copy sees what the engine reveals, e.g. a face-down map chip's value
in ``after.scores``; the adjustment replaces it by what ``seat`` may expect), and value an
expansion's assets that scores do not show yet (chips that may become wine, bets lying on
offices).  Adjustments run only in games with the named expansion (``Expansion.name``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from ..board import RING
from ..expansions.base import Expansion
from ..expansions.inns import LARGE_MEEPLE
from ..features import Feature
from ..game import MEEPLE, Game
from ..tiles import CITY, FIELD, ROAD


@dataclass(frozen=True, slots=True)
class Weights:
    """Tunable constants of the evaluation (defaults measured, see benchmarks/README.md)."""

    #: chance that one open city edge gets closed, given time (a city with k open edges: q**k)
    city_edge_close: float = 0.45
    #: own turns a feature needs per open edge before its estimate is at full strength
    turns_per_open_edge: float = 2.0
    #: tiles an open road/city is expected to grow by per open edge
    growth_per_open_edge: float = 0.5
    #: share of a cloister's empty neighbour squares expected to be filled with time
    cloister_fill: float = 0.85
    #: value of the free meeples in hand, first (scarcest) to last, at full time horizon
    meeple_in_hand: tuple[float, ...] = (6.0, 4.4, 3.4, 2.8, 2.4, 2.0, 2.0, 2.0, 2.0)
    #: value of any other figure type in hand (the abbot), at full time horizon
    other_figure_in_hand: float = 1.5
    #: value of the large meeple in hand (Inns & Cathedrals): kept for a feature worth it, like a
    #: scarce meeple, rather than spent on the first small one
    large_meeple_in_hand: float = 5.0
    #: own turns left from which a figure in hand is worth its full value
    hand_horizon_turns: float = 8.0


DEFAULT_WEIGHTS = Weights()

Adjustment = Callable[[Game, Game, int], Sequence[float]]

_ADJUSTMENTS: Final[dict[type[Expansion], Adjustment]] = {}


def register_adjustment(expansion: type[Expansion], fn: Adjustment) -> None:
    """Add ``fn(before, after, seat)``'s per-seat numbers to values in games with ``expansion``."""
    _ADJUSTMENTS[expansion] = fn


#: ``fn(evaluator, game, figure, feature)``: what a figure that joins its seat's meeple (and
#: weighs nothing in majorities: a builder, a pig) adds by standing on ``feature``
JoiningGain = Callable[["Evaluator", Game, str, Feature], float]

_JOINING_GAINS: Final[dict[str, JoiningGain]] = {}


def register_joining_gain(figure: str, fn: JoiningGain) -> None:
    """Value ``figure`` with ``fn`` when it is placed (instead of the feature's potential)."""
    _JOINING_GAINS[figure] = fn


def is_done(game: Game, feature: Feature) -> bool:
    """Whether ``feature`` is completed, or will be in this turn's step-3 scoring."""
    if feature.complete:
        return True
    kind = feature.kind
    if kind in (CITY, ROAD):
        return feature.open == 0
    if kind == FIELD:
        return False
    (pos,) = feature.squares
    return game.ring_count(pos) == 8


class Estimate:
    """A feature's expected points, the seats it pays, whether it is done, and for a field the
    cities it borders (what its estimate depends on).  A class rather than a tuple: the
    compiled build would unbox and box a tuple of a float each time one is read from
    :data:`Estimates`."""

    __slots__ = ("points", "seats", "done", "cities")

    def __init__(
        self, points: float, seats: list[int], done: bool, cities: tuple[Feature, ...]
    ) -> None:
        self.points = points
        self.seats = seats
        self.done = done
        self.cities = cities


Estimates = dict[Feature, Estimate]

_AROUND: Final = frozenset(RING)


def _changed_by_placement(game: Game) -> set[Feature]:
    """The features on the tile just placed: any feature the placement changed (merged, had
    edges closed) is one of them now."""
    placed = game.last_placed
    assert placed is not None
    seg_feature = game.seg_feature
    base = placed.base
    return {seg_feature[base + i] for i in range(len(placed.orientation.segments))}


def _estimate_is_stale(
    game: Game, feature: Feature, estimate: Estimate, changed: set[Feature]
) -> bool:
    """Whether a cloister or field the placement did not change has a different estimate all the
    same: a cloister that got a neighbour, a field whose bordering cities changed (or were merged
    into one of the ``changed`` features).  Roads and cities depend on themselves only."""
    placed = game.last_placed
    assert placed is not None
    if feature.kind != FIELD:
        (pos,) = feature.squares
        return pos - placed.pos in _AROUND
    seg_feature = game.seg_feature
    return any(
        city in changed or seg_feature[city.segments[0]] is not city for city in estimate.cities
    )


def _changes_a_city(changed: set[Feature]) -> bool:
    """Whether the tile just placed changed a city (``changed``: the features on it).  If not,
    no field's estimate is stale: a city changes only by a tile's segments joining it, which
    makes it one of ``changed``."""
    return any(feature.kind == CITY for feature in changed)


class Evaluator:
    """Values positions for one decision: ``game`` is where it is taken, by ``game.to_move``.

    The time left is the decision's, not that of the copy being valued, so that options which
    end the turn (and draw the next tile) are compared on the same footing as those that do not.
    """

    __slots__ = (
        "before",
        "seat",
        "players",
        "turns_left",
        "tiles_left",
        "weights",
        "adjustments",
        "_completions",
        "_lines",
        "_cloisters",
        "_hands",
    )

    def __init__(self, game: Game, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.before = game
        self.seat = game.to_move
        self.adjustments = [
            fn for kind, fn in _ADJUSTMENTS.items() if game.expansion(kind) is not None
        ]
        self.players = game.players
        self.tiles_left = len(game.stack)
        #: own turns left for an average seat after the tile of this turn
        self.turns_left = self.tiles_left / game.players
        self.weights = weights
        # Every estimate depends only on a few numbers of its feature and on the time left, which
        # is fixed for the decision: a bot values many positions per decision, so each estimate
        # is computed once per distinct key (city open edges; road/city kind, tiles, open edges,
        # coats of arms; cloister neighbours; figure type and count in hand).
        self._completions: dict[int, float] = {}
        self._lines: dict[tuple[int, int, int, int], float] = {}
        self._cloisters: dict[int, float] = {}
        self._hands: dict[str, list[float]] = {}  # figure -> value by count

    def horizon(self, turns_needed: float) -> float:
        """How much of an estimate's future part survives, 0 (no time) … 1 (plenty)."""
        if turns_needed <= 0:
            return 1.0
        return min(1.0, self.turns_left / turns_needed)

    def city_completion(self, game: Game, city: Feature) -> float:
        """Estimated chance that ``city`` ends completed."""
        return self._completion(city.open)

    def _completion(self, open_edges: int) -> float:
        chance = self._completions.get(open_edges)
        if chance is None:
            w = self.weights
            if open_edges == 0:
                chance = 1.0
            elif self.tiles_left == 0:
                chance = 0.0
            else:
                chance = w.city_edge_close**open_edges * self.horizon(
                    w.turns_per_open_edge * open_edges
                )
            self._completions[open_edges] = chance
        return chance

    def potential(self, game: Game, feature: Feature) -> float:
        """Expected points ``feature`` pays its majority (realised value if it is done)."""
        kind = feature.kind
        if kind == FIELD:
            return self._field_potential(game.bordering_cities(feature))
        if kind in (CITY, ROAD):
            if feature.marks is not None:
                return self._marked_potential(game, feature)
            key = (kind, len(feature.squares), feature.open, feature.coat_of_arms)
            points = self._lines.get(key)
            if points is None:
                points = self._lines[key] = self._line_potential(*key)
            return points
        (pos,) = feature.squares
        neighbours = game.ring_count(pos)
        points = self._cloisters.get(neighbours)
        if points is None:
            points = self._cloisters[neighbours] = self._cloister_potential(neighbours)
        return points

    def _field_potential(self, cities: Sequence[Feature]) -> float:
        """A field's expected points from the cities it borders: 3 per city likely completed."""
        completion = self._completion
        total = 0.0
        for city in cities:
            total += completion(city.open)
        return 3.0 * total

    def _line_potential(self, kind: int, tiles: int, open_edges: int, coat_of_arms: int) -> float:
        """A road or city's expected points (coat_of_arms is 0 on roads)."""
        if open_edges == 0:
            return 2.0 * (tiles + coat_of_arms) if kind == CITY else float(tiles)
        if self.tiles_left == 0:
            return float(tiles + coat_of_arms)
        growth = self.weights.growth_per_open_edge * open_edges * self.horizon(2.0)
        base = tiles + coat_of_arms + growth
        if kind == ROAD:
            return base
        return base * (1.0 + self._completion(open_edges))

    def _marked_potential(self, game: Game, feature: Feature) -> float:
        """A road or city with marks (an inn, a cathedral, trade goods), whose expansion may pay
        it differently: the same estimate as :meth:`_line_potential`, with the rates per tile
        (and coat of arms) the game pays for it completed and at the end, weighed by the chance
        it is completed.  For a plain road (1 and 1) or city (2 and 1) that is the same number;
        an inn road's or cathedral city's gamble (double or nothing) shows."""
        done = float(game.feature_value(feature, False))
        if feature.open == 0:
            return done
        end = float(game.feature_value(feature, True))
        if self.tiles_left == 0:
            return end
        units = len(feature.squares) + feature.coat_of_arms
        growth = self.weights.growth_per_open_edge * feature.open * self.horizon(2.0)
        chance = self._completion(feature.open)
        return (units + growth) * (chance * done + (1.0 - chance) * end) / units

    def _cloister_potential(self, neighbours: int) -> float:
        if neighbours == 8:
            return 9.0
        empty = 8 - neighbours
        return 1.0 + neighbours + empty * self.weights.cloister_fill * self.horizon(empty / 2.0)

    def hand_value(self, figure: str, count: int) -> float:
        """What ``count`` figures of one type in hand are worth as future opportunities."""
        if count <= 0:
            return 0.0
        values = self._hands.get(figure)
        if values is None:
            values = self._hands[figure] = [0.0]
        while len(values) <= count:
            values.append(self._hand_value(figure, len(values)))
        return values[count]

    def _hand_value(self, figure: str, count: int) -> float:
        if count <= 0 or self.tiles_left == 0:
            return 0.0
        w = self.weights
        if figure == MEEPLE:
            table = w.meeple_in_hand
            value = sum(table[: min(count, len(table))]) + table[-1] * max(0, count - len(table))
        elif figure == LARGE_MEEPLE:
            value = w.large_meeple_in_hand * count
        else:
            value = w.other_figure_in_hand * count
        return value * self.horizon(w.hand_horizon_turns)

    def seat_values(self, game: Game) -> list[float]:
        """Score + expected points of standing figures + value of figures in hand, per seat.

        A finished game is worth exactly its scores.
        """
        return self.assess(game)[0]

    def assess(
        self, game: Game, known: Estimates | None = None
    ) -> tuple[list[float], list[dict[str, int]]]:
        """:meth:`seat_values` and each seat's figures in hand once this turn is scored.

        ``known``: :meth:`estimates` of the decision's position, when ``game`` is that position
        with one tile placed on it (:meth:`Game.placed_for_lookahead`); the features the tile did
        not change keep their estimates, so valuing each candidate placement costs a few
        features, not all of them.  The result is the same, to the last bit.
        """
        values = [float(s) for s in game.scores]
        free = [dict(supply) for supply in game.supply]
        for adjust in self.adjustments:
            for seat, delta in enumerate(adjust(self.before, game, self.seat)):
                values[seat] += delta
        if game.is_over:
            return values, free
        seg_feature = game.seg_feature
        # The features with figures, each once, in the order of their first figure: with
        # ``known``, its features (in that order) as the tile found them; the tile may have
        # merged some of them, and a merged one is met first where its earliest part was, as
        # walking the figures would meet it.
        if known is None:
            changed: set[Feature] = set()
            met: Iterable[Feature] = [seg_feature[segment] for segment in game.figures]
        else:
            changed = _changed_by_placement(game)
            met = known
        fields_may_change = known is not None and _changes_a_city(changed)
        seen: set[Feature] = set()  # features hash by identity
        for old in met:
            feature = seg_feature[old.segments[0]]
            estimate = None
            if known is not None and feature is old and feature not in changed:
                # untouched by the tile: met once, its estimate stands unless it is stale
                estimate = known[feature]
                kind = feature.kind
                if (
                    kind != CITY
                    and kind != ROAD
                    and (kind != FIELD or fields_may_change)
                    and _estimate_is_stale(game, feature, estimate, changed)
                ):
                    estimate = None
            elif feature in seen:
                continue
            else:
                seen.add(feature)
            if estimate is None:
                estimate = self._estimate(game, feature)
            points = estimate.points
            for seat in estimate.seats:
                values[seat] += points
            if estimate.done:
                for seat, figure, _ in feature.figures:
                    free[seat][figure] = free[seat].get(figure, 0) + 1
        for seat, supply in enumerate(free):
            for figure, count in supply.items():
                values[seat] += self.hand_value(figure, count)
        return values, free

    def estimates(self, game: Game) -> Estimates:
        """Each feature with figures in ``game`` -> its estimate, for :meth:`assess`'s ``known``."""
        known: Estimates = {}
        seg_feature = game.seg_feature
        for segment in game.figures:
            feature = seg_feature[segment]
            if feature not in known:
                known[feature] = self._estimate(game, feature)
        return known

    def _estimate(self, game: Game, feature: Feature) -> Estimate:
        if feature.kind == FIELD:  # (its cities read once, for the estimate and its key;
            # done as is_done says of a field)
            cities = tuple(game.bordering_cities(feature))
            return Estimate(
                self._field_potential(cities), game.majority(feature), feature.complete, cities
            )
        return Estimate(
            self.potential(game, feature), game.majority(feature), is_done(game, feature), ()
        )

    def figure_gain(self, game: Game, figure: str, in_hand: int, feature: Feature) -> float:
        """How much a seat's value changes by standing a ``figure`` on unoccupied ``feature``.

        ``in_hand`` is how many of that figure the seat holds once this turn is scored (from
        :meth:`assess`).
        """
        joining = _JOINING_GAINS.get(figure)
        if joining is None:
            points = self.potential(game, feature)
        else:
            points = joining(self, game, figure, feature)
        if is_done(game, feature):
            return points  # scored this turn and the figure comes straight back
        return points + self.hand_value(figure, in_hand - 1) - self.hand_value(figure, in_hand)


def relative(values: list[float], seat: int) -> float:
    """``seat``'s value minus the best other seat's: what every bot decision maximises."""
    # (a loop rather than max() over a generator: this runs for every option a bot weighs;
    # the first of equal values is kept, as max() does)
    best_other = values[1 if seat == 0 else 0]
    for s in range(len(values)):
        if s != seat and values[s] > best_other:
            best_other = values[s]
    return values[seat] - best_other
