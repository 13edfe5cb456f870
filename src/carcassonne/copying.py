"""What a copy of a game shares with it and what it gets its own of (``Game.copy``).

A search copies a game for every playout, so a copy shares whatever never changes once made:
the options, the tile data and the placed tiles, the actions listed, and the features that are
complete; everything that play changes (the open features, the dicts and lists, the expansions'
state, the queued decisions) is the copy's own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import Game


def copy_state(game: Game, other: Game) -> None:
    """Fill ``other``, an empty game, with a copy of ``game``'s state, independent of it (the
    caller binds the copy's hooks to its expansions)."""
    other.options = game.options
    other.players = game.players
    other.figure_kinds = game.figure_kinds
    other.figure_strength = game.figure_strength
    other.joining_figures = game.joining_figures
    other.small_city_scores_2 = game.small_city_scores_2
    other._extra_turn = game._extra_turn
    other.turn = game.turn
    other.active = game.active
    other.to_move = game.to_move
    other.phase = game.phase
    other.current_tile = game.current_tile
    other.last_placed = game.last_placed
    other.map = game.map
    other.geometry = game.geometry
    other.used_start_squares = game.used_start_squares
    other.start_tile = game.start_tile
    other._rng = game._rng
    other._rng_seed = game._rng_seed
    other._placements = game._placements
    other._stage = game._stage
    # Each feature is cloned at its first segment and all its segments pointed to the clone
    # at once, so later segments of it are recognised by being already replaced.  A complete
    # feature is shared: nothing changes it once complete (it has no open edge to grow by,
    # its figures went home when it was scored, and a figure only goes on a feature of the
    # tile just placed, before its feature is marked complete).
    originals = game.seg_feature
    new_features = originals.copy()
    for g, feature in enumerate(originals):
        if new_features[g] is feature and not feature.complete:
            clone = feature.clone()
            for segment in feature.segments:
                new_features[segment] = clone
    other.seg_feature = new_features
    other.seg_pos = game.seg_pos.copy()
    other.board = game.board.copy()
    other.frontier = game.frontier.copy()
    other.figures = game.figures.copy()
    other.scores = game.scores.copy()
    other.supply = [s.copy() for s in game.supply]
    other.events = game.events.copy()
    other.stack = game.stack.copy()
    other.history = game.history.copy()
    other.draws = game.draws.copy()
    other.discarded = game.discarded.copy()
    other._inactive = game._inactive.copy()
    other._open_cloisters = game._open_cloisters.copy()
    other._legal = None
    exts = game.expansions
    copies = other.expansions = [e.copy() for e in exts]
    queue = game._queue
    if queue:
        # Queued decisions must be resolved by the copy's expansions, not the original's.
        owners = {id(e): c for e, c in zip(exts, copies, strict=True)}
        queue = [replace(d, owner=owners[id(d.owner)]) if d.owner is not None else d for d in queue]
    else:
        queue = []
    other._queue = queue
    other._scoring_marks = game._scoring_marks  # asked of the expansions once, at set-up
    other._squares = game._squares
