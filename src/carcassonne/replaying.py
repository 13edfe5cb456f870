"""Rebuilding a game from its options and actions: the one way every part of the project does it.

Chance happens only at setup, so the options and the actions determine a game exactly; a finished
simulation, a bot worker, a web game after a restart or a move made in another server process, a
game record, a replay page and an undo all rebuild their game through :func:`replay_onto`.  The
actions come as ``(seat, action)`` moves, as in ``Game.history``: the seat is checked against the
seat to move, so a stored move can never be applied for the wrong player.  Decoding stored actions
(JSON) is for the edges; a move source that fails while giving the next move (e.g. a stored
action that does not decode) fails that ply like an illegal action does.
"""

from __future__ import annotations

from collections.abc import Iterable

from .expansions.actions import Action
from .game import Game, IllegalAction
from .options import GameOptions

#: one move as ``Game.history`` holds it: the seat that made it and its action
Move = tuple[int, Action]


class ReplayError(ValueError):
    """A move that does not replay: ``ply`` counts the game's actions from 1 (its history length
    before the move, plus one), ``cause`` says why (an :class:`IllegalAction`, or whatever the
    move source or the engine raised; it is chained too).

    After an :class:`IllegalAction` or a failing source the game holds exactly the moves before
    ``ply``; after any other cause the engine may have half-applied the move, so rebuild from the
    moves before ``ply`` to go on.
    """

    def __init__(self, ply: int, cause: Exception) -> None:
        # The fields are the exception's args, so that it pickles back from a worker process.
        super().__init__(ply, cause)
        self.ply = ply
        self.cause = cause
        # Chained here as well as by ``raise ... from``, which the compiled engine (mypyc) drops.
        self.__cause__ = cause

    def __str__(self) -> str:
        return f"action {self.ply} does not replay: {self.cause}"


def replay(options: GameOptions, moves: Iterable[Move]) -> Game:
    """The game ``options`` set up, after ``moves``; :class:`ReplayError` at the first that
    fails."""
    game = Game(options)
    replay_onto(game, moves)
    return game


def replay_onto(game: Game, moves: Iterable[Move]) -> None:
    """Apply ``moves`` to ``game`` in order; :class:`ReplayError` at the first that fails (the
    moves before it stay applied)."""
    applied = len(game.history)
    # One ``try`` round the whole loop, so that a failing source (it raises while the ``for``
    # asks for the next move) is caught as well as a failing action.
    try:
        for seat, action in moves:
            if game.to_move != seat:
                raise IllegalAction(f"stored seat {seat} but seat {game.to_move} is to move")
            game.apply(action)
            applied += 1
    except Exception as exc:
        raise ReplayError(applied + 1, exc) from exc
