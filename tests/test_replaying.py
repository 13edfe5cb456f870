"""Rebuilding a game from its options and moves (``carcassonne.replaying``), the one way the
simulations, the bot workers, the web rooms, the records and the CLI's undo all do it."""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import pytest

from carcassonne import Game, GameOptions, IllegalAction, PlaceTile
from carcassonne.bots import make_bot
from carcassonne.replaying import Move, ReplayError, replay, replay_onto

OPTIONS = GameOptions(players=3, abbot=True, bets=True, seed=11)


def played(options: GameOptions = OPTIONS) -> Game:
    game = Game(options)
    bot = make_bot("random", 5)
    while not game.is_over:
        game.apply(bot.choose(game))
    return game


def test_a_replay_is_the_game_it_replays() -> None:
    game = played()
    again = replay(game.options, game.history)
    assert again.history == game.history
    assert again.scores == game.scores
    assert again.events == game.events
    for seat in (None, 0, 1, 2):
        assert again.view(seat) == game.view(seat)


def test_replay_onto_goes_on_from_where_the_game_is() -> None:
    game = played()
    half = len(game.history) // 2
    again = replay(game.options, game.history[:half])
    replay_onto(again, game.history[half:])
    assert again.view(None) == game.view(None)
    assert again.scores == game.scores


def first_tile_ply(game: Game, after: int) -> int:
    """The index in ``game.history`` of the first tile placement at or after ``after``."""
    return next(i for i, (_, a) in enumerate(game.history) if i >= after and type(a) is PlaceTile)


def test_an_illegal_action_at_ply_k_is_reported_with_k_and_the_moves_before_stay() -> None:
    game = played()
    k = first_tile_ply(game, 10)
    seat = game.history[k][0]
    moves = [*game.history[:k], (seat, PlaceTile(500, 500, 0)), *game.history[k + 1 :]]
    again = Game(game.options)
    with pytest.raises(ReplayError) as caught:
        replay_onto(again, moves)
    failure = caught.value
    assert failure.ply == k + 1  # plies count from 1, as the web app's messages name them
    assert isinstance(failure.cause, IllegalAction)
    assert failure.__cause__ is failure.cause
    assert str(failure.cause) == "square (500, 500) does not touch a placed tile"
    assert f"action {k + 1} does not replay" in str(failure)
    # the game holds exactly the moves before the failed one: nothing half-applied
    assert again.history == game.history[:k]
    assert again.view(None) == replay(game.options, game.history[:k]).view(None)


def test_a_move_for_a_seat_not_to_move_is_refused_before_it_is_applied() -> None:
    game = played()
    k = first_tile_ply(game, 4)
    seat, action = game.history[k]
    moves = [*game.history[:k], ((seat + 1) % 3, action)]
    with pytest.raises(ReplayError) as caught:
        replay(game.options, moves)
    assert caught.value.ply == k + 1
    assert isinstance(caught.value.cause, IllegalAction)
    assert str(caught.value.cause) == f"stored seat {(seat + 1) % 3} but seat {seat} is to move"


def test_a_move_source_that_fails_fails_its_own_ply() -> None:
    """Stored moves are decoded as they are replayed: one that does not decode names its ply."""
    game = played()

    def decoded() -> Iterator[Move]:
        yield from game.history[:3]
        raise KeyError("type")

    again = Game(game.options)
    with pytest.raises(ReplayError) as caught:
        replay_onto(again, decoded())
    assert caught.value.ply == 4
    assert isinstance(caught.value.cause, KeyError)
    assert again.history == game.history[:3]


def test_plies_count_from_the_start_of_the_game_when_going_on() -> None:
    game = played()
    again = replay(game.options, game.history[:6])
    with pytest.raises(ReplayError) as caught:
        replay_onto(again, [game.history[6], (game.history[7][0], PlaceTile(500, 500, 0))])
    assert caught.value.ply == 8
    assert len(again.history) == 7


def test_the_error_crosses_to_another_process_whole() -> None:
    """A bot worker's failed replay comes back pickled: it must not break the worker pool."""
    failure = ReplayError(3, IllegalAction("square taken", "square_taken"))
    back = pickle.loads(pickle.dumps(failure))
    assert (back.ply, str(back.cause), back.cause.reason) == (3, "square taken", "square_taken")
    assert str(back) == "action 3 does not replay: square taken"
    assert back.__cause__ is back.cause  # still chained, for the traceback
