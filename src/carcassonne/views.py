"""What one seat may know of a game: :func:`game_view` and the shape of its answer.

``Game.view(seat)`` delegates here, so that the game module keeps state and turn flow and the one
place that decides what leaves the engine for a player (the web, the terminal, the env) is read
on its own.  The stack's order never appears in a view; each expansion says what of its own state
a seat may see (``Expansion.view``), kept under ``expansions`` by the expansion's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from .board import decode, encode

if TYPE_CHECKING:
    from .game import Game


class TileView(TypedDict):
    """A played tile (the printed tiles of a map are the map's, not the view's)."""

    x: int
    y: int
    tile: str
    rotation: int
    turn: int
    #: who placed it (None: the start tile)
    seat: int | None


class FigureView(TypedDict):
    """A figure on the board, at a segment of a tile named by its location."""

    x: int
    y: int
    location: str
    seat: int
    figure: str


class GameView(TypedDict):
    """What ``seat`` may know of a game (``seat`` None: a spectator)."""

    seat: int | None
    players: int
    phase: str
    active: int
    to_move: int
    turn: int
    scores: list[int]
    #: per seat, figure type -> count in hand
    supply: list[dict[str, int]]
    tiles: list[TileView]
    figures: list[FigureView]
    current_tile: str | None
    tiles_left: int
    #: tile ids discarded as unplaceable, in order
    discarded: list[str]
    #: expansion name -> what that expansion shows ``seat`` (its own shape)
    expansions: dict[str, dict[str, Any]]


def game_view(game: Game, seat: int | None) -> GameView:
    """What ``seat`` may know of ``game`` (``None``: a spectator).  Never the stack order."""
    printed = {encode(p.x, p.y) for p in game.geometry.printed}
    tiles: list[TileView] = []
    for placed in game.board.values():
        if placed.pos in printed:
            continue
        x, y = decode(placed.pos)
        tiles.append(
            {
                "x": x,
                "y": y,
                "tile": placed.tile.id,
                "rotation": placed.orientation.rotation,
                "turn": placed.turn,
                "seat": placed.seat,
            }
        )
    figures: list[FigureView] = []
    for segment, (owner, figure) in sorted(game.figures.items()):
        x, y = decode(game.seg_pos[segment])
        placed = game.board[game.seg_pos[segment]]
        location = placed.orientation.segments[segment - placed.base].location
        figures.append({"x": x, "y": y, "location": location, "seat": owner, "figure": figure})
    return {
        "seat": seat,
        "players": game.players,
        "phase": game.phase,
        "active": game.active,
        "to_move": game.to_move,
        "turn": game.turn,
        "scores": list(game.scores),
        "supply": [dict(s) for s in game.supply],
        "tiles": tiles,
        "figures": figures,
        "current_tile": game.current_tile.id if game.current_tile else None,
        "tiles_left": len(game.stack),
        "discarded": [t.id for t in game.discarded],
        "expansions": {e.name: e.view(game, seat) for e in game.expansions},
    }
