"""Per-seat observations as numpy arrays, kept up to date move by move.

An observation holds only what its seat may know: everything here is either in ``game.view(seat)``
or public data the view names (the tile types, the map).  In particular it never holds the stack
order, other seats' betting chips (only how many lie on each office and how many each seat still
has) or the values of face-down map chips (only where they lie).

The board planes are shared by all seats and updated incrementally: a placement writes one square
(and the open squares around it), a figure change rewrites the few squares with figures.  What
differs between seats (whose figure is whose, one's own bets, the seat order of the per-seat
numbers) is added when a seat's observation is taken.  ``docs/env.md`` lists every channel.

The *extended* observation (games with Inns & Cathedrals or Traders & Builders, or when asked
for) appends what those expansions add: board channels for the inns, cathedrals and goods
marks, numbers for the large meeples, builders, pigs and goods tokens of each seat, and their
tiles in the drawn-tile one-hot.  Every array of the plain observation is a prefix of the
extended one, so a channel or number means the same in both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..board import DELTAS, OFFSET, STRIDE, decode, encode
from ..expansions.abbot import ABBOT
from ..expansions.bets import CHIPS, Bets
from ..expansions.inns import CATHEDRAL, INN, LARGE_MEEPLE
from ..expansions.mapchips import MapChips
from ..expansions.registry import tile_sets
from ..expansions.traders import BUILDER, GOODS, PIG, TradersBuilders
from ..game import MEEPLE, Game, PlacedTile
from ..maps import GRAPES
from ..options import MAX_PLAYERS
from ..tiles import Orientation, tile_set
from .actions import Window

#: the board planes, in channel order (``observation["observation"]["board"][channel]``)
BOARD_CHANNELS: tuple[str, ...] = (
    "tile",  # 1 where a tile lies (a map's large cities included)
    "edge_n",  # edge codes: 0 no tile, 1 city, 2 road, 3 field, 4 river, 5 border
    "edge_e",
    "edge_s",
    "edge_w",
    "monastery",  # 1 if the tile has one
    "garden",
    "office",  # a betting office (The Bets)
    "coats_of_arms",  # number on the tile
    "figure_seat",  # 0 none, 1 the observing seat, 2 the next seat in turn order, ...
    "figure_kind",  # 0 none, 1 + the kind stood on: city, road, field, monastery, garden
    "figure_type",  # 0 none, 1 meeple, 2 abbot, 3 large meeple, 4 builder, 5 pig
    "open",  # an empty square where a tile may go (touches a tile)
    "last_placed",  # the tile placed this turn
    "playable",  # a square of the board (everywhere on the open table)
    "town",  # a town of the map
    "grape",  # 0, or 1 + the grape colour of the town (Map-Chips)
    "map_chip",  # a face-down map chip lies here (its value is hidden)
    "bet_chips",  # how many betting chips lie on this office
    "own_bet",  # 0, or 1 + the index of the observing seat's chip on this office
)
#: the board planes the extended observation appends, in channel order after BOARD_CHANNELS:
#: how many inns, cathedrals and goods marks of each kind the tile shows
EXTENDED_CHANNELS: tuple[str, ...] = (INN, CATHEDRAL, *(f"goods_{kind}" for kind in GOODS))
_C = {name: i for i, name in enumerate(BOARD_CHANNELS)}
TILE, EDGES, FIGURE_SEAT, FIGURE_KIND, FIGURE_TYPE = (
    _C["tile"],
    _C["edge_n"],
    _C["figure_seat"],
    _C["figure_kind"],
    _C["figure_type"],
)
OPEN, LAST, PLAYABLE, TOWN, GRAPE, MAP_CHIP = (
    _C["open"],
    _C["last_placed"],
    _C["playable"],
    _C["town"],
    _C["grape"],
    _C["map_chip"],
)
BET_CHIPS, OWN_BET = _C["bet_chips"], _C["own_bet"]
#: the first of the EXTENDED_CHANNELS, which follow BOARD_CHANNELS
_MARKS = len(BOARD_CHANNELS)

#: decision phases, in the order of the phase one-hot in the vector
PHASES: tuple[str, ...] = ("tile", "figure", "settle", "wine", "bet", "settle-final", "over")
#: numbers per seat in the vector, for each of the MAX_PLAYERS seat slots
SEAT_FIELDS: tuple[str, ...] = (
    "score",
    "meeples",
    "abbots",
    "bet_chips_in_supply",
    *(f"map_chips_{grape}_{value}" for grape in GRAPES for value in (1, 2)),
)
#: the vector: seat blocks (the observing seat first, then in turn order; empty seats are 0),
#: then these
GAME_FIELDS: tuple[str, ...] = (
    "tiles_left",
    *(f"phase_{phase}" for phase in PHASES),
    *(f"own_chip_{chip}" for chip in CHIPS),
    "players",
    "to_move",  # 1 when the observing seat decides now
    "map_chips_sold",
)
VECTOR_SIZE = MAX_PLAYERS * len(SEAT_FIELDS) + len(GAME_FIELDS)
_GAME_START = MAX_PLAYERS * len(SEAT_FIELDS)
_PHASE_START = _GAME_START + 1
_CHIP_START = _PHASE_START + len(PHASES)
_PLAYERS, _TO_MOVE, _SOLD = _CHIP_START + len(CHIPS), _CHIP_START + len(CHIPS) + 1, VECTOR_SIZE - 1
_CHIP_INDEX = {chip: i for i, chip in enumerate(CHIPS)}
_GRAPE_INDEX = {grape: i for i, grape in enumerate(GRAPES)}
#: the value of each figure type in the ``figure_type`` channel
FIGURE_TYPES: tuple[str, ...] = (MEEPLE, ABBOT, LARGE_MEEPLE, BUILDER, PIG)
_FIGURE_TYPE_VALUE = {figure: 1 + i for i, figure in enumerate(FIGURE_TYPES)}
#: numbers per seat the extended vector appends after GAME_FIELDS, for each of the seat slots
#: (figures in supply, goods tokens held)
EXTENDED_SEAT_FIELDS: tuple[str, ...] = (
    "large_meeples",
    "builders",
    "pigs",
    *(f"goods_{kind}" for kind in GOODS),
)
_EXTENDED_SUPPLY = (LARGE_MEEPLE, BUILDER, PIG)
#: then these
EXTENDED_GAME_FIELDS: tuple[str, ...] = ("builder_second_tile",)  # 1 in a builder's extra turn
EXTENDED_VECTOR_SIZE = (
    VECTOR_SIZE + MAX_PLAYERS * len(EXTENDED_SEAT_FIELDS) + len(EXTENDED_GAME_FIELDS)
)
_SECOND_TILE = EXTENDED_VECTOR_SIZE - 1


def tile_catalogue(extended: bool = False) -> tuple[str, ...]:
    """Every tile type that can be drawn, in the order of the drawn-tile one-hot (``extended``:
    with the tiles of Inns & Cathedrals and Traders & Builders after the others)."""
    names = tile_sets(extended)
    return tuple(tile.id for name in names for tile in tile_set(name).tiles)


_CATALOGUE = tile_catalogue()
_EXTENDED_CATALOGUE = tile_catalogue(extended=True)
_TILE_INDEX = {tile_id: i for i, tile_id in enumerate(_EXTENDED_CATALOGUE)}
_SQUARE_VALUES: dict[int, np.ndarray] = {}  # id(orientation) -> channels tile…coats_of_arms
_MARK_VALUES: dict[int, np.ndarray] = {}  # id(orientation) -> the EXTENDED_CHANNELS
_MARK_CHANNELS = {mark: i for i, mark in enumerate((INN, CATHEDRAL, *GOODS))}
# (map name or None, window) -> (the map, its planes playable, town, grape)
_MAP_PLANES: dict[tuple[str | None, Window], tuple[Any, np.ndarray]] = {}


def _square_values(orientation: Orientation) -> np.ndarray:
    values = _SQUARE_VALUES.get(id(orientation))
    if values is None:
        centre = orientation.tile.centre
        values = np.array(
            [
                1,
                *orientation.edges,
                "monastery" in centre,
                "garden" in centre,
                "betting-office" in centre,
                sum(segment.coat_of_arms for segment in orientation.segments),
            ],
            dtype=np.uint8,
        )
        _SQUARE_VALUES[id(orientation)] = values
    return values


def _mark_values(orientation: Orientation) -> np.ndarray:
    values = _MARK_VALUES.get(id(orientation))
    if values is None:
        values = np.zeros(len(EXTENDED_CHANNELS), np.uint8)
        for segment in orientation.segments:
            for mark in segment.marks:
                values[_MARK_CHANNELS[mark]] += 1
        _MARK_VALUES[id(orientation)] = values
    return values


class Observer:
    """The observations of every seat of one game (``extended``: the extended ones)."""

    def __init__(self, game: Game, window: Window, extended: bool = False) -> None:
        self.game = game
        self.window = window
        self.extended = extended
        channels = len(BOARD_CHANNELS) + (len(EXTENDED_CHANNELS) if extended else 0)
        self.planes = np.zeros((channels, window.height, window.width), np.uint8)
        self._vector_size = EXTENDED_VECTOR_SIZE if extended else VECTOR_SIZE
        self._tiles = len(_EXTENDED_CATALOGUE if extended else _CATALOGUE)
        self._bets = game.expansion(Bets)
        self._chips = game.expansion(MapChips)
        self._traders = game.expansion(TradersBuilders)
        #: global segment -> (seat, figure) of the figures as last written
        self._figures: dict[int, tuple[int, str]] = {}
        #: (row, column) of every figure on the board inside the window
        self._figure_cells: list[tuple[int, int]] = []
        #: the figure_seat entries of an observation: indices into the flattened board, and
        #: the seat of the figure there (the last written on a square with more than one)
        self._seat_squares = np.zeros(0, np.intp)
        self._seat_owners = np.zeros(0, np.intp)
        #: [observing seat][figure's seat]: the figure_seat value (1 the observer, 2 the next...)
        self._seat_values = np.array(
            [
                [1 + (owner - seat) % game.players for owner in range(game.players)]
                for seat in range(game.players)
            ],
            np.uint8,
        )
        self._last: tuple[int, int] | None = None
        self._printed = {encode(p.x, p.y) for p in game.geometry.printed}
        self.rebuild()

    # ------------------------------------------------------------------------------ updates

    def _cell(self, pos: int) -> tuple[int, int] | None:
        x, y = decode(pos)
        return self.window.cell(x, y)

    def rebuild(self) -> None:
        """Write every plane from the game as it stands (used at reset, and by the tests)."""
        game, planes = self.game, self.planes
        planes.fill(0)
        planes[PLAYABLE : GRAPE + 1] = self._map_planes()
        if self._chips is not None:
            # where face-down chips lie is public; which chip lies there is not read
            self._write(MAP_CHIP, self._chips.face_down)
        for placed in game.board.values():
            self._put_tile(placed)
        self._write(OPEN, game.frontier)
        self._last = None
        if game.last_placed is not None:
            self._mark_last(game.last_placed)
        self._figures = {}
        self._figure_cells = []  # cleared with the planes
        self._seat_squares = self._seat_owners = np.zeros(0, np.intp)
        self.sync_figures()

    def _map_planes(self) -> np.ndarray:
        """The planes that never change in a game: playable squares, towns and their grapes
        (made once per map and window: a map game would otherwise spend its reset on them)."""
        game = self.game
        key = (game.map.name if game.map is not None else None, self.window)
        cached = _MAP_PLANES.get(key)
        if cached is not None and cached[0] is game.map:
            return cached[1]
        saved = self.planes[PLAYABLE : GRAPE + 1].copy()
        if game.geometry.squares is None:
            self.planes[PLAYABLE] = 1
        else:
            self._write(PLAYABLE, game.geometry.squares)
        if game.map is not None:
            towns = game.map.towns
            self._write(TOWN, towns)
            grapes = {pos: town.grape for pos, town in towns.items() if town.grape is not None}
            self._write(GRAPE, grapes, [1 + _GRAPE_INDEX[grape] for grape in grapes.values()])
        planes = self.planes[PLAYABLE : GRAPE + 1].copy()
        self.planes[PLAYABLE : GRAPE + 1] = saved
        _MAP_PLANES[key] = (game.map, planes)
        return planes

    def _write(self, channel: int, squares: Iterable[int], values: Any = 1) -> None:
        """Set ``channel`` on every square of ``squares`` inside the window to ``values`` (one
        value, or one per square)."""
        positions = np.fromiter(squares, np.int64)
        window = self.window
        rows = positions // STRIDE - OFFSET - window.y0
        columns = positions % STRIDE - OFFSET - window.x0
        inside = (rows >= 0) & (rows < window.height) & (columns >= 0) & (columns < window.width)
        if not isinstance(values, int):
            values = np.asarray(values, np.uint8)[inside]
        self.planes[channel, rows[inside], columns[inside]] = values

    def _set(self, channel: int, pos: int, value: int) -> None:
        cell = self._cell(pos)
        if cell is not None:
            self.planes[channel, cell[0], cell[1]] = value

    def _put_tile(self, placed: PlacedTile) -> None:
        cell = self._cell(placed.pos)
        if cell is not None:
            self.planes[TILE:FIGURE_SEAT, cell[0], cell[1]] = _square_values(placed.orientation)
            if self.extended:
                self.planes[_MARKS:, cell[0], cell[1]] = _mark_values(placed.orientation)
            self.planes[OPEN, cell[0], cell[1]] = 0
            self.planes[MAP_CHIP, cell[0], cell[1]] = 0

    def _mark_last(self, placed: PlacedTile) -> None:
        if self._last is not None:
            self.planes[LAST, self._last[0], self._last[1]] = 0
        self._last = self._cell(placed.pos)
        if self._last is not None:
            self.planes[LAST, self._last[0], self._last[1]] = 1

    def tile_placed(self, placed: PlacedTile) -> None:
        """A tile was placed: its square, the open squares around it, the last-placed mark."""
        self._put_tile(placed)
        frontier = self.game.frontier
        if self._printed and any(placed.pos + d in self._printed for d in DELTAS):
            # reaching a large city opens the squares around it, not only around this tile
            self.planes[OPEN] = 0
            self._write(OPEN, frontier)
        else:
            for d in DELTAS:
                if placed.pos + d in frontier:
                    self._set(OPEN, placed.pos + d, 1)
        self._mark_last(placed)

    def sync_figures(self) -> None:
        """Rewrite the figure channels if figures were placed, returned or recalled."""
        game = self.game
        if game.figures == self._figures:
            return
        planes = self.planes
        for row, column in self._figure_cells:
            planes[FIGURE_KIND : FIGURE_TYPE + 1, row, column] = 0
        cells = []
        owners: dict[int, int] = {}  # the figure_seat entry of the figure's square -> seat
        seat_plane = FIGURE_SEAT * self.window.height * self.window.width
        for segment, (seat, figure) in game.figures.items():
            cell = self._cell(game.seg_pos[segment])
            if cell is None:
                continue
            planes[FIGURE_KIND, cell[0], cell[1]] = 1 + game.seg_feature[segment].kind
            planes[FIGURE_TYPE, cell[0], cell[1]] = _FIGURE_TYPE_VALUE[figure]
            cells.append(cell)
            owners[seat_plane + cell[0] * self.window.width + cell[1]] = seat
        self._figure_cells = cells
        self._seat_squares = np.fromiter(owners, np.intp, len(owners))
        self._seat_owners = np.fromiter(owners.values(), np.intp, len(owners))
        self._figures = dict(game.figures)

    # ----------------------------------------------------------------------------- reading

    def observe(self, seat: int, mask: np.ndarray) -> dict[str, Any]:
        """``seat``'s observation with ``mask`` as its action mask (not copied)."""
        game = self.game
        players = game.players
        board = self.planes.copy()
        # whose figure is whose, from this seat: one write for every figure's square
        board.ravel()[self._seat_squares] = self._seat_values[seat][self._seat_owners]
        vector = np.zeros(self._vector_size, np.float32)
        fields = len(SEAT_FIELDS)
        scores, supply = game.scores, game.supply
        for k in range(players):
            owner = (seat + k) % players
            start = k * fields
            vector[start] = scores[owner]
            vector[start + 1] = supply[owner].get(MEEPLE, 0)
            vector[start + 2] = supply[owner].get("abbot", 0)
            if self._chips is not None:
                for chip in self._chips.in_front[owner]:
                    vector[start + 4 + 2 * _GRAPE_INDEX[chip.colour] + chip.value - 1] += 1
        if self._bets is not None:
            self._observe_bets(self._bets, seat, board, vector)
        if self._chips is not None:
            vector[_SOLD] = len(self._chips.sold)
        if self.extended:
            self._observe_extended(seat, vector)
        vector[_GAME_START] = len(game.stack)
        vector[_PHASE_START + PHASES.index(game.phase)] = 1
        vector[_PLAYERS] = players
        vector[_TO_MOVE] = game.to_move == seat and not game.is_over
        tile = np.zeros(self._tiles, np.uint8)
        if game.current_tile is not None:
            tile[_TILE_INDEX[game.current_tile.id]] = 1
        return {
            "observation": {"board": board, "tile": tile, "vector": vector},
            "action_mask": mask,
        }

    def _observe_bets(self, bets: Bets, seat: int, board: np.ndarray, vector: np.ndarray) -> None:
        """The Bets' part, from the seat's view: its own chips by value, others' only counted."""
        view = bets.view(self.game, seat)
        players = self.game.players
        for k in range(players):
            vector[k * len(SEAT_FIELDS) + 3] = view["supply_counts"][(seat + k) % players]
        for chip in view["supply"]:
            vector[_CHIP_START + _CHIP_INDEX[chip]] = 1
        for office in view["offices"]:
            cell = self.window.cell(office["x"], office["y"])
            if cell is None:
                continue
            board[BET_CHIPS, cell[0], cell[1]] = len(office["chips"])
            for chip in office["chips"]:
                if chip["seat"] == seat:
                    board[OWN_BET, cell[0], cell[1]] = 1 + _CHIP_INDEX[chip["chip"]]

    def _observe_extended(self, seat: int, vector: np.ndarray) -> None:
        """Large meeples, builders and pigs in each seat's supply, and its goods (all public)."""
        game = self.game
        players = game.players
        fields = len(EXTENDED_SEAT_FIELDS)
        view = self._traders.view(game, seat) if self._traders is not None else None
        for k in range(players):
            owner = (seat + k) % players
            start = VECTOR_SIZE + k * fields
            supply = game.supply[owner]
            for i, figure in enumerate(_EXTENDED_SUPPLY):
                vector[start + i] = supply.get(figure, 0)
            if view is not None:
                held = view["goods"][owner]
                for i, kind in enumerate(GOODS):
                    vector[start + len(_EXTENDED_SUPPLY) + i] = held[kind]
        if view is not None:
            vector[_SECOND_TILE] = view["second_tile"]
