"""Map-Chips France (docs/rules.md §5): collect grape chips from the map, sell them as wine.

Setup spreads the chips face down over the map (:func:`spread_chips`).  A tile placed on a chip's
square collects it: the placing seat scores its 1 or 2 points at once and keeps it face up
(``after_tile_placed``).  In step 3, after the usual scoring, the active seat may sell one wine
(``end_of_turn`` queues phase ``wine`` only when a sale is possible): chips of one grape colour
worth exactly 2 (1+1 or a single 2, never 1+2), for 5 points when the tile just placed connects a
road or a coat-of-arms city to the map border (export), or for 9 when it covers a town of that
colour.  Sold chips leave the game; unsold chips score nothing.

Decisions the rules leave open (numbered as in docs/rules.md §7):

- D10: per colour 6 chips worth 1 and 4 worth 2 (a map file may set other counts, for tests).
- D11 (:func:`spread_chips`): the chip squares are drawn **exactly uniformly** among all sets of
  squares that obey every placement rule of §5 *and* "spread evenly", which we define as: cut the
  map into blocks of ``chip_block`` × ``chip_block`` squares (4 on France); a block with ``e``
  eligible squares out of ``E`` on the map holds ``⌊n·e/E⌋`` or ``⌈n·e/E⌉`` of the ``n`` chips.
  Which chip lies where is a uniform shuffle, all from the game's seed.
- D12 (:func:`export_allowed`): the tile just placed must have a road, or a city segment whose
  city (as it stands after the placement) has a coat of arms, on a side that faces the **edge of
  the map** (off the grid or an unplayable square).  A large city's closed side closes features
  (D9) but is not the map edge ("bord de la carte", a connection to another country), so it does
  not allow export; nor does extending a road whose other end already reaches the border.
- D25: only a tile placed in a turn covers a town (``sales`` looks at ``game.last_placed``), so
  the two used start squares are never sold to; an unused start square is an ordinary town.
- Selling is offered only when some sale is possible, so a seat is never asked just to pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, NamedTuple

from ..actions import PASS
from ..board import DELTAS, STRIDE, decode
from ..chance import randbelow, shuffle
from ..events import ScoreEvent
from ..maps import GRAPES, shared_per_map
from ..options import GameSetupError
from ..tiles import CITY, ROAD
from .actions import SellWine
from .base import Decision, Expansion

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

    from ..game import Game, PlacedTile
    from ..maps import GameMap

WINE: Final = "wine"
EXPORT: Final = "export"
TOWN: Final = "town"
#: docs/rules.md §5: what one wine pays at each outlet
OUTLET_POINTS: Final = {EXPORT: 5, TOWN: 9}
#: the chips one wine is made of: a pair of 1s or a single 2 (never 1+2)
WINES: Final[tuple[tuple[int, ...], ...]] = ((1, 1), (2,))
#: how often setup redraws before declaring that a map cannot hold its chips
_MAX_DRAWS: Final = 20_000


class Chip(NamedTuple):
    colour: str
    value: int


def chip_set(game_map: GameMap) -> list[Chip]:
    """Every chip of the game (D10), in a fixed order before shuffling (a new list each time:
    the game shuffles it)."""
    chips: tuple[Chip, ...] = shared_per_map(
        _CHIP_SETS, id(game_map), game_map, lambda: _make_chip_set(game_map)
    )
    return list(chips)


def _make_chip_set(game_map: GameMap) -> tuple[Chip, ...]:
    return tuple(
        Chip(colour, value)
        for colour in GRAPES
        for value, count in sorted(game_map.chips_per_grape.items())
        for _ in range(count)
    )


# ------------------------------------------------------------------------------------ setup


def eligible_squares(game_map: GameMap, used_starts: frozenset[int]) -> list[int]:
    """Squares a chip may lie on (docs/rules.md §5): playable, not a town or large city, not next
    to a used start square, not faced by an open edge of a large city."""
    assert game_map.geometry.squares is not None
    banned = set(game_map.towns)
    for start in used_starts:
        banned.update(start + d for d in DELTAS)
    for pos, city in game_map.large_cities.items():
        banned.update(pos + DELTAS[side] for side in city.open_edges)
    return sorted(game_map.geometry.squares - banned)


def _independent_sets(squares: list[int], sizes: set[int]) -> dict[int, list[tuple[int, ...]]]:
    """All sets of pairwise non-adjacent ``squares`` whose size is in ``sizes``, by size, each in
    the order of ``squares`` and listed in depth-first order (a set before its extensions)."""
    found: dict[int, list[tuple[int, ...]]] = {size: [] for size in sizes}
    # squares are sorted, so only an earlier square to the west or north can touch one: per
    # square, the bits of those earlier ones (a set of chosen squares is then a bit mask)
    touching = [0] * len(squares)
    for i in range(len(squares)):
        pos = squares[i]
        for j in range(i):
            if squares[j] == pos - 1 or squares[j] == pos - STRIDE:
                touching[i] |= 1 << j
    _extend_sets(squares, touching, found, max(sizes, default=0), 0, 0, [])
    return found


def _extend_sets(
    squares: list[int],
    touching: list[int],
    found: dict[int, list[tuple[int, ...]]],
    top: int,
    start: int,
    mask: int,
    chosen: list[int],
) -> None:
    """Record ``chosen`` (the squares of ``mask``), then every independent set that extends it
    with squares from index ``start`` on, up to ``top`` squares."""
    size = len(chosen)
    if size in found:
        found[size].append(tuple(chosen))
    if size == top:
        return
    for i in range(start, len(squares)):
        if mask & touching[i]:
            continue
        chosen.append(squares[i])
        _extend_sets(squares, touching, found, top, i + 1, mask | 1 << i, chosen)
        chosen.pop()


class ChipLayout:
    """Everything about spreading ``count`` chips on one map with one pair of start squares
    that does not depend on the seed, computed once and shared by all such games.

    The map's eligible squares are cut into blocks.  ``sets[b][c]`` lists every independent set
    of ``c`` squares inside block ``b`` for the block's allowed counts ``c``; ``ways[b][t]`` is
    the number of ways blocks ``b…`` can hold ``t`` chips in total (sum over count vectors of the
    product of ``len(sets[b][c])``).  Drawing a count vector in proportion to that product and
    then a uniform set per block gives every evenly spread, block-wise independent placement the
    same probability; rejecting those where chips touch across a block edge leaves exactly the
    uniform distribution over valid placements.

    A game's setup draws several proposals (most are rejected), so what one block's draw needs
    for each number of chips still to place is worked out here, once: ``_choices[b][t]`` lists,
    in increasing count, each count ``c`` block ``b`` may take with ``t`` left, its weight and
    the weight of each of its sets.
    """

    def __init__(self, game_map: GameMap, used_starts: frozenset[int], count: int) -> None:
        squares = eligible_squares(game_map, used_starts)
        size = game_map.chip_block
        blocks: dict[tuple[int, int], list[int]] = {}
        for pos in squares:
            x, y = decode(pos)
            blocks.setdefault((x // size, y // size), []).append(pos)
        total = len(squares)
        self.sets: list[dict[int, list[tuple[int, ...]]]] = []
        for key in sorted(blocks):
            members = blocks[key]
            share_floor, rest = divmod(count * len(members), total) if total else (0, 0)
            allowed = {share_floor, share_floor + 1} if rest else {share_floor}
            sets = _independent_sets(members, allowed)
            self.sets.append({c: s for c, s in sets.items() if s})
        self.count = count
        # per block, (count, its sets) in increasing count
        by_block = [sorted(by_count.items()) for by_count in self.sets]
        # ways[b][t]: weighted number of count vectors for blocks b… holding t chips
        ways = [[0] * (count + 1) for _ in range(len(self.sets) + 1)]
        ways[len(self.sets)][0] = 1
        for b in range(len(self.sets) - 1, -1, -1):
            here, after = ways[b], ways[b + 1]
            for t in range(count + 1):
                total = 0
                for c, listed in by_block[b]:
                    if c <= t:
                        total += len(listed) * after[t - c]
                here[t] = total
        self.ways = ways
        self._choices: list[list[list[tuple[int, int, int, list[tuple[int, ...]]]]]] = [
            [
                [
                    (c, len(sets) * ways[b + 1][t - c], ways[b + 1][t - c], sets)
                    for c, sets in by_block[b]
                    if c <= t and ways[b + 1][t - c]
                ]
                for t in range(count + 1)
            ]
            for b in range(len(by_block))
        ]

    @property
    def feasible(self) -> bool:
        return self.ways[0][self.count] > 0

    def draw(self, rng: random.Random) -> list[int] | None:
        """One proposal: an evenly spread, block-wise valid placement, or None if chips touch
        across a block edge (the caller draws again)."""
        chosen: list[int] = []
        left = self.count
        ways = self.ways
        choices = self._choices
        for b in range(len(choices)):
            pick = randbelow(ways[b][left], rng)  # (rng.randrange's draw, compiled)
            # (a count of no weight is left out of the table: it never took a pick)
            for c, weight, unit, sets in choices[b][left]:
                if pick < weight:
                    chosen.extend(sets[pick // unit])
                    left -= c
                    break
                pick -= weight
        taken = set(chosen)
        for pos in chosen:
            if pos + 1 in taken or pos + STRIDE in taken:
                return None
        return sorted(chosen)


# what setup shares per map (and per used start squares and number of chips): see shared_per_map
_CHIP_SETS: dict[int, tuple[GameMap, tuple[Chip, ...]]] = {}
_LAYOUTS: dict[tuple[int, frozenset[int], int], tuple[GameMap, ChipLayout]] = {}


def chip_layout(game_map: GameMap, used_starts: frozenset[int], count: int) -> ChipLayout:
    return shared_per_map(
        _LAYOUTS,
        (id(game_map), used_starts, count),
        game_map,
        lambda: ChipLayout(game_map, used_starts, count),
    )


def spread_chips(
    game_map: GameMap, used_starts: frozenset[int], count: int, rng: random.Random
) -> list[int]:
    """D11: the squares of ``count`` chips, uniform among rule-abiding even placements."""
    layout = chip_layout(game_map, used_starts, count)
    if layout.feasible:
        for _ in range(_MAX_DRAWS):
            squares = layout.draw(rng)
            if squares is not None:
                return squares
    raise GameSetupError(
        f"map {game_map.name} cannot hold {count} map chips evenly under the placement rules "
        "(docs/rules.md §5); use fewer chips (chips_per_grape) or smaller blocks (chip_block)"
    )


# ------------------------------------------------------------------------------- the rules


def export_allowed(game: Game, placed: PlacedTile) -> bool:
    """D12: the tile connects a road, or a city with a coat of arms, to the map border."""
    game_map: GameMap = game.map  # (typed: a compiled build then calls it natively)
    sides = game_map.border_sides(placed.pos)
    if not sides:
        return False
    orientation = placed.orientation
    for side in sides:
        index = orientation.edge_segment[side]
        if index < 0:
            continue
        kind = orientation.segments[index].kind
        if kind == ROAD:
            return True
        if kind == CITY and game.seg_feature[placed.base + index].coat_of_arms > 0:
            return True
    return False


def wines(chips: list[Chip], colour: str) -> list[tuple[int, ...]]:
    """The ways to make one wine of ``colour`` from ``chips``: exactly 2 points, never 1+2."""
    return [wine for wine, can in zip(WINES, _can_make(chips, colour), strict=True) if can]


def _can_make(chips: list[Chip], colour: str) -> tuple[bool, bool]:
    """Whether ``chips`` make each wine of :data:`WINES` in ``colour``: a pair of 1s, a 2."""
    ones = twos = 0
    for chip_colour, value in chips:  # (unpacked: a compiled build reads a field generically)
        if chip_colour == colour:
            if value == 1:
                ones += 1
            elif value == 2:
                twos += 1
    return ones >= 2, twos >= 1


#: outlet -> colour -> the sale of each wine of :data:`WINES`, built once: building a NamedTuple
#: runs its interpreted ``__new__`` in either build
_SALES: Final = {
    outlet: {colour: tuple(SellWine(outlet, colour, wine) for wine in WINES) for colour in GRAPES}
    for outlet in (EXPORT, TOWN)
}
#: the grape colours in the order sales list them
_SORTED_GRAPES: Final = tuple(sorted(GRAPES))


def _offer_sales(options: list[SellWine], outlet: str, colour: str, chips: list[Chip]) -> None:
    """Add to ``options`` the wines of ``colour`` that ``chips`` make, sold at ``outlet``."""
    pair, two = _can_make(chips, colour)
    if pair or two:
        sales = _SALES[outlet][colour]
        if pair:
            options.append(sales[0])
        if two:
            options.append(sales[1])


class MapChips(Expansion):
    name = "map-chips"

    def __init__(self) -> None:
        #: square -> chip lying face down there
        self.face_down: dict[int, Chip] = {}
        #: per seat, the face-up chips in front of it, in the order collected
        self.in_front: list[list[Chip]] = []
        #: chips sold (they have left the game)
        self.sold: list[Chip] = []

    def copy(self) -> MapChips:
        other = MapChips()
        other.face_down = self.face_down.copy()
        other.in_front = [chips.copy() for chips in self.in_front]
        other.sold = self.sold.copy()
        return other

    def restore(self, saved: Expansion) -> None:
        assert isinstance(saved, MapChips)
        self.face_down, self.in_front, self.sold = saved.face_down, saved.in_front, saved.sold

    def redeal_hidden(self, game: Game, seat: int, rng: random.Random) -> None:
        """Shuffle the face-down chips among their squares: where they lie is public, which
        chip lies where is not (the chips collected or sold are face up, so the set of chips
        still face down is public too)."""
        squares = sorted(self.face_down)
        chips = sorted(self.face_down.values())
        shuffle(chips, rng)
        self.face_down = dict(zip(squares, chips, strict=True))

    def setup(self, game: Game) -> None:
        game_map = game.map
        used = frozenset(game_map.start_squares[name] for name in game.used_start_squares)
        chips = chip_set(game_map)
        squares = spread_chips(game_map, used, len(chips), game.rng)
        shuffle(chips, game.rng)
        self.face_down = dict(zip(squares, chips, strict=True))
        self.in_front = [[] for _ in range(game.players)]
        self.sold = []

    def after_tile_placed(self, game: Game, placed: PlacedTile) -> None:
        face_down = self.face_down
        if placed.pos not in face_down:
            return  # (most tiles: a compiled build calls ``dict.pop`` with a default generically)
        chip = face_down.pop(placed.pos)
        seat = game.active
        self.in_front[seat].append(chip)
        x, y = decode(placed.pos)
        game.add_points(
            seat, chip.value, "map-chip", "collected",
            square=[x, y], colour=chip.colour, value=chip.value,
        )  # fmt: skip

    def sales(self, game: Game) -> list[SellWine]:
        """The wines the active seat may sell this turn (empty if none)."""
        placed = game.last_placed
        chips = self.in_front[game.active]
        if placed is None or not chips:
            return []
        options: list[SellWine] = []
        if export_allowed(game, placed):
            for colour in _SORTED_GRAPES:  # (every chip is of one of them)
                _offer_sales(options, EXPORT, colour, chips)
        game_map: GameMap = game.map  # (typed: a compiled build then calls it natively)
        town = game_map.town_at(placed.pos)
        if town is not None and town.grape is not None:
            _offer_sales(options, TOWN, town.grape, chips)
        return options

    def end_of_turn(self, game: Game) -> None:
        options = self.sales(game)
        if options:
            game.push_decision(Decision(owner=self, phase=WINE, seat=game.active, data=options))

    def decision_actions(self, game: Game, decision: Decision) -> list[Any]:
        return [PASS, *decision.data]

    def resolve(self, game: Game, decision: Decision, action: Any) -> None:
        if not isinstance(action, SellWine):
            game.log("wine-pass", decision.seat)
            return
        chips = self.in_front[decision.seat]
        for value in action.chips:
            chip = Chip(action.colour, value)
            chips.remove(chip)
            self.sold.append(chip)
        detail: dict[str, Any] = {"colour": action.colour, "chips": list(action.chips)}
        if action.outlet == TOWN:
            placed = game.last_placed
            assert placed is not None
            detail["town"] = game.map.town_at(placed.pos).name
            detail["square"] = list(decode(placed.pos))
        game.add_points(decision.seat, OUTLET_POINTS[action.outlet], WINE, action.outlet, **detail)

    def view(self, game: Game, seat: int | None) -> dict[str, Any]:
        """Public: where face-down chips lie (never their colour or value), the chips in front of
        every seat, how many were sold, and the towns."""
        game_map = game.map
        used = set(game.used_start_squares)
        return {
            "face_down": [{"x": x, "y": y} for x, y in sorted(map(decode, self.face_down))],
            "in_front": [
                [{"colour": c.colour, "value": c.value} for c in chips] for chips in self.in_front
            ],
            "sold": len(self.sold),
            "towns": [
                {
                    "x": x,
                    "y": y,
                    "name": town.name,
                    "grape": town.grape,
                    "covered": pos in game.board,
                }
                for pos, town in sorted(game_map.towns.items())
                for x, y in (decode(pos),)
            ],
            "start_squares": [
                {"name": name, "x": x, "y": y, "used": name in used}
                for name, pos in game_map.start_squares.items()
                for x, y in (decode(pos),)
            ],
        }


def wine_summary(games: Sequence[Game]) -> list[str]:
    """Average points per seat from collected chips and from wine, and how wine was sold."""
    if not games:
        return []
    seats = games[0].players
    collected = [0] * seats
    sold = [0] * seats
    outlets = {"export": 0, "town": 0}
    unsold = 0
    for game in games:
        for event in game.events:
            if not isinstance(event, ScoreEvent) or event.source not in ("map-chip", WINE):
                continue
            for seat, points in event.points.items():
                (collected if event.source == "map-chip" else sold)[seat] += points
            if event.source == WINE:
                outlets[event.reason] += 1
        chips = game.expansion(MapChips)
        assert chips is not None, "wine_summary is for games with Map-Chips"
        unsold += sum(len(held) for held in chips.in_front)
    n = len(games)
    per_seat = ", ".join(
        f"seat {s}: chips {collected[s] / n:.1f} + wine {sold[s] / n:.1f}" for s in range(seats)
    )
    return [
        f"map chips, mean points per game: {per_seat}",
        f"wine sold per game: {outlets['export'] / n:.2f} exported (5), "
        f"{outlets['town'] / n:.2f} to towns (9); chips left unsold per game: {unsold / n:.1f}",
    ]
