"""The River (C3 box, docs/rules.md §2): the spring starts, river tiles first, the lake last.

The river itself is not a feature (its tiles' fields are split by it, which the tile data already
says), so this module only changes setup and restricts where river tiles may go: each must
continue the river from its open end, the river may not run into a placed tile, and (D1) a curve
may not turn the same way as the river's previous curve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final

from ..board import DELTAS, OPPOSITE, encode
from ..chance import shuffle
from ..tiles import RIVER_EDGE, Orientation, tile_by_id, tile_set
from .base import Expansion

if TYPE_CHECKING:
    import random

    from ..game import Game, PlacedTile

STRAIGHT: Final = 0
RIGHT: Final = 1
LEFT: Final = 3


def river_turn(entry_edge: int, exit_edge: int) -> int:
    """How the water turns crossing a tile entered through ``entry_edge``: 0, RIGHT or LEFT."""
    heading_in = OPPOSITE[entry_edge]
    return (exit_edge - heading_in) % 4


class River(Expansion):
    name = "river"
    provides_start_tile: ClassVar[bool] = True

    def __init__(self) -> None:
        #: square where the next river tile must go, and the edge it must enter through
        self.target: int | None = None
        self.entry_edge = 0
        #: turn of the most recent curve (RIGHT/LEFT), None before the first curve (D1)
        self.last_curve: int | None = None

    def copy(self) -> River:
        other = River()
        other.restore(self)  # its state is three immutable values
        return other

    def restore(self, saved: Expansion) -> None:
        assert isinstance(saved, River)
        self.target, self.entry_edge, self.last_curve = (
            saved.target,
            saved.entry_edge,
            saved.last_curve,
        )

    def setup(self, game: Game) -> None:
        river = tile_set("river")
        spring = tile_by_id(f"river/{river.start_tile}")
        game.start_tile = spring
        (exit_edge,) = spring.rivers[0]
        self.target = encode(0, 0) + DELTAS[exit_edge]
        self.entry_edge = OPPOSITE[exit_edge]
        if game.options.stack is not None:
            return  # an explicit stack already says where the river tiles come
        lake = tile_by_id(f"river/{river.last_tile}")
        middle = [t for t in river.copies() if t is not spring and t is not lake]
        shuffle(middle, game.rng)
        # The stack is drawn from its end: the river comes first, the lake last of the river.
        game.stack.append(lake)
        game.stack.extend(reversed(middle))

    def redeal_hidden(self, game: Game, seat: int, rng: random.Random) -> None:
        """Put the shuffled stack back in the order everybody knows from setup: the river tiles
        first, the lake last of them (only their order among themselves is hidden)."""
        if game.options.stack is not None:
            return  # an explicit stack promises no such order
        lake = f"river/{tile_set('river').last_tile}"
        stack = game.stack  # drawn from its end
        game.stack = (
            [t for t in stack if not t.rivers]
            + [t for t in stack if t.id == lake]
            + [t for t in stack if t.rivers and t.id != lake]
        )

    def restricts_placement(self, game: Game) -> bool:
        tile = game.current_tile
        return tile is not None and bool(tile.rivers)

    def placement_allowed(self, game: Game, pos: int, orientation: Orientation) -> bool:
        if pos != self.target or orientation.edges[self.entry_edge] != RIVER_EDGE:
            return False
        (river,) = orientation.rivers
        exits = [e for e in river if e != self.entry_edge]
        if not exits:
            return True  # the lake: the river ends here
        (exit_edge,) = exits
        if pos + DELTAS[exit_edge] in game.board:
            return False  # the river would run into a placed tile
        turn = river_turn(self.entry_edge, exit_edge)
        return turn == STRAIGHT or turn != self.last_curve

    def after_tile_placed(self, game: Game, placed: PlacedTile) -> None:
        orientation = placed.orientation
        if not orientation.rivers or placed.pos != self.target:
            return
        (river,) = orientation.rivers
        exits = [e for e in river if e != self.entry_edge]
        if not exits:
            self.target = None
            return
        (exit_edge,) = exits
        turn = river_turn(self.entry_edge, exit_edge)
        if turn != STRAIGHT:
            self.last_curve = turn
        self.target = placed.pos + DELTAS[exit_edge]
        self.entry_edge = OPPOSITE[exit_edge]
