"""Bots: legal moves in every game, determinism, strength, and the greedy bot's evaluation."""

from __future__ import annotations

import random
from typing import Any

import pytest

from carcassonne import PASS, Game, GameOptions, PlaceFigure, PlaceTile
from carcassonne.bots import BOT_NAMES, make_bot, make_hinting_bot, policies
from carcassonne.bots import evaluate as evaluate_module
from carcassonne.bots.evaluate import Evaluator, relative
from carcassonne.bots.greedy import GreedyBot, register_policy
from carcassonne.expansions.abbot import Abbot
from carcassonne.expansions.mapchips import MapChips
from scenario import scenario

OPTION_SETS = {
    "base": {},
    "river": {"river": True},
    "abbot": {"abbot": True},
    "river+abbot": {"river": True, "abbot": True},
    "france+map-chips": {"map": "france", "map_chips": True},
    "bets": {"bets": True},
    "everything on a map": {"map": "france", "map_chips": True, "abbot": True, "bets": True},
    "inns+cathedrals": {"inns_cathedrals": True},
    "inns+cathedrals, variants": {
        "inns_cathedrals": True,
        "small_city_scores_2": True,
        "farmers": False,
    },
}


def play_checked(game: Game, bots: list[Any]) -> Game:
    """Play to the end, asserting that every chosen action is legal at that moment."""
    while not game.is_over:
        action = bots[game.to_move].choose(game)
        assert action in game.legal_actions(), f"{action!r} is not legal in phase {game.phase}"
        game.apply(action)
    return game


def play_until(game: Game, bots: list[Any], stop: Any) -> bool:
    """Play until ``stop(game)`` holds (True) or the game ends (False)."""
    while not game.is_over:
        if stop(game):
            return True
        game.apply(bots[game.to_move].choose(game))
    return False


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
@pytest.mark.parametrize("names", [("greedy", "random"), ("random", "greedy", "greedy")])
def test_bots_only_choose_legal_actions(options: dict[str, Any], names: tuple[str, ...]) -> None:
    for seed in (1, 2):
        bots = [make_bot(name, seed * 10 + seat) for seat, name in enumerate(names)]
        game = play_checked(Game(players=len(names), seed=seed, **options), bots)
        assert game.is_over


def test_make_bot_knows_every_bot_name_and_rejects_others() -> None:
    for name in BOT_NAMES:
        assert make_bot(name, 1).name == name
    with pytest.raises(ValueError, match="unknown bot 'clever'"):
        make_bot("clever", 1)


def test_greedy_is_deterministic_for_a_seed() -> None:
    def history(bot_seed: int) -> list[tuple[int, Any]]:
        bots = [GreedyBot(bot_seed), make_bot("random", 5)]
        return play_checked(Game(players=2, seed=11, abbot=True), bots).history

    assert history(3) == history(3)


def test_greedy_beats_random() -> None:
    """20 games with fixed seeds, seats alternating; greedy wins nearly all (bound: 16)."""
    wins = 0.0
    for i in range(20):
        names = ("greedy", "random") if i % 2 == 0 else ("random", "greedy")
        bots = [make_bot(name, 100 * i + seat) for seat, name in enumerate(names)]
        game = play_checked(Game(players=2, seed=i), bots)
        winners = game.winners()
        if names.index("greedy") in winners:
            wins += 1 / len(winners)
    assert wins >= 16


def test_greedy_closes_the_start_city_for_4_points() -> None:
    # The start tile D has a city on its north edge.  The city cap base/E, turned to face south
    # at (0, -1), closes it: a 2-tile city worth 4, paid at once, the knight back in hand.
    game = Game(players=2, stack=("base/E", "base/E", "base/B"))
    bot = GreedyBot(1)
    assert bot.choose(game) == PlaceTile(0, -1, 180)
    game.apply(PlaceTile(0, -1, 180))
    assert bot.choose(game) == PlaceFigure("meeple", "S")
    game.apply(PlaceFigure("meeple", "S"))
    assert game.scores == [4, 0]
    assert game.supply[0]["meeple"] == 7


def test_greedy_does_not_close_an_opponents_city() -> None:
    # Seat 1 extends the start city north with base/F (city N-S, coat of arms) and puts a knight
    # in it; the city is open to the north of (0, -1).  Seat 0 then holds the cap base/E, which
    # could close it there for 8 points to seat 1.
    game = scenario(
        [
            ("base/U", 1, 0, 0, None),
            ("base/F", 0, -1, 90, ("meeple", "S")),
        ],
        then=("base/E", "base/U", "base/U"),
    )
    city = game.feature_at(0, 0, "N")
    assert [seat for seat, _, _ in city.figures] == [1] and city.open == 1
    action = GreedyBot(1).choose(game)
    assert action != PlaceTile(0, -2, 180)
    game.apply(action)
    game.apply(PASS)
    assert game.scores[1] == 0


@pytest.mark.parametrize(
    "options",
    [{}, {"abbot": True}, {"inns_cathedrals": True}],
    ids=["base", "abbot", "inns+cathedrals"],
)
@pytest.mark.parametrize("seed", [3, 4, 5])
def test_greedy_values_the_last_turn_exactly(options: dict[str, Any], seed: int) -> None:
    """With no tile left after this one every estimate must equal what final scoring pays."""
    rng = random.Random(seed)
    game = Game(players=2, seed=seed, **options)
    while not (game.phase == "tile" and not game.stack):
        actions = game.legal_actions()
        game.apply(actions[int(rng.random() * len(actions))])
    bot = GreedyBot(0)
    seat = game.to_move
    for value, placement in bot.score_actions(game):
        placed = game.copy()
        placed.apply(placement)
        predicted = dict((a, v) for v, a in bot.score_actions(placed))
        outcomes = []
        for action in placed.legal_actions():
            final = placed.copy()
            final.apply(action)
            assert final.is_over
            outcome = relative(final.scores, seat)
            assert predicted[action] == pytest.approx(outcome), (placement, action)
            outcomes.append(outcome)
        assert value == pytest.approx(max(outcomes)), placement


def test_evaluation_values_an_inn_road_as_double_or_nothing() -> None:
    # ic/O (a straight road with an inn) east of the start tile: a 2-tile road, open both ends.
    game = Game(players=2, inns_cathedrals=True, stack=("ic/O", "base/W", "base/W", "base/B"))
    game.apply(PlaceTile(1, 0, 0))
    inn = game.feature_at(1, 0, "E")
    plain = Game(players=2, stack=("base/U", "base/B"))
    plain.apply(PlaceTile(1, 0, 0))
    road = plain.feature_at(1, 0, "E")
    # with time left, the gamble is worth less than twice the plain road and more than nothing
    assert 0 < Evaluator(game).potential(game, inn) < 2 * Evaluator(plain).potential(plain, road)
    game.apply(PASS)
    game.apply(PlaceTile(2, 0, 0))
    game.apply(PASS)
    game.apply(PlaceTile(-1, 0, 0))  # closes it: 4 tiles, 2 each
    closed = game.feature_at(1, 0, "E")
    assert closed.open == 0 and Evaluator(game).potential(game, closed) == 8


def test_evaluation_counts_a_closed_but_unscored_city_as_paid() -> None:
    """Between step 1 and step 3 a closed city is worth its full value with its knight back."""
    game = Game(players=2, stack=("base/E", "base/B"))
    evaluator = Evaluator(game)
    game.apply(PlaceTile(0, -1, 180))
    closed = game.feature_at(0, -1, "S")
    assert closed.open == 0 and not closed.complete
    assert evaluator.potential(game, closed) == 4
    in_hand = evaluator.assess(game)[1][0]["meeple"]
    assert evaluator.figure_gain(game, "meeple", in_hand, closed) == 4


def test_register_policy_decides_its_phase(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def always_pass(game: Game, bot: GreedyBot) -> Any:
        calls.append(game.phase)
        return PASS

    monkeypatch.delitem(policies._POLICIES, "wine")
    register_policy("wine", always_pass)
    found = _reach_wine_decision()
    bot = GreedyBot(1)
    assert bot.choose(found) is PASS
    assert calls == ["wine"]


def test_register_policy_refuses_core_phases() -> None:
    with pytest.raises(ValueError, match="plays phase 'tile' itself"):
        register_policy("tile", lambda game, bot: PASS)


def test_unknown_phase_falls_back_to_lookahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """No policy for 'wine': the greedy bot sells (points now) rather than passing."""
    monkeypatch.delitem(policies._POLICIES, "wine")
    game = _reach_wine_decision()
    before = list(game.scores)
    action = GreedyBot(1).choose(game)
    assert action is not PASS
    seat = game.to_move
    game.apply(action)
    assert game.scores[seat] > before[seat]


def _reach_wine_decision() -> Game:
    """A map-chips game stopped at a wine decision (random bots, first seed that gets there)."""
    for seed in range(50):
        game = Game(players=2, seed=seed, map="france", map_chips=True)
        bots = [make_bot("random", seed), make_bot("random", seed + 1)]
        if play_until(game, bots, lambda g: g.phase == "wine"):
            return game
    raise AssertionError("no wine decision in 50 random map-chips games")


def test_adjustments_apply_only_with_their_expansion(monkeypatch: pytest.MonkeyPatch) -> None:
    for kind in list(evaluate_module._ADJUSTMENTS):  # the same dict, compiled or not
        monkeypatch.delitem(evaluate_module._ADJUSTMENTS, kind)
    evaluate_module.register_adjustment(Abbot, lambda before, after, seat: [10.0, 0.0])
    plain = Game(GameOptions(players=2, seed=1))
    with_abbot = Game(GameOptions(players=2, seed=1, abbot=True))
    plain_values = Evaluator(plain).seat_values(plain)
    abbot_values = Evaluator(with_abbot).seat_values(with_abbot)
    assert abbot_values[0] - plain_values[0] == pytest.approx(10.0 + _abbot_in_hand(with_abbot))
    assert abbot_values[1] - plain_values[1] == pytest.approx(_abbot_in_hand(with_abbot))


def _abbot_in_hand(game: Game) -> float:
    return Evaluator(game).hand_value("abbot", 1)


def test_greedy_does_not_see_face_down_map_chips() -> None:
    """Trying a placement turns its chip up; the bot plays on a determinization, so what it sees
    there is a random deal, the same whichever chip really lies there."""
    from carcassonne.board import encode

    rng = random.Random(2)
    game = Game(players=2, seed=2, map="france", map_chips=True)
    while True:
        chips = game.expansion(MapChips).face_down
        on_chip = [
            a for a in game.legal_actions() if game.phase == "tile" and encode(a.x, a.y) in chips
        ]
        if on_chip:
            break
        actions = game.legal_actions()
        game.apply(actions[int(rng.random() * len(actions))])
    # Swap the chip there with a face-down chip of the other value elsewhere: the same public
    # information, different hidden values.
    square = encode(on_chip[0].x, on_chip[0].y)
    other = next(q for q, c in chips.items() if c.value != chips[square].value)
    swapped = game.copy()
    hidden = swapped.expansion(MapChips).face_down
    hidden[square], hidden[other] = chips[other], chips[square]
    seen = GreedyBot(0).score_actions(game)
    seen_swapped = GreedyBot(0).score_actions(swapped)
    assert [a for _, a in seen] == [a for _, a in seen_swapped]
    assert [v for v, _ in seen] == pytest.approx([v for v, _ in seen_swapped])


def test_greedy_choice_does_not_depend_on_hidden_information() -> None:
    """At every decision of a game with everything hidden (stack order, bet chips, face-down map
    chips, the abbot's recall settling bets), the bot scores and picks alike in the real game
    and in another deal its seat cannot tell apart, for the same bot seed."""
    game = Game(players=2, seed=1, bets=True, abbot=True, map="france", map_chips=True)
    bots = [GreedyBot(1), make_bot("random", 1)]
    decisions = 0
    while not game.is_over:
        if game.to_move == 0 and len(game.legal_actions()) > 1:
            other_deal = game.determinized(0, random.Random(decisions))
            if game.phase in ("tile", "figure"):
                seen = GreedyBot(decisions).score_actions(game)
                assert seen == GreedyBot(decisions).score_actions(other_deal)
            choice = GreedyBot(decisions).choose(game)
            assert choice == GreedyBot(decisions).choose(other_deal)
            decisions += 1
        game.apply(bots[game.to_move].choose(game))
    assert decisions > 50


def test_make_hinting_bot_refuses_a_bot_without_hints() -> None:
    for name in ("random", "greedy"):
        with pytest.raises(ValueError, match=f"the {name} bot gives no hints"):
            make_hinting_bot(name, seed=1)


def test_make_hinting_bot_builds_a_bot_whose_hints_are_legal_actions() -> None:
    game = Game(GameOptions(players=2, seed=1))
    hints = make_hinting_bot("expert:iterations=20", seed=1).hints(game, 2)
    assert 1 <= len(hints) <= 2
    assert all(hint.action in game.legal_actions() for hint in hints)
