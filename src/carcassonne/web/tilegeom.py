"""Tile geometry as JSON for the browser, straight from the engine's tile data.

The browser draws every tile from this (no image assets), so what a player sees is exactly what
the engine plays: each tile type with its four orientations in board orientation (edges,
segments with their locations, rivers), as ``carcassonne.tiles`` computes them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from ..expansions.registry import tile_sets
from ..tiles import (
    BORDER,
    EDGE_LETTERS,
    EDGE_NAMES,
    HALF_NAMES,
    KIND_NAMES,
    Orientation,
    TileType,
    tile_set,
)

TILE_SETS = tile_sets()


def orientation_json(o: Orientation) -> dict[str, Any]:
    return {
        "rotation": o.rotation,
        "edges": "".join("B" if e == BORDER else EDGE_LETTERS[e] for e in o.edges),
        "segments": [
            {
                "kind": KIND_NAMES[s.kind],
                "location": s.location,
                "edges": [EDGE_NAMES[e] for e in s.edges],
                "halves": [HALF_NAMES[h] for h in s.halves],
                "coat_of_arms": s.coat_of_arms,
                "cities": list(s.cities),
                "marks": list(s.marks),
            }
            for s in o.segments
        ],
        "rivers": [[EDGE_NAMES[e] for e in r] for r in o.rivers],
    }


def tile_json(tile: TileType) -> dict[str, Any]:
    return {
        "id": tile.id,
        "set": tile.set_name,
        "name": tile.name,
        "count": tile.count,
        "centre": list(tile.centre),
        "decor": list(tile.decor),
        "provisional": tile.provisional,
        "rotations": [orientation_json(o) for o in tile.orientations],
    }


@lru_cache(maxsize=1)
def tile_geometry_bytes() -> bytes:
    """Every bundled tile type, encoded once (the data never changes while serving)."""
    tiles: dict[str, Any] = {}
    for name in TILE_SETS:
        for tile in tile_set(name).tiles:
            tiles[tile.id] = tile_json(tile)
    return json.dumps({"tiles": tiles}, separators=(",", ":")).encode("utf-8")
