"""Board geometry: where tiles may go and what lies beyond the edge.

Squares are encoded as one integer (``pos``) so that neighbours are additions and board lookups
are int-keyed dict hits.  A geometry decides which squares are playable, which sides of a square
face the border (closing features), and which printed tiles (large cities of a map) exist before
the first turn.  The open table of the base game has no border; a map (``maps.py``) has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

# Final: the compiled build reads these as C constants, not as module-dict lookups
STRIDE: Final = 1024
OFFSET: Final = 512  # lets coordinates from -512 to 511 map onto non-negative positions
DELTAS: Final = (-STRIDE, 1, STRIDE, -1)  # N E S W
OPPOSITE: Final = (2, 3, 0, 1)
# The 8 surrounding squares, for monastery and garden neighbourhoods.
RING: Final = (-STRIDE - 1, -STRIDE, -STRIDE + 1, -1, 1, STRIDE - 1, STRIDE, STRIDE + 1)


def encode(x: int, y: int) -> int:
    if not (-OFFSET <= x < OFFSET and -OFFSET <= y < OFFSET):
        raise ValueError(f"square ({x}, {y}) is outside the playable range")
    return (y + OFFSET) * STRIDE + (x + OFFSET)


def decode(pos: int) -> tuple[int, int]:
    return pos % STRIDE - OFFSET, pos // STRIDE - OFFSET


@dataclass(frozen=True, slots=True)
class PrintedTile:
    """A tile printed on a map (a large city): a square that holds a city from the start.

    ``open_edges`` are the sides (0=N … 3=W) where the city continues onto a played tile; its
    other sides behave like the map border.
    """

    x: int
    y: int
    name: str
    open_edges: tuple[int, ...]


@dataclass(slots=True)
class Geometry:
    """The open table: unbounded, no border, nothing printed.

    A geometry is shared by every game played on it and by their copies (the open table's is
    one object, a map's is its map's), so nothing writes one once it is made.
    """

    name: str = "table"
    #: playable squares; ``None`` means every square
    squares: frozenset[int] | None = None
    printed: tuple[PrintedTile, ...] = ()
    #: pos -> sides of that square that face the border
    border_sides: dict[int, tuple[int, ...]] = field(default_factory=dict)

    @property
    def bounded(self) -> bool:
        return self.squares is not None

    def playable(self, pos: int) -> bool:
        return self.squares is None or pos in self.squares


def bounded_geometry(
    name: str, width: int, height: int, printed: tuple[PrintedTile, ...] = ()
) -> Geometry:
    """A rectangular map of ``width`` × ``height`` squares with (0, 0) at the north-west."""
    squares = {encode(x, y) for x in range(width) for y in range(height)}
    for p in printed:
        squares.discard(encode(p.x, p.y))
    border: dict[int, tuple[int, ...]] = {}
    for x in range(width):
        for y in range(height):
            sides = tuple(
                d
                for d, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0)))
                if not (0 <= x + dx < width and 0 <= y + dy < height)
            )
            if sides:
                border[encode(x, y)] = sides
    return Geometry(name=name, squares=frozenset(squares), printed=printed, border_sides=border)
