"""The expert's learned evaluation: its features on built positions, the shipped data file and
its checks, information-fairness, and the expert's choice between it and the static one."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from carcassonne import Game
from carcassonne.board import encode
from carcassonne.bots import make_bot
from carcassonne.bots.evaluate import Evaluator, relative
from carcassonne.bots.expert import ExpertBot
from carcassonne.bots.greedy import GreedyBot
from carcassonne.bots.learned import (
    FAMILIES,
    FEATURES,
    FORMAT,
    VERSION,
    EvaluationDataError,
    LearnedEvaluation,
    family,
    load_weights,
    parse_weights,
    read_weights,
    seat_features,
)
from carcassonne.expansions.bets import Bets
from carcassonne.expansions.mapchips import Chip, MapChips
from carcassonne.game import MEEPLE
from scenario import scenario
from test_expert import twins_differing_in_hidden_chips

# ---------------------------------------------------------------------------------- features


def _road_and_field() -> Game:
    """Seat 0's meeple on the start road (3 tiles, both ends open), seat 1's on the field north
    of it (bordering the start city, one open edge); 3 tiles left, seat 0 to move."""
    return scenario(
        [("base/U", 1, 0, 0, ("meeple", "W")), ("base/U", -1, 0, 0, ("meeple", "NL"))],
        then=["base/U"] * 4,
    )


def _named(row: list[float]) -> dict[str, float]:
    return {name: x for name, x in zip(FEATURES, row, strict=True) if x}


def test_features_of_a_built_position_are_the_static_estimates_and_counts() -> None:
    game = _road_and_field()
    assert (len(game.stack), game.to_move) == (3, 0)
    certain, (mine, theirs) = seat_features(game, 0)
    assert certain == [0.0, 0.0]
    # 1.5 own turns left: 3/4 of a 2-turn estimate's future part, 3/16 of the hand's (8 turns)
    road = 3 + 0.5 * 2 * 0.75  # tiles + growth per open edge * open edges * horizon
    field = 3 * 0.45 * 0.75  # 3 per bordering city * its chance to close (one open edge)
    hand = (6.0 + 4.4 + 3.4 + 2.8 + 2.4 + 2.0) * 3 / 16  # six meeples in hand
    late = 3 / 72  # share of a game left
    # every tile to come (base/U, a straight road) fits both open ends: a fit share of 1
    assert _named(mine) == pytest.approx(
        {"road_points": road, "roads": 1, "road_fit_points": road}
        | {"hand_points": hand, "meeples": 6}
        | {"road_points_late": road * late, "roads_late": late, "road_fit_points_late": road * late}
        | {"hand_points_late": hand * late, "meeples_late": 6 * late}
    )
    assert _named(theirs) == pytest.approx(
        {"field_points": field, "fields": 1, "hand_points": hand, "meeples": 6}
        | {"field_points_late": field * late, "fields_late": late}
        | {"hand_points_late": hand * late, "meeples_late": 6 * late}
    )


def _start_city_of_seat_1(then: list[str]) -> Game:
    game = scenario([], then=then)
    start = game.board[encode(0, 0)]
    game.put_figure(1, MEEPLE, start.base + start.orientation.locations["N"])
    return game


def test_a_city_one_tile_from_closing_is_counted_with_the_share_of_tiles_that_fit() -> None:
    # base/E drawn, three base/U in the stack: only base/E (a city cap) fits the square north of
    # the start city, 1 of the 4 tiles to come
    game = _start_city_of_seat_1(["base/E"] + ["base/U"] * 3)
    _, (_, theirs) = seat_features(game, 0)
    # 3 tiles left (1.5 own turns): (tiles + growth) * (1 + chance to close), 3/4 of each
    city = (1 + 0.5 * 1 * 0.75) * (1 + 0.45 * 0.75)
    named = _named(theirs)
    assert (named["cities"], named["cities_one_edge"]) == (1, 1)
    assert named["city_points"] == pytest.approx(city)
    assert named["city_fit_points"] == pytest.approx(city / 4)
    assert "city_dead_points" not in named


def test_a_city_no_tile_to_come_can_close_is_dead() -> None:
    game = _start_city_of_seat_1(["base/U"] * 4)  # straight roads only
    _, (_, theirs) = seat_features(game, 0)
    named = _named(theirs)
    assert named["city_dead_points"] == named["city_points"]
    assert "city_fit_points" not in named


def test_a_closed_city_is_certain_points_and_its_meeple_back_in_hand() -> None:
    closed = scenario([("base/E", 0, -1, 180, ("meeple", "S"))], then=["base/U"] * 3)
    certain, (mine, _) = seat_features(closed, 0)
    assert closed.scores[0] == 4 and certain[0] == 4.0
    assert _named(mine)["meeples"] == 7
    assert "cities" not in _named(mine)


def test_the_wines_a_seats_map_chips_make_are_a_feature() -> None:
    """A 2, or two 1s of one colour, make a wine; a lone 1 and a 1 of another colour do not."""
    game = Game(players=2, seed=3, map="france", map_chips=True)
    chips = game.expansion(MapChips)
    assert isinstance(chips, MapChips)
    chips.in_front[0] = [Chip("orange", 1), Chip("purple", 2), Chip("orange", 1)]
    chips.in_front[1] = [Chip("orange", 1), Chip("purple", 1)]
    _, (mine, theirs) = seat_features(game, 1)
    assert _named(mine)["wines"] == 2
    assert "wines" not in _named(theirs)


def test_value_is_score_plus_weights_times_features() -> None:
    game = _road_and_field()
    weights = tuple(float(i + 1) for i in range(len(FEATURES)))
    certain, rows = seat_features(game, 1)
    expected = [
        c + sum(w * x for w, x in zip(weights, row, strict=True))
        for c, row in zip(certain, rows, strict=True)
    ]
    assert LearnedEvaluation(weights).seat_values(game, 1) == pytest.approx(expected)


def test_each_rule_family_is_valued_by_its_own_weights() -> None:
    """A map game by the map family's weights, an Inns & Cathedrals or Traders & Builders game
    by theirs, any other by the base ones (what fields pay on a bounded map is not what they pay
    on an open table)."""
    base = Game(players=2, seed=3)
    on_map = Game(players=2, seed=3, map="france", map_chips=True, bets=True)
    inns = Game(players=2, seed=3, traders_builders=True)
    assert [family(g.options) for g in (base, on_map, inns)] == ["base", "map", "inns-traders"]
    assert family(on_map.options.with_(inns_cathedrals=True)) == "map"
    zero = (0.0,) * len(FEATURES)
    meeples = tuple(1.0 if name == "meeples" else 0.0 for name in FEATURES)
    evaluation = LearnedEvaluation({"base": zero, "map": meeples, "inns-traders": zero})
    assert evaluation.seat_values(base, 0) == [0.0, 0.0]
    assert evaluation.seat_values(inns, 0) == [0.0, 0.0]
    assert evaluation.seat_values(on_map, 0) == [9.0, 9.0]  # 9 meeples each on a map


def test_a_finished_game_is_worth_its_scores() -> None:
    game = scenario([("base/U", 1, 0, 0, ("meeple", "W"))])
    assert game.is_over
    assert LearnedEvaluation().seat_values(game, 0) == [float(s) for s in game.scores]


# ---------------------------------------------------------------------------------- data file


def _valid(weights: object = None) -> dict[str, object]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "features": list(FEATURES),
        "weights": dict.fromkeys(FAMILIES, [0.5] * len(FEATURES)) if weights is None else weights,
    }


def _map_weights(weights: list[object]) -> dict[str, list[object]]:
    """Valid weights for every family but ``map``'s."""
    return dict.fromkeys(FAMILIES, [0.5] * len(FEATURES)) | {"map": weights}


def test_the_shipped_file_is_valid_and_says_how_it_was_trained() -> None:
    weights = load_weights()
    assert sorted(weights) == sorted(FAMILIES)
    assert all(len(w) == len(FEATURES) and any(w) for w in weights.values())
    data = json.loads(
        (Path(__file__).parent.parent / "src/carcassonne/data/evaluation.json").read_text()
    )
    assert data["trained"]["command"].startswith("python benchmarks/train_evaluation.py")
    assert parse_weights(data, "x") == weights


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "tiles"}, "not a carcassonne-evaluation file of version 2"),
        ({"version": 1}, "not a carcassonne-evaluation file of version 2"),
        ({"features": list(FEATURES)[::-1]}, "features must be exactly road_points, roads"),
        ({"weights": [0.5] * len(FEATURES)}, "weights must be an object with one list per fam"),
        ({"weights": {"base": [0.5] * len(FEATURES)}}, "weights must be an object with one list"),
        (
            {"weights": _map_weights([1.0])},
            f"weights of map must be a list of {len(FEATURES)} numbers",
        ),
        (
            {"weights": _map_weights(["1"] + [0.0] * (len(FEATURES) - 1))},
            "weights of map: road_points is not a number",
        ),
        (
            {"weights": _map_weights([True] + [0.0] * (len(FEATURES) - 1))},
            "weights of map: road_points is not a number",
        ),
        (
            {"weights": _map_weights([0.0, 1e9] + [0.0] * (len(FEATURES) - 2))},
            "weights of map: roads out of range",
        ),
    ],
)
def test_a_damaged_file_is_refused_naming_it_and_the_fault(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(EvaluationDataError, match="^damaged.json: " + message):
        parse_weights(_valid() | change, "damaged.json")


def test_a_file_that_is_not_json_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "evaluation.json"
    path.write_text('{"format": "carcassonne-evaluation", "weights": [1, 2')
    with pytest.raises(EvaluationDataError, match=f"^{path}: cannot be read"):
        read_weights(path, str(path))
    path.write_text(json.dumps([1, 2]))
    with pytest.raises(EvaluationDataError, match=f"^{path}: expected a JSON object"):
        read_weights(path, str(path))
    path.write_text(json.dumps(_valid()))
    assert read_weights(path, str(path)) == dict.fromkeys(FAMILIES, (0.5,) * len(FEATURES))


# ---------------------------------------------------------------------------------- fairness


def test_a_world_the_seat_cannot_tell_apart_gets_the_same_value() -> None:
    """Base game: a determinized world differs only in the stack order."""
    game = Game(players=2, seed=12)
    greedy = GreedyBot(4)
    for _ in range(30):
        game.apply(greedy.choose(game))
    evaluation = LearnedEvaluation()
    seat = game.to_move
    world = game.determinized(seat, random.Random(5))
    assert [t.id for t in world.stack] != [t.id for t in game.stack]
    assert evaluation.seat_values(world, seat) == evaluation.seat_values(game, seat)


def test_other_seats_hidden_chips_do_not_change_the_value() -> None:
    game, twin = twins_differing_in_hidden_chips()
    bets, twin_bets = game.expansion(Bets), twin.expansion(Bets)
    assert isinstance(bets, Bets) and isinstance(twin_bets, Bets)
    assert bets.offices != twin_bets.offices
    evaluation = LearnedEvaluation()
    assert evaluation.seat_values(game, 0) == evaluation.seat_values(twin, 0)


# ------------------------------------------------------------------------------ the expert


def test_the_expert_values_leaves_by_the_learned_evaluation_unless_told_not_to() -> None:
    game = _road_and_field()
    learned = make_bot("expert:iterations=5", 1)
    static = make_bot("expert:iterations=5,learned=0", 1)
    assert isinstance(learned, ExpertBot) and isinstance(static, ExpertBot)
    values = LearnedEvaluation().seat_values(game, 0)
    assert learned.reward(game, 0) == relative(values, 0)
    evaluator = Evaluator(game)
    assert static.reward(game, 0) == relative(evaluator.seat_values(game), 0)
    assert learned.reward(game, 0) != static.reward(game, 0)


def test_the_learned_expert_is_deterministic_with_a_seed_and_iterations() -> None:
    def play() -> list[object]:
        game = Game(players=2, seed=23, inns_cathedrals=True, traders_builders=True)
        bots = [make_bot("expert:iterations=10,width=3", 5), make_bot("greedy", 6)]
        for _ in range(24):
            game.apply(bots[game.to_move].choose(game))
        return [action for _, action in game.history]

    assert play() == play()


def test_training_is_one_seeded_command_that_writes_the_same_valid_file(tmp_path: Path) -> None:
    script = Path(__file__).parent.parent / "benchmarks" / "train_evaluation.py"
    written = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        subprocess.run(
            [sys.executable, str(script), "--games", "2", "--seed", "5", "--out", str(out)],
            check=True,
            capture_output=True,
        )
        written.append(out.read_text())
    assert written[0] == written[1]
    data = json.loads(written[0])
    assert data["trained"]["games"] == 6  # 2 in each of the 3 option sets, one per family
    assert sorted(data["trained"]["families"]) == sorted(FAMILIES)
    weights = read_weights(tmp_path / "a.json", "a.json")
    assert weights == {name: tuple(w) for name, w in data["weights"].items()}
    assert len(set(weights.values())) == len(FAMILIES)  # each family fitted on its own games


def test_training_on_another_bots_games_says_so_and_fits_those_games(tmp_path: Path) -> None:
    script = Path(__file__).parent.parent / "benchmarks" / "train_evaluation.py"
    fitted = {}
    for bot in ("greedy", "random"):
        out = tmp_path / f"{bot}.json"
        subprocess.run(
            [sys.executable, str(script), "--games", "2", "--seed", "5", "--bot", bot]
            + ["--out", str(out)],
            check=True,
            capture_output=True,
        )
        fitted[bot] = json.loads(out.read_text())
    assert fitted["random"]["trained"]["command"].endswith("--seed 5 --bot random")
    assert fitted["greedy"]["trained"]["command"].endswith("--seed 5")
    assert fitted["random"]["weights"] != fitted["greedy"]["weights"]
