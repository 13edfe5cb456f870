"""Information aids for a table that allows them (issue 25): what any onlooker could work out.

Everything here is derived from public facts only: the tile sets the game was set up with (and
their copies), the tiles on the board, the tiles discarded and the tile drawn.  The stack's order
is never read; :func:`remaining_kinds` recomputes the multiset of the rest of the stack as a
player counting tiles at the table would, and a test checks it equals the hidden truth.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, TypedDict

from .board import decode, encode
from .placement import rotations_fitting
from .tiles import CITY, FIELD, KIND_NAMES, ROAD, TileType, tile_by_id

if TYPE_CHECKING:
    from .game import Game


class OpenFeatureView(TypedDict):
    """An unfinished city, road or cloister and what it would score if the game ended now."""

    kind: str
    points: int
    #: the squares it covers
    squares: list[dict[str, int]]


class AidsView(TypedDict):
    """What the aids show: tile id -> copies still in the stack (None: a game dealt from an
    explicit stack, whose contents are not public), the open squares none of them fits, and
    the unfinished features with their points now."""

    remaining: dict[str, int] | None
    unfillable: list[dict[str, int]]
    features: list[OpenFeatureView]


def _in_hand(game: Game) -> TileType | None:
    """The tile drawn and not yet placed (after the placement ``current_tile`` stays the tile
    just placed, for the steps of the rest of the turn)."""
    return game.current_tile if game.phase == "tile" else None


def remaining_kinds(game: Game) -> dict[str, int] | None:
    """Tile id -> copies left in the stack, counted from the set-up minus what came out of it.

    ``None`` for a game dealt from an explicit stack: its tiles are the dealer's secret, not
    the tile sets' counts."""
    if game.options.stack is not None:
        return None
    counts = Counter(game.tile_counts())
    printed = {encode(p.x, p.y) for p in game.geometry.printed}
    # Every drawn tile is on the board (the start tiles too), discarded, or in hand.
    gone = [placed.tile.id for pos, placed in game.board.items() if pos not in printed]
    gone.extend(tile.id for tile in game.discarded)
    in_hand = _in_hand(game)
    if in_hand is not None:
        gone.append(in_hand.id)
    counts.subtract(gone)
    return {tile_id: n for tile_id, n in sorted(counts.items()) if n > 0}


def unfillable_squares(game: Game, remaining: dict[str, int]) -> list[tuple[int, int]]:
    """The open squares that neither the drawn tile nor any tile left in ``remaining`` fits in
    any rotation (by the edges of the tiles around them)."""
    kinds = [tile_by_id(tile_id) for tile_id in remaining]
    in_hand = _in_hand(game)
    if in_hand is not None:
        kinds.append(in_hand)
    holes = [
        decode(pos)
        for pos, (key, _actions) in game.frontier.items()
        if not any(rotations_fitting(tile, key) for tile in kinds)
    ]
    return sorted(holes)


def open_features(game: Game) -> list[OpenFeatureView]:
    """Every unfinished city, road and cloister on the board with the points it would score at
    the end of the game as it stands (the engine's own end-of-game value; fields, scored only
    at the end by their cities, are left out).  One entry per feature, so the list is bounded
    by the segments on the board."""
    features = []
    for feature in game.features():
        if feature.kind == FIELD or feature.complete:
            continue
        if feature.kind in (CITY, ROAD) and feature.open == 0:
            continue  # finished this turn: scored with the turn, not open any more
        squares = sorted(decode(pos) for pos in feature.squares)
        features.append(
            OpenFeatureView(
                kind=KIND_NAMES[feature.kind],
                points=game.feature_value(feature, final=True),
                squares=[{"x": x, "y": y} for x, y in squares],
            )
        )
    features.sort(key=lambda f: (f["squares"][0]["y"], f["squares"][0]["x"], f["kind"]))
    return features


def aids_view(game: Game) -> AidsView:
    """The aids of ``game`` as the page draws them."""
    remaining = remaining_kinds(game)
    holes = unfillable_squares(game, remaining) if remaining is not None else []
    return {
        "remaining": remaining,
        "unfillable": [{"x": x, "y": y} for x, y in holes],
        "features": open_features(game),
    }
