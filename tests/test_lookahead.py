"""Look-ahead placements (:meth:`Game.placed_for_lookahead`) and the greedy bot built on them.

Taking a placement back must leave the game exactly as it was: checked on random games of every
option set, field by field (features with their identity, dict orders, expansions' state,
events), and by playing on: a game whose every tile decision was tried first must play out
identically to one never tried.  The greedy bot that uses it must choose exactly as the
copy-based bot it replaced, kept here as the slow reference.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carcassonne import Game, GameOptions, IllegalAction, PlaceTile
from carcassonne.bots import make_bot
from carcassonne.bots.evaluate import Evaluator
from carcassonne.bots.greedy import GreedyBot
from test_bots import OPTION_SETS
from test_properties import PLAY_SEEDS, game_options


def _attributes(obj: Any) -> str:
    """Every data attribute of ``obj`` (compiled objects have no ``vars()``), as text."""
    names = sorted(n for n in dir(obj) if not n.startswith("__"))
    return repr([(n, getattr(obj, n)) for n in names if not callable(getattr(obj, n))])


def snapshot(game: Game) -> dict[str, Any]:
    """Everything a game holds, in comparable form: features numbered by first appearance (so
    two games can be compared), dicts as item lists (so their order counts), expansions by the
    repr of their attributes."""
    numbers: dict[int, int] = {}
    for feature in game.seg_feature:
        numbers.setdefault(id(feature), len(numbers))
    features = {
        numbers[id(f)]: (
            f.kind,
            list(f.segments),
            sorted(f.squares),
            f.open,
            f.coat_of_arms,
            list(f.figures),
            list(f.cities),
            f.complete,
            dict(f.marks) if f.marks is not None else None,
        )
        for f in game.seg_feature
    }
    last = game.last_placed
    return {
        "scores": list(game.scores),
        "supply": [list(s.items()) for s in game.supply],
        "figures": list(game.figures.items()),
        "board": [
            (pos, p.tile.id, p.orientation.rotation, p.base, p.turn, p.seat)
            for pos, p in game.board.items()
        ],
        "seg_feature": [numbers[id(f)] for f in game.seg_feature],
        "features": features,
        "seg_pos": list(game.seg_pos),
        "frontier": list(game.frontier.items()),
        "open_cloisters": list(game._open_cloisters.items()),
        "inactive": sorted(game._inactive),
        "events": [e.to_json() for e in game.events],
        "history": list(game.history),
        "draws": list(game.draws),
        "stack": [t.id for t in game.stack],
        "discarded": [t.id for t in game.discarded],
        "flow": (game.phase, game.to_move, game.active, game.turn, game._stage),
        "current_tile": game.current_tile.id if game.current_tile else None,
        "last_placed": (last.pos, last.turn) if last else None,
        "legal": list(game.legal_actions()),
        "queue": [(d.phase, d.seat, repr(d.data)) for d in game._queue],
        "expansions": [(e.name, _attributes(e)) for e in game.expansions],
        "rng": game.rng.getstate(),
    }


def try_placements(game: Game, rng: random.Random) -> None:
    """Try a few legal placements and take each back, using the game inside as a bot would."""
    actions = game.legal_actions()
    for action in rng.sample(actions, min(3, len(actions))):
        identities = [id(f) for f in game.seg_feature]
        with game.placed_for_lookahead(action) as placed:
            assert placed is game and game.phase == "figure"
            Evaluator(game).assess(game)
            game.legal_actions()
            game.copy().apply(game.legal_actions()[-1])  # a copy may be played on
        assert [id(f) for f in game.seg_feature] == identities


@settings(max_examples=25, deadline=None)
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_taking_a_placement_back_restores_the_game_exactly(
    options: GameOptions, play_seed: int
) -> None:
    tried = Game(options)
    untouched = Game(options)
    rng = random.Random(play_seed)
    while not tried.is_over:
        if tried.phase == "tile":
            before = snapshot(tried)
            try_placements(tried, rng)
            assert snapshot(tried) == before
        actions = tried.legal_actions()
        action = actions[int(rng.random() * len(actions))]
        tried.apply(action)
        untouched.apply(action)
    assert snapshot(tried) == snapshot(untouched)


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_trying_every_placement_then_playing_on_matches_an_untried_game(
    options: dict[str, Any],
) -> None:
    """Every legal placement of every turn tried, in 3-player games, compared at each step."""
    tried = Game(players=3, seed=5, **options)
    untouched = Game(players=3, seed=5, **options)
    rng = random.Random(5)
    while not tried.is_over:
        if tried.phase == "tile":
            for action in tried.legal_actions():
                with tried.placed_for_lookahead(action):
                    pass
        assert snapshot(tried) == snapshot(untouched)
        actions = tried.legal_actions()
        action = actions[int(rng.random() * len(actions))]
        tried.apply(action)
        untouched.apply(action)


def test_an_illegal_placement_is_refused_with_the_game_unchanged() -> None:
    game = Game(players=2, seed=3)
    before = snapshot(game)
    for action, message in [
        (PlaceTile(40, 40, 0), r"does not touch a placed tile"),
        (PlaceTile(0, 0, 0), r"already occupied"),
        (PlaceTile(0, 1, 45), r"rotation must be"),
        ("north", r"expects PlaceTile"),
    ]:
        with pytest.raises(IllegalAction, match=message), game.placed_for_lookahead(action):
            pytest.fail("an illegal placement was made")
        assert snapshot(game) == before


def test_only_a_tile_placement_can_be_taken_back() -> None:
    game = Game(players=2, seed=3)
    game.apply(game.legal_actions()[0])
    with pytest.raises(IllegalAction, match="not a figure action"):
        game.placed_for_lookahead(PlaceTile(0, 1, 0)).__enter__()


def test_applying_inside_a_lookahead_is_refused_on_exit() -> None:
    game = Game(players=2, seed=3)
    with (
        pytest.raises(RuntimeError, match="moved on during a look-ahead"),
        game.placed_for_lookahead(game.legal_actions()[0]),
    ):
        game.apply(game.legal_actions()[0])


# ------------------------------------------------------------------- the greedy bot


class CopyingGreedyBot:
    """The greedy bot as it was: one whole copy of the game per candidate placement.

    It wraps a :class:`GreedyBot` rather than subclassing it, as the compiled build's classes
    cannot be subclassed here; it repeats what ``choose`` and ``score_actions`` do around the
    one step it replaces.
    """

    def __init__(self, seed: int) -> None:
        self.bot = GreedyBot(seed)

    def choose(self, game: Game) -> Any:
        if len(game.legal_actions()) == 1:
            return game.legal_actions()[0]
        world = self.bot.determinize(game)
        if world.phase != "tile":
            return self.bot.choose_in_world(world)
        return self.bot.pick(self._score_actions(world))

    def score_actions(self, game: Game) -> list[tuple[float, Any]]:
        return self._score_actions(self.bot.determinize(game))

    def _score_actions(self, game: Game) -> list[tuple[float, Any]]:
        bot = self.bot
        if game.phase != "tile":
            return bot._score_actions(game)
        evaluator = bot.evaluator(game)
        scored: list[tuple[float, Any]] = []
        for action in game.legal_actions():
            after = game.copy()
            after.apply(action)
            options = bot._score_figure_actions(after, evaluator)
            scored.append((max(score for score, _ in options), action))
        return scored


def assert_same_scores(fast: list[tuple[float, Any]], slow: list[tuple[float, Any]]) -> None:
    """The same actions in the same order, worth the same up to float rounding."""
    assert [a for _, a in fast] == [a for _, a in slow]
    assert [v for v, _ in fast] == pytest.approx([v for v, _ in slow], rel=0, abs=1e-9)


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_greedy_plays_exactly_as_the_copying_reference(options: dict[str, Any]) -> None:
    """Whole games, greedy against greedy, each bot next to its reference with the same seed:
    the same scores for every candidate and the same choice at every decision."""
    game = Game(players=2, seed=1, **options)
    fast = [GreedyBot(10 + seat) for seat in range(2)]
    slow = [CopyingGreedyBot(10 + seat) for seat in range(2)]
    compared = 0
    while not game.is_over:
        seat = game.to_move
        if game.phase == "tile" and len(game.legal_actions()) > 1:
            probe = random.Random(compared).getrandbits(32)
            assert_same_scores(
                GreedyBot(probe).score_actions(game), CopyingGreedyBot(probe).score_actions(game)
            )
            compared += 1
        action = fast[seat].choose(game)
        assert action == slow[seat].choose(game)
        game.apply(action)
    assert compared > 20


@settings(max_examples=30, deadline=None)
@given(options=game_options(), play_seed=PLAY_SEEDS, bot_seed=st.integers(0, 2**32 - 1))
def test_greedy_scores_random_positions_as_the_copying_reference(
    options: GameOptions, play_seed: int, bot_seed: int
) -> None:
    rng = random.Random(play_seed)
    game = Game(options)
    random_bot = make_bot("random", play_seed)
    for _ in range(rng.randrange(0, 120)):
        if game.is_over:
            break
        game.apply(random_bot.choose(game))
    if game.phase not in ("tile", "figure") or len(game.legal_actions()) < 2:
        return
    assert_same_scores(
        GreedyBot(bot_seed).score_actions(game), CopyingGreedyBot(bot_seed).score_actions(game)
    )
    assert GreedyBot(bot_seed).choose(game) == CopyingGreedyBot(bot_seed).choose(game)


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_valuing_a_placement_from_the_positions_estimates_equals_valuing_it_afresh(
    options: dict[str, Any],
) -> None:
    """Every placement of every turn of 3-player games played by greedy bots (so that many
    figures stand on the board): the same values and figures in hand, to the last bit."""
    game = Game(players=3, seed=7, **options)
    bots = [GreedyBot(seat) for seat in range(3)]
    compared = 0
    while not game.is_over:
        if game.phase == "tile":
            evaluator = Evaluator(game)
            known = evaluator.estimates(game)
            for action in game.legal_actions():
                with game.placed_for_lookahead(action):
                    assert evaluator.assess(game, known) == evaluator.assess(game)
                compared += 1
        game.apply(bots[game.to_move].choose(game))
    assert compared > 1000


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_choosing_in_a_world_is_choose_without_the_determinization(
    options: dict[str, Any],
) -> None:
    """At every decision of a game: choose_in_world on the determinization choose would draw
    (the same generator state) gives choose's action, and leaves that world untouched."""
    game = Game(players=3, seed=3, **options)
    players = [make_bot("random", seat) for seat in range(3)]
    decisions = 0
    while not game.is_over:
        if len(game.legal_actions()) > 1:
            chooser, searcher = GreedyBot(decisions), GreedyBot(decisions)
            world = searcher.determinize(game)
            before = snapshot(world)
            assert searcher.choose_in_world(world) == chooser.choose(game)
            assert snapshot(world) == before
            assert searcher.rng.getstate() == chooser.rng.getstate()
            decisions += 1
        game.apply(players[game.to_move].choose(game))
    assert decisions > 50
