"""The expert bot: decisions in every phase, exact where the game is decided, deterministic with
an iteration budget, information-fair; and the bot specs that name it (and every other bot).

Search budgets are a handful of playouts, so every test runs in well under a second or two.
"""

from __future__ import annotations

import json
import random

import pytest

from carcassonne import Game, GameOptions, PlaceTile
from carcassonne.bots import (
    BOT_NAMES,
    bot_parameters,
    check_bot_spec,
    make_bot,
    parse_bot_spec,
    split_bot_specs,
)
from carcassonne.bots.expert import MIN_ROUNDS, ExpertBot
from carcassonne.bots.greedy import GreedyBot
from carcassonne.bots.novice import NoviceBot
from carcassonne.bots.random_bot import RandomBot
from carcassonne.cli.main import main
from carcassonne.expansions.bets import Bets, SettleAgainst
from test_bets import _final_choice_game, _road_and_city_together

# ---------------------------------------------------------------------------------- specs


def test_parse_bot_spec_splits_name_and_parameters() -> None:
    assert parse_bot_spec("expert:seconds=0.5,iterations=200") == (
        "expert",
        {"seconds": "0.5", "iterations": "200"},
    )
    assert parse_bot_spec(" Greedy ") == ("greedy", {})
    assert parse_bot_spec("random:seed = 4") == ("random", {"seed": "4"})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "clever",
            "unknown bot 'clever' (choose a level: beginner, casual, intermediate, strong, "
            "master; or a bot: random, novice, greedy, expert)",
        ),
        ("expert:speed=2", "bot 'expert' has no parameter 'speed' (it takes: depth, iterations"),
        ("greedy:seconds=1", "bot 'greedy' has no parameter 'seconds' (it takes: seed)"),
        ("expert:seconds", "bot 'expert': parameters are key=value, not 'seconds'"),
        ("expert:seconds=", "bot 'expert': parameters are key=value, not 'seconds='"),
        ("expert:", "bot 'expert': parameters are key=value, not ''"),
        ("expert:seed=1,seed=2", "bot 'expert': parameter 'seed' given twice"),
        ("expert:seconds=fast", "bot 'expert': seconds must be a number, not 'fast'"),
        ("expert:seconds=nan", "bot 'expert': seconds must be a finite number, not 'nan'"),
        ("expert:seconds=0", "bot 'expert': seconds must be 0.001 to 600.0, not '0'"),
        ("expert:iterations=2.5", "bot 'expert': iterations must be an integer, not '2.5'"),
        ("random:seed=-1", "bot 'random': seed must be 0 to"),
        ("expert:seconds=1" + "0" * 300, "bot spec too long"),
    ],
)
def test_bad_specs_are_rejected_naming_the_bot_key_or_value(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        make_bot(spec, 1)
    assert message in str(error.value)


def test_make_bot_builds_every_bot_with_its_parameters() -> None:
    built = [type(make_bot(name, 1)) for name in BOT_NAMES]
    assert built == [RandomBot, NoviceBot, GreedyBot, ExpertBot]
    bot = make_bot("expert:iterations=7,width=2,depth=0", 1)
    assert isinstance(bot, ExpertBot)
    assert (bot.iterations, bot.seconds, bot.width, bot.depth) == (7, None, 2, 0)
    timed = make_bot("expert", 1)
    assert isinstance(timed, ExpertBot)
    assert (timed.iterations, timed.seconds) == (None, 0.5)
    both = make_bot("expert:iterations=7,seconds=2", 1)
    assert isinstance(both, ExpertBot)
    assert (both.iterations, both.seconds) == (7, 2.0)


def test_a_seed_in_the_spec_wins_over_the_one_given() -> None:
    game = Game(players=2, seed=5)
    picks = {
        str(make_bot("random:seed=3", seed).choose(game))  # type: ignore[attr-defined]
        for seed in range(6)
    }
    assert len(picks) == 1
    assert make_bot("random:seed=3", 0).rng.random() == random.Random(3).random()  # type: ignore[attr-defined]


def test_split_bot_specs_keeps_parameters_with_their_bot() -> None:
    assert split_bot_specs("expert:seconds=0.5,iterations=200,greedy") == [
        "expert:seconds=0.5,iterations=200",
        "greedy",
    ]
    assert split_bot_specs("human, expert:seconds=1 ,random:seed=2,") == [
        "human",
        "expert:seconds=1",
        "random:seed=2",
    ]


def test_check_bot_spec_gives_one_canonical_form() -> None:
    assert (
        check_bot_spec("Expert: iterations = 20, seconds=1") == "expert:iterations=20,seconds=1.0"
    )
    assert check_bot_spec("expert:seconds=1.0,iterations=20") == "expert:iterations=20,seconds=1.0"
    assert check_bot_spec("greedy") == "greedy"


def test_every_bot_documents_seed_and_the_expert_its_budgets() -> None:
    for name in BOT_NAMES:
        assert bot_parameters(name)[0].name == "seed"
    expert = {p.name: p for p in bot_parameters("expert")}
    assert set(expert) == {"seed", "seconds", "iterations", "width", "learned", "depth"}
    assert (expert["seconds"].type, expert["seconds"].default) == (float, 0.5)
    assert all(p.help for p in expert.values())


def test_bots_command_lists_every_bot_and_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    for name in BOT_NAMES:
        assert f"\n{name}: " in out
    for parameter in ("seconds (float = 0.5)", "iterations (int)", "width (int = 5)", "depth"):
        assert parameter in out


# ------------------------------------------------------------------------------- decisions

QUICK = "expert:iterations=12,width=3"


def _last_tile_position(last: str = "base/K") -> Game:
    """A base game with tile ``last`` left to place (seat 0 to move): every outcome is exact."""
    stack = ("base/E", "base/U", "base/B", "base/K", "base/V", "base/J", last)
    game = Game(players=2, stack=stack)
    greedy = GreedyBot(3)
    while len(game.stack) > 0 or game.phase != "tile":
        game.apply(greedy.choose(game))
    assert game.is_last_tile and game.to_move == 0
    return game


def _final_margins(game: Game) -> dict[PlaceTile, float]:
    """For each placement of the last tile: seat 0's best final lead over seat 1."""
    margins: dict[PlaceTile, float] = {}
    for placement in game.legal_actions():
        placed = game.copy()
        placed.apply(placement)
        best = -1e9
        for figure in placed.legal_actions():
            done = placed.copy()
            done.apply(figure)
            assert done.is_over
            best = max(best, done.scores[0] - done.scores[1])
        margins[placement] = best
    return margins


def test_on_the_last_tile_the_expert_plays_the_best_exact_outcome() -> None:
    game = _last_tile_position()
    margins = _final_margins(game)
    assert len(set(margins.values())) > 1  # the choice matters
    bot = ExpertBot(7, iterations=200, width=100)
    placement = bot.choose(game)
    assert margins[placement] == max(margins.values())
    # exact outcomes: every candidate is settled after MIN_ROUNDS playouts and the search stops
    assert bot.stats.playouts == MIN_ROUNDS * len(margins) < 200
    game.apply(placement)
    game.apply(bot.choose(game))
    assert game.scores[0] - game.scores[1] == max(margins.values())


def test_hints_on_the_last_tile_give_exact_leads_best_first() -> None:
    game = _last_tile_position()
    margins = _final_margins(game)
    hints = ExpertBot(7, iterations=200, width=100).hints(game, 3)
    assert len(hints) == 3
    assert [h.expected_points for h in hints] == sorted(
        (margins[h.action] for h in hints), reverse=True
    )
    assert hints[0].expected_points == max(margins.values())
    assert len({h.action for h in hints}) == 3


def test_hint_for_a_forced_move_is_that_move() -> None:
    game = _last_tile_position("base/C")  # the city of four sides fits in one place only
    assert len(game.legal_actions()) == 1
    hints = ExpertBot(1, iterations=5).hints(game, 3)
    assert [(h.action, h.samples) for h in hints] == [(game.legal_actions()[0], 0)]


def test_first_hint_is_the_move_the_bot_would_choose() -> None:
    game = Game(players=2, seed=12)
    for _ in range(6):
        game.apply(GreedyBot(1).choose(game))
    assert game.phase == "tile"
    hints = ExpertBot(4, iterations=20, width=3).hints(game, 3)
    assert hints[0].action == ExpertBot(4, iterations=20, width=3).choose(game)
    assert [h.expected_points for h in hints] == sorted(
        (h.expected_points for h in hints), reverse=True
    )


def test_final_settlement_each_expert_settles_its_own_chip_best() -> None:
    """Seat 0 holds 3/6 (pays 3 on the 3-tile west road), seat 1 holds 2/6 (pays 2 on the
    2-tile east road): each expert picks the road that pays its own chip."""
    game = _final_choice_game()
    assert game.phase == "settle-final"
    bots = [ExpertBot(1, iterations=12), ExpertBot(2, iterations=12)]
    while not game.is_over:
        game.apply(bots[game.to_move].choose(game))
    assert game.scores == [3, 2]


def test_active_expert_settles_against_the_feature_that_pays_its_chip() -> None:
    """Seat 1 bet the single 4 on an office whose 4-tile city (pays it 8) and 2-tile road (pays
    seat 0's unseen 2/6 two points) are completed together."""
    game = _road_and_city_together()
    assert (game.phase, game.to_move) == ("settle", 1)
    assert ExpertBot(5, iterations=20).choose(game) == SettleAgainst(1, 0, "city", "N")


def test_expert_decides_every_phase_of_a_full_game_with_all_expansions() -> None:
    options = GameOptions(players=2, bets=True, abbot=True, map="france", map_chips=True, seed=1)
    game = Game(options)
    bots = [ExpertBot(1, iterations=3, width=2, depth=0), GreedyBot(2)]
    decided: set[str] = set()
    while not game.is_over:
        if game.to_move == 0 and len(game.legal_actions()) > 1:
            decided.add(game.phase)
        game.apply(bots[game.to_move].choose(game))  # an illegal choice would raise
    assert {"tile", "figure", "bet", "wine"} <= decided


def test_with_an_iteration_budget_and_a_seed_the_expert_is_deterministic() -> None:
    def play() -> list[object]:
        game = Game(players=2, seed=21, bets=True)
        bots = [make_bot(QUICK + ",depth=0", 5), make_bot("greedy", 6)]
        for _ in range(30):
            game.apply(bots[game.to_move].choose(game))
        return [action for _, action in game.history]

    assert play() == play()


def test_stats_count_the_playouts_within_the_budget() -> None:
    game = Game(players=2, seed=3)
    bot = ExpertBot(1, iterations=9, width=3)
    bot.choose(game)
    assert 0 < bot.stats.playouts <= 9
    assert bot.stats.rounds >= 3


# -------------------------------------------------------------------------------- fairness


def _twins_differing_in_stack_order() -> tuple[Game, Game]:
    """Two base games with the same tiles played and drawn but the rest of the stack in another
    order: seat to move cannot tell them apart."""
    rest = ["base/U", "base/B", "base/K", "base/V", "base/J", "base/C", "base/L", "base/R"]
    played = ["base/E", "base/N", "base/W", "base/D"]
    shuffled = rest[::-1]
    a = Game(players=2, stack=(*played, *rest))
    b = Game(players=2, stack=(*played, *shuffled))
    greedy = GreedyBot(8)
    while a.turn < len(played) - 1 or a.phase != "tile":
        action = greedy.choose(a)
        a.apply(action)
        b.apply(action)
    assert a.view(a.to_move) == b.view(b.to_move)
    assert [t.id for t in a.stack] != [t.id for t in b.stack]
    return a, b


def test_expert_choice_does_not_depend_on_the_hidden_stack_order() -> None:
    a, b = _twins_differing_in_stack_order()
    for seed in range(3):
        assert ExpertBot(seed, iterations=15).choose(a) == ExpertBot(seed, iterations=15).choose(b)
    assert ExpertBot(0, iterations=15).hints(a) == ExpertBot(0, iterations=15).hints(b)


def twins_differing_in_hidden_chips() -> tuple[Game, Game]:
    """A game where seat 1 bet a chip seat 0 cannot see, seat 0 to move with a choice, and its
    twin as seat 0 may imagine it: the same view, another chip there (and another stack)."""
    game = Game(players=2, bets=True, map="france", map_chips=True, seed=4)
    bots = [GreedyBot(1), GreedyBot(2)]
    bets = game.expansion(Bets)
    assert isinstance(bets, Bets)
    while not any(owner == 1 for chips in bets.offices.values() for owner, _ in chips):
        game.apply(bots[game.to_move].choose(game))
    while game.to_move != 0 or len(game.legal_actions()) < 2:
        game.apply(bots[game.to_move].choose(game))
    twin = game.determinized(0, random.Random(99))
    twin_bets = twin.expansion(Bets)
    assert twin_bets is not None and game.view(0) == twin.view(0)
    assert (bets.offices, bets.supply[1]) != (twin_bets.offices, twin_bets.supply[1])
    return game, twin


def test_expert_choice_does_not_depend_on_other_seats_hidden_chips() -> None:
    """Seat 1 bet a chip seat 0 cannot see; the twin has another chip there (and another
    stack order): seat 0's decisions and hints are the same."""
    game, twin = twins_differing_in_hidden_chips()
    bot_a, bot_b = ExpertBot(3, iterations=10), ExpertBot(3, iterations=10)
    assert bot_a.choose(game) == bot_b.choose(twin)
    assert bot_a.hints(game) == bot_b.hints(twin)


# ------------------------------------------------------------------------------------- CLI


def test_simulate_takes_bot_specs_with_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--games", "2", "--seed", "3", "--json"]
    assert main([*args, "--players", "expert:iterations=4,depth=0,width=2,greedy"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["players"] == ["expert:depth=0,iterations=4,width=2", "greedy"]
    assert [row["bot"] for row in report["bots"]] == report["players"]
    assert sum(row["wins"] for row in report["bots"]) == 2


def test_simulate_rejects_a_bad_spec_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "1", "--players", "expert:seconds=fast,greedy"]) == 2
    err = capsys.readouterr().err
    assert "--players: bot 'expert': seconds must be a number, not 'fast'" in err
