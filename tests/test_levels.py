"""The ladder's levels (bots/levels.py) and the novice bot behind the lowest (bots/novice.py)."""

from __future__ import annotations

from typing import Any

import pytest

from carcassonne import Game, GameOptions, PlaceFigure
from carcassonne.bots import (
    BOT_NAMES,
    SPEC_NAMES,
    bot_description,
    bot_parameters,
    check_bot_spec,
    make_bot,
    make_hinting_bot,
    resolved_spec,
)
from carcassonne.bots.expert import ExpertBot
from carcassonne.bots.greedy import GreedyBot
from carcassonne.bots.levels import LEVEL_NAMES, LEVELS
from carcassonne.bots.novice import NoviceBot
from carcassonne.tiles import FIELD
from test_bots import OPTION_SETS, play_checked

#: every option set of test_bots, and Traders & Builders, whose figures (builder, pig) the
#: novice places too
NOVICE_OPTION_SETS = {
    **OPTION_SETS,
    "traders+builders": {"traders_builders": True},
    "everything off the map": {
        "river": True,
        "abbot": True,
        "bets": True,
        "inns_cathedrals": True,
        "traders_builders": True,
    },
}


# ------------------------------------------------------------------------------ resolution


def test_level_names_never_collide_with_bot_names() -> None:
    assert not set(LEVEL_NAMES) & set(BOT_NAMES)
    assert (*LEVEL_NAMES, *BOT_NAMES) == SPEC_NAMES
    assert len(set(LEVEL_NAMES)) == len(LEVELS) >= 4


def test_every_level_stands_for_a_valid_bot_spec() -> None:
    for level in LEVELS:
        bot, _, _ = level.spec.partition(":")
        assert bot in BOT_NAMES, level
        assert check_bot_spec(level.spec) == level.spec  # written canonical


def test_a_level_resolves_to_its_bot_with_its_budget() -> None:
    casual = make_bot("casual", 5)
    assert isinstance(casual, NoviceBot) and casual.noise == 0.25
    assert isinstance(make_bot("beginner", 5), NoviceBot)
    assert type(make_bot("intermediate", 5)) is GreedyBot
    strong = make_bot("strong", 5)
    assert isinstance(strong, ExpertBot)
    assert strong.iterations is not None and strong.seconds is not None
    master = make_hinting_bot("master", 5)  # the top level can give hints
    assert isinstance(master, ExpertBot)
    assert master.iterations is not None and strong.iterations < master.iterations


def test_searching_levels_budget_playouts_with_a_generous_time_cap() -> None:
    """Strength independent of load: a playout budget, the clock only as a cap far above what
    those playouts take on an idle core (2.4 ms each in the base game, benchmarks/README.md,
    5 ms with expansions)."""
    searching = [make_bot(level.name, 1) for level in LEVELS]
    experts = [bot for bot in searching if isinstance(bot, ExpertBot)]
    assert len(experts) >= 2
    for bot in experts:
        assert bot.iterations is not None and bot.seconds is not None
        assert bot.seconds >= 20 * 0.005 * bot.iterations


def test_canonical_level_specs_keep_the_level_name() -> None:
    assert check_bot_spec(" Casual ") == "casual"
    assert check_bot_spec("casual:seed=3") == "casual:seed=3"
    assert resolved_spec("casual:seed=3") == "novice:noise=0.25,seed=3"
    assert resolved_spec("greedy") == "greedy"
    assert bot_parameters("master") == bot_parameters("random")[:1]  # seed only
    assert "farmers" in bot_description("beginner")


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("casual:noise=2", "bot 'casual' has no parameter 'noise' \\(it takes: seed\\)"),
        ("master:iterations=5", "bot 'master' has no parameter 'iterations'"),
        ("grandmaster", "unknown bot 'grandmaster' \\(choose a level: beginner, casual"),
        ("casual:seed=-1", "bot 'casual': seed must be"),
        ("novice:noise=-1", "bot 'novice': noise must be 0.0 to 100.0"),
    ],
)
def test_bad_level_specs_are_refused_by_name(spec: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_bot_spec(spec)


def test_a_level_seed_is_the_bots_seed() -> None:
    game = Game(players=2, seed=4)
    for _ in range(3):
        game.apply(make_bot("random", 1).choose(game))
    assert make_bot("casual:seed=9").choose(game) == NoviceBot(9, noise=0.25).choose(game)


# ------------------------------------------------------------------------------ the novice


@pytest.mark.parametrize("options", NOVICE_OPTION_SETS.values(), ids=NOVICE_OPTION_SETS.keys())
@pytest.mark.parametrize(
    "names", [("beginner", "random"), ("casual", "greedy", "beginner")], ids=["2p", "3p"]
)
def test_novice_only_chooses_legal_actions(options: dict[str, Any], names: tuple[str, ...]) -> None:
    for seed in (3, 4):
        bots = [make_bot(name, seed * 10 + seat) for seat, name in enumerate(names)]
        assert play_checked(Game(players=len(names), seed=seed, **options), bots).is_over


@pytest.mark.parametrize("level", ["beginner", "casual", "strong"])
def test_a_level_plays_a_game_identically_for_a_seed(level: str) -> None:
    def history() -> list[Any]:
        bots = [make_bot(level, 3), make_bot("greedy", 4)]
        game = Game(players=2, seed=21, abbot=True)
        for _ in range(12 if level == "strong" else 200):  # the expert: a few turns suffice
            if game.is_over:
                break
            game.apply(bots[game.to_move].choose(game))
        return list(game.history)

    assert history() == history()


def _habits(names: tuple[str, str], games: int) -> dict[str, dict[str, float]]:
    """Per bot, over ``games`` base games with fixed seeds, seats alternating: games won,
    figures put on fields, and tile turns begun with no meeple in hand (all out on the board)."""
    tally = {name: {"wins": 0.0, "fields": 0, "no_meeple": 0} for name in names}
    for i in range(games):
        seated = names if i % 2 == 0 else names[::-1]
        bots = [make_bot(name, 50 * i + seat) for seat, name in enumerate(seated)]
        game = Game(GameOptions(players=2, seed=700 + i))
        while not game.is_over:
            who = tally[seated[game.to_move]]
            if game.phase == "tile":
                who["no_meeple"] += game.supply[game.to_move].get("meeple", 0) == 0
            action = bots[game.to_move].choose(game)
            if isinstance(action, PlaceFigure):
                placed = game.last_placed
                assert placed is not None
                segment = placed.base + placed.orientation.locations[action.location]
                who["fields"] += game.seg_feature[segment].kind == FIELD
            game.apply(action)
        for seat in game.winners():
            tally[seated[seat]]["wins"] += 1 / len(game.winners())
    return tally


def test_the_beginner_plays_like_a_person_not_at_random() -> None:
    """20 games each, fixed seeds: the beginner beats the random bot nearly always (it takes
    the points a tile offers), and against the greedy bot it shows a beginner's habits: far
    fewer farmers, and meeples spent so freely that it is out of them twice as often."""
    against_random = _habits(("beginner", "random"), 20)
    assert against_random["beginner"]["wins"] >= 18
    against_greedy = _habits(("beginner", "greedy"), 20)
    beginner, greedy = against_greedy["beginner"], against_greedy["greedy"]
    assert beginner["fields"] * 2 < greedy["fields"]
    assert beginner["no_meeple"] > 1.5 * greedy["no_meeple"]
    assert beginner["wins"] < greedy["wins"]


def test_the_novice_misjudges_less_with_less_noise() -> None:
    """With no noise the novice finds the 4 points the greedy bot finds (closing the start
    city); a huge error makes it miss them in most of 20 seeded tries."""
    from carcassonne import PlaceTile

    stack = ("base/E", "base/E", "base/B")
    best = PlaceTile(0, -1, 180)
    exact = [NoviceBot(seed, noise=0.0).choose(Game(players=2, stack=stack)) for seed in range(20)]
    assert exact == [best] * 20
    wild = [NoviceBot(seed, noise=50.0).choose(Game(players=2, stack=stack)) for seed in range(20)]
    assert wild.count(best) < 10


# ------------------------------------------------------------------------------ the commands


def test_play_takes_a_level_as_a_seat() -> None:
    from carcassonne.cli.play import parse_seats

    assert parse_seats("human, Casual,master:seed=2", None) == ["human", "casual", "master:seed=2"]
    with pytest.raises(ValueError, match="unknown seat 'champion'.*beginner, casual"):
        parse_seats("human,champion", None)


def test_bots_lists_the_levels_first_weakest_first(capsys: pytest.CaptureFixture[str]) -> None:
    from carcassonne.cli.main import main

    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    places = [out.index(f". {name} ") for name in LEVEL_NAMES]
    assert places == sorted(places) and places[-1] < out.index("random:")
    for level in LEVELS:
        assert f"= {level.spec}" in out


def test_simulate_and_tournament_seat_levels(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    import json

    from carcassonne.cli.main import main

    args = ["--players", "beginner,casual", "--games", "2", "--seed", "3", "--json"]
    assert main(["simulate", *args]) == 0
    assert [row["bot"] for row in json.loads(capsys.readouterr().out)["bots"]] == [
        "beginner",
        "casual",
    ]
    assert main(["tournament", *args, "--out", str(tmp_path / "t")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(row["bot"] for row in report["bots"]) == ["beginner", "casual"]
