"""Game review (``bots/review.py``): exact marks where the outcome is exact, reproducible, only
the seats asked for, and judged by what the seat could know (hidden information stays hidden)."""

from __future__ import annotations

from pathlib import Path

import pytest

from carcassonne import Game, PlaceTile
from carcassonne.bots.expert import ExpertBot
from carcassonne.bots.greedy import GreedyBot
from carcassonne.bots.review import MARK_NAMES, decisions, mark_of, review, review_decision
from carcassonne.formats.actions import action_to_json
from carcassonne.formats.record import read_record, replay_record
from carcassonne.replaying import ReplayError
from test_expert import (
    _last_tile_position,
    _twins_differing_in_stack_order,
    twins_differing_in_hidden_chips,
)


def _last_tile_game() -> Game:
    """A base game of 20 tiles with the last one to place (seat 0): every outcome is exact, and
    the placements lose 0 to 11 points against the best (a record: the position stays the same
    whatever the bots that played it become)."""
    game = replay_record(read_record(Path("tests/records/review-last-tile.json")))
    assert game.is_last_tile and game.phase == "tile" and game.to_move == 0
    return game


def _finish(game: Game, placement: PlaceTile) -> tuple[list[tuple[int, object]], int]:
    """The moves of ``game`` ended by ``placement`` and its best figure; the final lead."""
    placed = game.copy()
    placed.apply(placement)
    outcomes = []
    for figure in placed.legal_actions():
        done = placed.copy()
        done.apply(figure)
        outcomes.append((done.scores[0] - done.scores[1], figure))
    lead, figure = max(outcomes, key=lambda o: o[0])
    return [*game.history, (0, placement), (0, figure)], lead


@pytest.mark.parametrize(
    ("placement", "lost", "mark"),
    [
        (PlaceTile(1, 1, 90), 0, "best"),
        (PlaceTile(0, 2, 0), 1, "good"),
        (PlaceTile(2, 2, 90), 4, "inaccuracy"),
        (PlaceTile(4, 0, 90), 11, "blunder"),
    ],
)
def test_a_worse_last_tile_is_marked_by_the_exact_points_it_lost(
    placement: PlaceTile, lost: int, mark: str
) -> None:
    game = _last_tile_game()
    leads = [_finish(game, p)[1] for p in game.legal_actions()]
    moves, lead = _finish(game, placement)
    assert max(leads) - lead == lost  # the exact outcomes the review must find
    result = review(game.options, moves, [0], iterations=200)
    last_tile = next(m for m in result.marks if m.ply == len(game.history) + 1)
    assert (last_tile.lost, last_tile.mark) == (lost, mark)
    assert (last_tile.best == placement) == (lost == 0)
    if lost:
        best_moves, best_lead = _finish(game, last_tile.best)
        assert best_lead == max(leads)


def test_marks_follow_the_documented_thresholds() -> None:
    assert [mark_of(x) for x in (0, 0.5, 0.51, 2, 2.1, 5, 5.5, 10, 10.01, 40)] == [
        "best", "best", "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake",
        "blunder", "blunder",
    ]  # fmt: skip
    assert MARK_NAMES == ("best", "good", "inaccuracy", "mistake", "blunder")


def _greedy_game(plies: int, seed: int = 5) -> Game:
    game = Game(players=2, seed=seed)
    bots = [GreedyBot(1), GreedyBot(2)]
    while not game.is_over and len(game.history) < plies:
        game.apply(bots[game.to_move].choose(game))
    return game


def test_a_review_is_reproducible_and_reports_its_progress() -> None:
    game = _greedy_game(24)
    heard: list[tuple[int, int]] = []
    first = review(
        game.options, game.history, [0, 1], lambda d, n: heard.append((d, n)), iterations=20
    )
    again = review(game.options, game.history, [0, 1], iterations=20)
    assert first.to_json(action_to_json) == again.to_json(action_to_json)
    # turns as players count them: the first tile and its figure are turn 1, seat 1's are turn 2
    assert [(m.ply, m.turn, m.seat) for m in first.marks[:4]] == [
        (1, 1, 0), (2, 1, 0), (3, 2, 1), (4, 2, 1),
    ]  # fmt: skip
    total = len(first.marks)
    assert heard == [(done, total) for done in range(total + 1)]
    assert total == len(decisions(game.options, game.history, [0, 1])) > 0
    for seat in (0, 1):
        series = first.series(seat)
        assert [ply for ply, _ in series] == [m.ply for m in first.marks if m.seat == seat]
        assert 0 <= first.accuracy(seat) <= 100  # type: ignore[operator]
        assert sum(first.counts(seat).values()) == len(series)


def test_only_the_seats_asked_for_and_real_choices_are_reviewed() -> None:
    game = _greedy_game(40)
    result = review(game.options, game.history, [1], iterations=5)
    assert result.marks and {m.seat for m in result.marks} == {1}
    assert result.accuracy(0) is None and result.seats == (1,)
    replayed = Game(game.options)
    choices = []
    for ply, (seat, action) in enumerate(game.history, 1):
        if seat == 1 and len(replayed.legal_actions()) > 1:
            choices.append(ply)
        replayed.apply(action)
    assert [m.ply for m in result.marks] == choices


def test_a_forced_move_is_not_reviewed() -> None:
    game = _last_tile_position("base/C")  # the city of four sides fits in one place only
    (forced,) = game.legal_actions()
    game.apply(forced)
    result = review(game.options, game.history, [0], iterations=5)
    assert result.marks  # seat 0's earlier choices are reviewed
    assert len(game.history) not in {m.ply for m in result.marks}  # the last placement is not


def test_the_review_of_a_seat_does_not_depend_on_the_hidden_stack_order() -> None:
    a, b = _twins_differing_in_stack_order()
    assert a.history == b.history and a.options.stack != b.options.stack
    review_a = review(a.options, a.history, [0, 1], iterations=15)
    review_b = review(b.options, b.history, [0, 1], iterations=15)
    assert review_a.to_json(action_to_json) == review_b.to_json(action_to_json)
    played = a.legal_actions()[-1]
    assert review_decision(a, played, 15, 3) == review_decision(b, played, 15, 3)


def test_hints_keep_the_included_move_in_every_round() -> None:
    """What the review compares: the move played, however bad, is played out in each sampled
    world the best move is, so their difference rests on the same draws."""
    game = _last_tile_game()
    worst = PlaceTile(4, 0, 90)
    bot = ExpertBot(1, iterations=60)
    hints = bot.hints(game, 1, include=worst)
    assert [h.action for h in hints][1:] == [worst] and hints[0].action != worst
    assert hints[1].samples == bot.stats.rounds
    with pytest.raises(ValueError, match="not a legal action"):
        bot.hints(game, 1, include=PlaceTile(99, 99, 0))


def test_the_review_of_a_seat_does_not_depend_on_other_seats_hidden_chips() -> None:
    game, twin = twins_differing_in_hidden_chips()
    for played in game.legal_actions()[:3]:
        assert review_decision(game, played, 12, 7) == review_decision(twin, played, 12, 7)


def test_moves_that_do_not_replay_and_bad_budgets_are_refused() -> None:
    game = _greedy_game(6)
    bad = [*game.history[:3], (game.history[3][0], PlaceTile(99, 99, 0))]
    with pytest.raises(ReplayError, match="action 4"):
        review(game.options, bad, [0, 1], iterations=5)
    with pytest.raises(ValueError, match="iterations must be 1 to"):
        review(game.options, game.history, [0], iterations=0)
