"""Build concrete game situations for rules tests: an explicit stack and scripted turns.

A rules test should read like the situation it checks: which tile goes where, in which rotation,
and which figure the player puts where.  A *step* is::

    ("base/E", 0, -1, 180, ("meeple", "S"))

the tile id expected on top of the stack, the square, the rotation, and the step-2 action:
``None`` (pass), ``(figure, location)``, or any action object (e.g. ``RecallAbbot(0, 1)``).
:func:`scenario` derives the stack from the steps (plus any tiles that should stay undrawn), so a
test never repeats the draw order by hand; it checks every drawn tile against the script, so a
script that drifts from the stack fails loudly instead of testing something else.

The plain start tile is ``base/D`` at (0, 0), rotation 0: N city, E and W road, S field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from carcassonne import PASS, Game, IllegalAction, PlaceFigure, PlaceTile, ScoreEvent
from carcassonne.board import encode

FigureSpec = tuple[str, str] | Any | None
Step = tuple[str, int, int, int, FigureSpec]


def figure_action(spec: FigureSpec) -> Any:
    """The step-2 action a script names: None = pass, (figure, location) = place it."""
    if spec is None:
        return PASS
    if isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(s, str) for s in spec):
        return PlaceFigure(*spec)
    return spec


def play(game: Game, steps: Iterable[Step]) -> Game:
    """Play ``steps`` in order, one turn each, for whichever seat is active."""
    for number, (tile_id, x, y, rotation, figure) in enumerate(steps, 1):
        drawn = game.current_tile.id if game.current_tile else None
        assert drawn == tile_id, f"step {number}: script places {tile_id}, the game drew {drawn}"
        game.apply(PlaceTile(x, y, rotation))
        game.apply(figure_action(figure))
    return game


def scenario(
    steps: Sequence[Step], *, then: Sequence[str] = (), players: int = 2, **options: Any
) -> Game:
    """A game whose stack is the steps' tiles followed by ``then``, with the steps played.

    Tiles in ``then`` stay in the stack, so the game is not over and no final scoring has run;
    leave ``then`` empty to play the game to its end.
    """
    stack = tuple(step[0] for step in steps) + tuple(then)
    return play(Game(players=players, stack=stack, **options), steps)


def close_start_road(game: Game, figures: Iterable[tuple[int, str, int, int, str]] = ()) -> Game:
    """End the start road with the next two tiles, base/W at (1, 0) then at (-1, 0) (a road of 3
    tiles), putting ``figures`` (seat, type, x, y, location) on the start tile first and on each
    base/W as it arrives (``Game.put_figure``: several seats' figures on one road)."""
    figures = list(figures)

    def put_at(x: int, y: int) -> None:
        for seat, figure, fx, fy, location in figures:
            if (fx, fy) == (x, y):
                placed = game.board[encode(x, y)]
                game.put_figure(seat, figure, placed.base + placed.orientation.locations[location])

    put_at(0, 0)
    for x in (1, -1):
        game.apply(PlaceTile(x, 0, 0))
        put_at(x, 0)
        game.apply(PASS)
    return game


def score_events(game: Game, reason: str | None = None) -> list[ScoreEvent]:
    """The game's score events, optionally only those with ``reason`` (completed, final, …)."""
    return [
        e
        for e in game.events
        if isinstance(e, ScoreEvent) and (reason is None or e.reason == reason)
    ]


def paid(game: Game, reason: str | None = None) -> list[tuple[str, dict[int, int]]]:
    """(source, points per seat) of every score event that paid someone, in order."""
    return [(e.source, e.points) for e in score_events(game, reason) if e.points]


def snapshot(game: Game) -> dict[str, Any]:
    """Everything an illegal action must leave untouched (and a copy must not disturb), in
    comparable form: every seat's view as well as the spectator's, since only a seat's own view
    shows its hidden holdings (its betting chips)."""
    return {
        "view": game.view(None),
        "seat_views": [game.view(seat) for seat in range(game.players)],
        "scores": list(game.scores),
        "supply": [dict(s) for s in game.supply],
        "board": {pos: (p.tile.id, p.orientation.rotation) for pos, p in game.board.items()},
        "figures": dict(game.figures),
        "features": sorted(
            (f.kind, sorted(f.squares), f.open, f.complete, sorted(f.figures))
            for f in game.features()
        ),
        "history": list(game.history),
        "events": [e.to_json() for e in game.events],
        "draws": list(game.draws),
        "stack": [tile.id for tile in game.stack],
        "flow": (game.phase, game.to_move, game.active),
    }


def assert_refused(game: Game, action: Any, match: str) -> None:
    """``action`` raises IllegalAction with a message matching ``match`` (a regex searched in
    it, as for ``pytest.raises``) and leaves the game exactly as it was: a refusal must say what
    is wrong, and a refused move that changed something half-way would corrupt the game."""
    before = snapshot(game)
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)
    assert snapshot(game) == before
