"""Cross-check the engine's incremental scoring against the from-scratch reference scorer.

``tests/reference.py`` re-traces every feature from the board with a plain flood fill; here
random games with every option set are played to the end and, after every action, the engine's
bookkeeping and score events must say what the reference says:

(a) at the end, the final-scoring events of roads, cities, cloisters and fields are exactly the
    reference's final payouts of the figures left on the board;
(b) every turn, the features the engine scored as completed are exactly those the reference finds
    newly complete (same tiles, coats of arms, value and majority payout), their figures came
    home and no other figure moved; abbot recalls and Bets settlements use the reference's values;
(c) every feature the engine tracks has the reference's segments, squares, coats of arms,
    completeness, figures and (fields) bordering cities;
(d) Traders & Builders: the goods taken for each completed city are the reference's marks, the
    goods majorities at the end pay what the tokens say, and a builder's second tile follows
    exactly the tiles that extended its feature (never a second tile's).

``CARC_REFERENCE_GAMES=3000 .venv/bin/pytest tests/test_reference_scoring.py`` checks more games
(and prints what the games covered).
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from carcassonne import Game, GameOptions, PlaceFigure, PlaceTile, ScoreEvent
from carcassonne.actions import Pass
from carcassonne.board import decode
from carcassonne.expansions.abbot import RecallAbbot
from carcassonne.expansions.traders import TradersBuilders
from carcassonne.features import Feature
from carcassonne.tiles import CITY, FIELD, KIND_NAMES, MONASTERY
from reference import (
    CLOISTERS,
    EDGE_KINDS,
    GOODS,
    Payout,
    Reference,
    RefFeature,
    chip_payoff,
    goods_majorities,
)
from scenario import scenario

FEATURE_SOURCES = frozenset({"road", "city", "inn", "cathedral", "monastery", "garden", "field"})
#: the sources of features whose inn or cathedral counts (docs/rules.md §11)
MARKED = ("inn", "cathedral")
DEFAULT_GAMES = 88
GAMES = int(os.environ.get("CARC_REFERENCE_GAMES") or DEFAULT_GAMES)

# Every option set appears in turn; the small test map hits its border and large city often.
OPTION_SETS: tuple[dict[str, Any], ...] = (
    {},
    {"river": True},
    {"abbot": True},
    {"bets": True},
    {"map": "france"},
    {"map": "france", "map_chips": True},
    {"map": "test-tiny", "abbot": True},
    {"river": True, "abbot": True, "bets": True, "traders_builders": True},
    {"map": "france", "map_chips": True, "abbot": True, "bets": True, "traders_builders": True},
    {"map": "test-tiny", "map_chips": True, "bets": True},
    {"map": "france", "copies": 2, "abbot": True},
    {"inns_cathedrals": True},
    # the Inns & Cathedrals variants (D51-D53) change no legal action, so these games are the
    # ones played before them (one of the few that complete a cathedral city among them)
    {
        "inns_cathedrals": True,
        "small_city_scores_2": True,
        "farmers": False,
        "inns": False,
        "plain_unfinished_inns_cathedrals": True,
    },
    {
        "map": "france",
        "inns_cathedrals": True,
        "bets": True,
        "abbot": True,
        "cathedrals": False,
        "plain_unfinished_inns_cathedrals": True,
    },
)

Figures = dict[int, tuple[int, str]]


class Disagreement(AssertionError):
    """The engine and the reference scorer disagree."""


def game_options(index: int) -> GameOptions:
    """Game ``index`` of the sample: its option set, 2-5 players, sometimes few meeples."""
    rng = random.Random(index)
    return GameOptions(
        players=rng.randint(2, 5),
        meeples=rng.choice((None, None, None, 1, 2, 3)),
        seed=index,
        **OPTION_SETS[index % len(OPTION_SETS)],
    )


def choose(game: Game, rng: random.Random, eager: bool) -> Any:
    """A random legal action; an ``eager`` player places a figure whenever it may, to crowd
    features with figures of several seats (majorities and ties)."""
    legal = game.legal_actions()
    if eager and game.phase == "figure":
        joining = [a for a in legal if getattr(a, "figure", None) in ("builder", "pig")]
        if joining and rng.random() < 0.85:  # builders and pigs are rarely possible: take them
            return rng.choice(joining)
        figures = [a for a in legal if not isinstance(a, Pass)]
        if figures and rng.random() < 0.85:
            return rng.choice(figures)
    return rng.choice(legal)


def engine_payout(event: ScoreEvent) -> Payout:
    """An engine score event of a feature, in the reference's terms."""
    return Payout(
        source=event.source,
        reason=event.reason,
        squares=tuple(sorted((x, y) for x, y in event.squares)),
        tiles=event.tiles,
        coats_of_arms=event.coats_of_arms,
        value=event.detail["value"],
        figures=tuple(sorted(event.figures.items())),
        points=tuple(sorted(event.points.items())),
        completed_cities=event.detail.get("completed_cities"),
    )


def feature_events(events: Iterable[Any], reason: str) -> Counter[Payout]:
    return Counter(
        engine_payout(e)
        for e in events
        if isinstance(e, ScoreEvent) and e.reason == reason and e.source in FEATURE_SOURCES
    )


def same_payouts(expected: Counter[Payout], got: Counter[Payout]) -> str | None:
    """None when equal, else what is missing and what is extra."""
    if expected == got:
        return None
    return f"reference only: {list(expected - got)}; engine only: {list(got - expected)}"


#: ``breakage(game, events)``: corrupts the game after an action, to test the cross-check
Breakage = Callable[[Game, list[Any]], None]


class CrossCheck:
    """Plays one game action by action, checking the engine against a fresh reference."""

    def __init__(self, game: Game, stats: Counter[str], breakage: Breakage | None = None) -> None:
        self.game = game
        self.stats = stats
        self.breakage = breakage
        self.ref = Reference(game.board, game.geometry, game.options)
        self.complete = self._complete_features(self.ref)
        # a builder's second tile: whether the last tile earned one, and whether it was one
        self.earned_second = False
        self.in_second = False
        self.last_tile_events = len(game.events)
        self.check_features()

    def fail(self, what: str) -> None:
        game = self.game
        raise Disagreement(f"{game.options}, after turn {game.turn}: {what}")

    @staticmethod
    def _complete_features(ref: Reference) -> set[frozenset[int]]:
        return {f.segments for f in ref.features if f.kind != FIELD and f.complete}

    def _apply(self, action: Any) -> None:
        game = self.game
        start = len(game.events)
        game.apply(action)
        if self.breakage is not None:
            self.breakage(game, game.events[start:])

    def apply(self, action: Any) -> None:
        game = self.game
        start = len(game.events)
        if game.phase == "figure":
            self.figure_turn(action)
        else:
            if isinstance(action, PlaceTile):
                self.check_second_tile(start)
            self._apply(action)
            if isinstance(action, PlaceTile):
                self.ref = Reference(game.board, game.geometry, game.options)
                self.earned_second = not self.in_second and self.extends_builder()
            if feature_events(game.events[start:], "completed"):
                self.fail("features scored as completed outside step 3")
        self.check_bets(game.events[start:])
        if game.is_over:
            self.check_final()

    # ------------------------------------------------------------------- (b) step 2 and 3

    def figure_turn(self, action: Any) -> None:
        """Step 2 and the scoring it triggers: compare the completed features and figures."""
        game, ref = self.game, self.ref
        seat, placed = game.active, game.last_placed
        assert placed is not None
        figures = dict(game.figures)
        recalled = None
        if isinstance(action, PlaceFigure):
            gid = placed.base + placed.orientation.locations[action.location]
            figures[gid] = (seat, action.figure)
        elif isinstance(action, RecallAbbot):
            (recalled,) = [g for g, (s, f) in figures.items() if s == seat and f == "abbot"]
            del figures[recalled]
        start = len(game.events)
        traders = game.expansion(TradersBuilders)
        goods_before = [h.copy() for h in traders.goods] if traders else []
        self._apply(action)
        events = game.events[start:]
        self.stats["turns"] += 1

        complete = self._complete_features(ref)
        if not self.complete <= complete:
            self.fail("a complete feature became incomplete")
        newly = [f for f in ref.features if f.segments in complete - self.complete]
        self.complete = complete
        expected = Counter(ref.payout(f, figures, "completed") for f in newly)
        problem = same_payouts(expected, feature_events(events, "completed"))
        if problem:
            self.fail(f"completed features differ: {problem}")
        for payout in expected:
            self.stats[f"completed {payout.source}"] += 1
            self.stats["completed with a tie"] += len(payout.points) > 1
        done = set().union(*(f.segments for f in newly))
        home = {g: f for g, f in figures.items() if g not in done}
        if game.figures != home:
            self.fail(f"figures after scoring {game.figures}, expected {home}")
        if recalled is not None:
            self.check_recall(recalled, seat, events)
        if traders:
            self.check_goods(seat, [f for f in newly if f.kind == CITY], goods_before)
        self.check_features()

    def extends_builder(self) -> bool:
        """Whether the tile just placed joined a road or city holding the active seat's builder."""
        game, ref = self.game, self.ref
        placed = game.last_placed
        assert placed is not None
        builders = {g for g, (s, f) in game.figures.items() if s == game.active and f == "builder"}
        return any(
            builders & ref.feature_of(placed.base + i).segments
            for i, seg in enumerate(placed.orientation.segments)
            if seg.kind in EDGE_KINDS
        )

    def check_second_tile(self, start: int) -> None:
        """Before a tile is placed: it is a second tile exactly when the previous one earned it."""
        game = self.game
        seconds = [e for e in game.events[self.last_tile_events :] if e_type(e) == "extra-turn"]
        if len(seconds) != self.earned_second:
            self.fail(f"second tile granted {len(seconds)} times, expected {self.earned_second}")
        self.in_second = self.earned_second
        self.stats["builder second tiles"] += self.earned_second
        self.last_tile_events = start

    def check_goods(self, seat: int, cities: list[RefFeature], before: list[list[int]]) -> None:
        got = self.game.expansion(TradersBuilders).goods
        expected = [h.copy() for h in before]
        for city in cities:
            for kind, n in self.ref.goods(city).items():
                expected[seat][GOODS.index(kind)] += n
                self.stats["goods taken"] += n
        if got != expected:
            self.fail(f"goods {got}, expected {expected}")

    def check_recall(self, gid: int, seat: int, events: list[Any]) -> None:
        ref = self.ref
        feature = ref.feature_of(gid)
        recalls = [e for e in events if isinstance(e, ScoreEvent) and e.reason == "abbot-recall"]
        expected = [(ref.source(feature), {seat: ref.value(feature, final=True)})]
        if [(e.source, e.points) for e in recalls] != expected:
            self.fail(f"abbot recall paid {recalls}, expected {expected}")
        self.stats["abbot recalls"] += 1

    def check_bets(self, events: list[Any]) -> None:
        """A chip is settled against a feature of the reference's size, complete or not as the
        moment of settling says, and pays what the chip table says for that size."""
        for event in events:
            if not (isinstance(event, ScoreEvent) and event.source == "bet"):
                continue
            d = event.detail
            feature = self.ref.feature_at(tuple(d["square"]), d["location"])
            tiles = len(feature.squares)
            if (KIND_NAMES[feature.kind], tiles, feature.complete) != (
                d["feature"],
                d["tiles"],
                event.reason == "completed",
            ):
                self.fail(f"bet settled against {d}, the reference sees {feature}")
            if event.points != {d["owner"]: chip_payoff(d["chip"], tiles)}:
                self.fail(f"bet {d} paid {event.points}")
            self.stats[f"bets settled {event.reason}"] += 1

    # ------------------------------------------------------------------- (c) every feature

    def check_features(self) -> None:
        game, ref = self.game, self.ref
        for feature in game.features():
            expected = ref.feature_of(feature.segments[0])
            problem = self._feature_problem(feature, expected)
            if problem:
                self.fail(f"{feature} (reference {expected}): {problem}")
        self.stats["features compared"] += len(ref.features)

    def _feature_problem(self, feature: Feature, expected: RefFeature) -> str | None:
        game, segments = self.game, expected.segments
        if set(feature.segments) != segments or len(feature.segments) != len(segments):
            return f"segments {sorted(feature.segments)} != {sorted(segments)}"
        if {decode(p) for p in feature.squares} != expected.squares:
            return f"squares {sorted(decode(p) for p in feature.squares)}"
        if feature.coat_of_arms != expected.coats_of_arms:
            return f"coats of arms {feature.coat_of_arms} != {expected.coats_of_arms}"
        if Counter(feature.marks or {}) != Counter(expected.marks):
            return f"marks {feature.marks} != {expected.marks}"
        if feature.kind in EDGE_KINDS and (feature.open == 0) != expected.complete:
            return f"open {feature.open} but reference complete={expected.complete}"
        if feature.kind != FIELD and feature.complete != expected.complete:
            return f"complete={feature.complete}"
        on_it = sorted((s, f, g) for g, (s, f) in game.figures.items() if g in segments)
        if sorted(feature.figures) != on_it:
            return f"figures {sorted(feature.figures)} != {on_it}"
        if feature.kind == FIELD:
            cities = {frozenset(game.seg_feature[g].segments) for g in feature.cities}
            if cities != {c.segments for c in expected.cities}:
                return "bordering cities differ"
        return None

    # ------------------------------------------------------------------- (a) final scoring

    def check_final(self) -> None:
        game = self.game
        ref = Reference(game.board, game.geometry, game.options)
        stale = [
            f for f in ref.occupied(game.figures) if f.kind != FIELD and f.complete
        ]  # their figures should have come home when they were completed
        if stale:
            self.fail(f"figures left on complete features {stale}")
        expected = Counter(ref.final_payouts(game.figures))
        problem = same_payouts(expected, feature_events(game.events, "final"))
        if problem:
            self.fail(f"final scoring differs: {problem}")
        traders = game.expansion(TradersBuilders)
        if traders:
            held = [dict(zip(GOODS, h, strict=True)) for h in traders.goods]
            paid = [
                (e.detail["goods"], seat)
                for e in game.events
                if isinstance(e, ScoreEvent) and e.source == "goods"
                for seat, points in e.points.items()
                if points == 10
            ]
            if paid != goods_majorities(held):
                self.fail(f"goods paid {paid}, the tokens {held} say {goods_majorities(held)}")
            self.stats["goods majorities"] += len(paid)
        totals = [0] * game.players
        for event in game.events:
            if isinstance(event, ScoreEvent):
                for seat, points in event.points.items():
                    totals[seat] += points
        if totals != game.scores:
            self.fail(f"scores {game.scores} are not the sum of the score events {totals}")
        stats = self.stats
        stats["games"] += 1
        for payout in expected:
            stats[f"final {payout.source}"] += 1
            stats["final with a tie"] += len(payout.points) > 1
            stats["fields paying for cities"] += bool(payout.completed_cities)
            stats["pig bonus"] += any(p != payout.value for _, p in payout.points)
            stats["final inn or cathedral paying"] += payout.source in MARKED and payout.value > 0
        printed = {(p.x, p.y) for p in game.geometry.printed}
        for f in ref.features:
            stats["inn or cathedral played plain"] += ref.source(f) not in MARKED and bool(
                {"inn", "cathedral"} & set(f.marks)
            )
            if f.kind in EDGE_KINDS and f.complete:
                stats["complete, closed by the map"] += f.border_sides > 0
                stats["complete with a large city"] += bool(printed & f.squares)
            stats["features through a tile twice"] += len(f.squares) < len(f.segments)
            stats["complete cloisters"] += f.kind in CLOISTERS and f.complete


def e_type(event: Any) -> str | None:
    return getattr(event, "type", None)


def check_game(options: GameOptions, stats: Counter[str], breakage: Breakage | None = None) -> Game:
    """Play a game with random legal actions (seeded by the game's seed), cross-checking
    throughout."""
    game = Game(options)
    rng = random.Random(game.options.seed)
    eager = rng.random() < 0.5
    checker = CrossCheck(game, stats, breakage)
    while not game.is_over:
        checker.apply(choose(game, rng, eager))
    return game


def check_games(count: int, breakage: Breakage | None = None) -> Counter[str]:
    """Cross-check the first ``count`` games of the sample; what they covered."""
    stats: Counter[str] = Counter()
    for index in range(count):
        check_game(game_options(index), stats, breakage)
    return stats


#: situations the sample must exercise, or the cross-check would prove little
MUST_COVER = (
    "completed city",
    "completed road",
    "completed monastery",
    "completed garden",
    "completed with a tie",
    "final city",
    "final road",
    "final monastery",
    "final field",
    "final with a tie",
    "fields paying for cities",
    "complete, closed by the map",
    "complete with a large city",
    "features through a tile twice",
    "abbot recalls",
    "bets settled completed",
    "bets settled final",
    "completed inn",
    "final inn",
    "completed cathedral",
    "final cathedral",
    "final inn or cathedral paying",
    "inn or cathedral played plain",
    "goods taken",
    "goods majorities",
    "builder second tiles",
    "pig bonus",
)


def test_engine_scoring_agrees_with_the_reference_scorer(capsys: pytest.CaptureFixture) -> None:
    stats = check_games(GAMES)
    assert stats["games"] == GAMES
    missing = [case for case in MUST_COVER if not stats[case]]
    assert not missing, f"the sample never exercised {missing}"
    if "CARC_REFERENCE_GAMES" in os.environ:
        with capsys.disabled():
            print(f"\nreference cross-check: {dict(sorted(stats.items()))}")


# ---------------------------------------------------------------- the reference by itself


def test_reference_two_tile_city_is_complete_and_worth_4() -> None:
    # base/E (city N) at rotation 180 closes the start tile's city from the north.
    game = scenario([("base/E", 0, -1, 180, ("meeple", "S"))], then=["base/U"])
    ref = Reference(game.board, game.geometry, game.options)
    city = ref.feature_at((0, 0), "N")
    assert city.kind == CITY and city.complete and city.squares == {(0, 0), (0, -1)}
    assert ref.value(city, final=False) == 4


def test_reference_field_pays_3_per_completed_city_once_each() -> None:
    # The start tile's north field borders its city; a farmer there, the city closed by base/E.
    game = scenario([("base/E", 0, -1, 180, None)], then=["base/U"])
    ref = Reference(game.board, game.geometry, game.options)
    field = ref.feature_at((0, 0), "EL")
    farmer = {min(field.segments): (1, "meeple")}
    payout = ref.payout(field, farmer, "final")
    assert payout.points == ((1, 3),) and payout.completed_cities == 1


def test_reference_monastery_at_the_end_is_1_plus_its_neighbours() -> None:
    game = scenario([("base/B", 0, 1, 0, ("meeple", "monastery"))], then=["base/U"])
    ref = Reference(game.board, game.geometry, game.options)
    monastery = ref.feature_at((0, 1), "monastery")
    assert monastery.kind == MONASTERY and not monastery.complete
    assert ref.value(monastery, final=True) == 2  # the start tile is its one neighbour


# ------------------------------------------------- the cross-check catches a broken engine
#
# Each breakage corrupts, after every action, what one kind of engine bug would get wrong (the
# engine itself is not patched: compiled, it could not be).  The cross-check must notice.


def _first(game: Game, wanted: Callable[[Feature], bool]) -> Feature | None:
    return next((f for f in game.features() if wanted(f)), None)


def _merge_loses_squares(game: Game, events: list[Any]) -> None:
    feature = _first(game, lambda f: len(f.squares) > 1)
    if feature is not None:
        feature.squares.discard(max(feature.squares))


def _coats_not_added(game: Game, events: list[Any]) -> None:
    feature = _first(game, lambda f: f.coat_of_arms > 0 and len(f.segments) > 1)
    if feature is not None:
        feature.coat_of_arms -= 1


def _open_sides_not_added(game: Game, events: list[Any]) -> None:
    feature = _first(game, lambda f: f.kind in EDGE_KINDS and f.open == 0)
    if feature is not None:
        feature.open = 1


def _paid(source: str, reason: str, change: Callable[[dict[int, int]], dict[int, int]]) -> Any:
    """A breakage that changes what score events of ``source`` (``*``: any feature) for
    ``reason`` pay."""

    def breakage(game: Game, events: list[Any]) -> None:
        for event in events:
            if (
                isinstance(event, ScoreEvent)
                and event.source in (FEATURE_SOURCES if source == "*" else {source})
                and event.reason == reason
            ):
                event.points = change(event.points)

    return breakage


def _first_seat_only(points: dict[int, int]) -> dict[int, int]:
    return dict(list(points.items())[:1])


def _plus(extra: int) -> Callable[[dict[int, int]], dict[int, int]]:
    return lambda points: {seat: paid + extra for seat, paid in points.items()}


def _double(points: dict[int, int]) -> dict[int, int]:
    return {seat: 2 * paid for seat, paid in points.items()}


@pytest.mark.parametrize(
    "breakage",
    [
        pytest.param(_merge_loses_squares, id="merge-loses-squares"),
        pytest.param(_coats_not_added, id="coats-not-summed"),
        pytest.param(_open_sides_not_added, id="open-sides-not-summed"),
        pytest.param(_paid("*", "final", _first_seat_only), id="ties-not-shared"),
        pytest.param(_paid("field", "final", _plus(3)), id="field-overpaid"),
        pytest.param(_paid("city", "final", _double), id="final-city-double"),
        pytest.param(_paid("monastery", "final", _plus(-1)), id="cloister-underpaid"),
    ],
)
def test_cross_check_catches_a_broken_engine(breakage: Callable[[Game, list[Any]], None]) -> None:
    with pytest.raises(Disagreement):
        check_games(40, breakage)


# ------------------------------------------------------- a map that crowds its start squares

#: start squares on the border, one beside a large city's wall: the start tiles' roads and
#: cities can be closed before the first turn (the city of base/D at Top faces the border)
EDGE_MAP = {
    "format": "carcassonne-map/1",
    "name": "edge",
    "size": {"width": 6, "height": 5},
    "large_cities": [{"name": "Keep", "x": 1, "y": 0, "open": "S"}],
    "towns": [
        {"name": "Top", "x": 2, "y": 0},
        {"name": "Low", "x": 3, "y": 4},
        {"name": "Side", "x": 0, "y": 2},
    ],
    "start_squares": ["Top", "Low", "Side"],
}


def test_engine_agrees_with_the_reference_when_start_squares_touch_the_border(
    tmp_path: Path,
) -> None:
    path = tmp_path / "edge.json"
    path.write_text(json.dumps(EDGE_MAP), encoding="utf-8")
    stats: Counter[str] = Counter()
    for seed in range(24):
        rng = random.Random(seed)
        options = GameOptions(
            players=rng.randint(2, 4),
            map=str(path),
            abbot=rng.random() < 0.5,
            bets=rng.random() < 0.5,
            seed=seed,
        )
        check_game(options, stats)
    assert stats["games"] == 24 and stats["complete, closed by the map"]
