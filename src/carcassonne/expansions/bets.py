"""The Bets (docs/rules.md §3): betting chips on the offices of the 10 bookmaker tiles.

Each seat owns six chips (:data:`CHIPS`) kept in a private supply.  After a turn that placed a
bookmaker tile, every seat may put one chip face down on that tile's office (step 4, phase
``bet``).  When a road or city with a segment on an office holding chips is completed, the chips
are flipped after the usual scoring and pay by the size of that feature (:func:`chip_payoff`);
then they go back to their owners.  Chips still lying on offices at the end are settled at the
start of final scoring against an incomplete road or city of their tile.

Everything here runs through the :class:`~carcassonne.expansions.base.Expansion` hooks:

- ``after_scoring`` (step 3) settles offices touched by features completed this turn; when the
  same office touches several of them, the active player chooses (phase ``settle``).
- ``end_of_turn`` (step 4) asks every seat, starting with the active one, for a chip or a pass.
- ``before_final_scoring`` settles the remaining chips; where a tile has several incomplete roads
  and cities, each seat chooses for its own chip (phase ``settle-final``), and all chips are
  flipped together once everybody has chosen.

Decisions the rules leave open (numbered as in docs/rules.md §7):

- D2: a seat sees the value of its own chips on offices; nobody sees another seat's.
- D3: bets are placed in seat order starting with the active player; each seat learns only that
  earlier seats did or did not bet (events ``bet`` and ``bet-pass`` carry no chip value).
- D4: completing a feature settles its chips even if nobody had a meeple in it.
- D5: a chip whose tile has no incomplete road or city at final scoring returns unscored.
- D22: "the last tile" means the stack is empty (``Game.is_last_tile``); whether the tiles left
  would fit is hidden from the players, so it does not matter.
- D23: at final scoring a chip is settled only against an incomplete road or city of its tile.
- D24: step 4 follows a turn, so a bookmaker tile used as a map's second start tile gets none.
- D17 (:func:`Bets.end_of_turn`): a seat with an empty supply is not asked at all, rather than
  being offered a pass that is its only move; what it could do is already public
  (``supply_counts``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ..actions import PASS, Pass
from ..board import decode, encode
from ..chance import shuffle
from ..events import GameEvent, ScoreEvent
from ..tiles import CITY, KIND_NAMES, ROAD
from .actions import PlaceBet, SettleAgainst
from .base import Decision, Expansion

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

    from ..features import Feature
    from ..game import Game

#: the six chips every seat owns, in the order supplies and legal actions list them
CHIPS: tuple[str, ...] = ("2/6", "3/5", "3/6", "4", "4/7+", "5/8+")

# chip -> its numbers as (tile count, points, whether larger counts win too)
_CHIP_TABLE: dict[str, tuple[tuple[int, int, bool], ...]] = {
    "2/6": ((2, 2, False), (6, 6, False)),
    "3/5": ((3, 3, False), (5, 5, False)),
    "3/6": ((3, 3, False), (6, 6, False)),
    "4": ((4, 8, False),),  # the single 4 pays double
    "4/7+": ((4, 4, False), (7, 7, True)),
    "5/8+": ((5, 5, False), (8, 8, True)),
}

BET: Final = "bet"
SETTLE: Final = "settle"
SETTLE_FINAL: Final = "settle-final"


def settle_choices(game: Game) -> list[SettleAgainst]:
    """The legal actions of a ``settle`` or ``settle-final`` decision, typed as what they are."""
    return [action for action in game.legal_actions() if isinstance(action, SettleAgainst)]


def chip_payoff(chip: str, tiles: int) -> int:
    """Points ``chip`` pays when settled against a road or city of ``tiles`` distinct tiles."""
    try:
        numbers = _CHIP_TABLE[chip]
    except KeyError:
        raise ValueError(f"unknown betting chip {chip!r} (chips: {', '.join(CHIPS)})") from None
    for count, points, or_more in numbers:
        if tiles == count or (or_more and tiles > count):
            return points
    return 0


_PLACE_BET: Final = {chip: PlaceBet(chip) for chip in CHIPS}
_CHIP_ORDER: Final = {chip: i for i, chip in enumerate(CHIPS)}

# A chip on an office: (owner seat, chip name).
Chip = tuple[int, str]


class Bets(Expansion):
    """State: each seat's private supply and the chips stacked on each office (by square)."""

    name = "bets"
    tile_sets = ("bets",)

    def __init__(self) -> None:
        self.supply: list[list[str]] = []
        #: office square -> chips on it in the order they were placed
        self.offices: dict[int, list[Chip]] = {}
        # step 3: offices still to settle this turn, each with its candidate features (one
        # segment id per distinct completed road/city of the tile)
        self._pending: list[tuple[int, tuple[int, ...]]] = []
        # final scoring: (office square, index of the chip there) -> segment id of the feature it
        # is settled against (-1 while its owner has not chosen), and how many await a choice
        self._final: dict[tuple[int, int], int] = {}
        self._final_open = 0

    def setup(self, game: Game) -> None:
        self.supply = [list(CHIPS) for _ in range(game.players)]

    def copy(self) -> Bets:
        other = Bets()
        other.supply = [s.copy() for s in self.supply]
        other.offices = {pos: chips.copy() for pos, chips in self.offices.items()}
        other._pending = self._pending.copy()
        other._final = self._final.copy()
        other._final_open = self._final_open
        return other

    def redeal_hidden(self, game: Game, seat: int, rng: random.Random) -> None:
        """For every other seat, deal the chips ``seat`` has not seen (its supply and its
        face-down chips on offices) again among those places.

        Which offices hold a chip of which seat is public, so every chip stays where it is and
        only values move.  That seat's bets in ``game.history`` are rewritten to match, so the
        record agrees with the state.
        """
        order = _CHIP_ORDER.__getitem__
        for owner in range(game.players):
            if owner == seat:
                continue
            spots = [
                (pos, i)
                for pos, chips in self.offices.items()
                for i, (chip_owner, _) in enumerate(chips)
                if chip_owner == owner
            ]
            hidden = sorted(
                self.supply[owner] + [self.offices[p][i][1] for p, i in spots], key=order
            )
            shuffle(hidden, rng)
            for (pos, i), chip in zip(spots, hidden, strict=False):
                self.offices[pos][i] = (owner, chip)
            self.supply[owner] = sorted(hidden[len(spots) :], key=order)
        self._rewrite_bets(game, seat)

    def _rewrite_bets(self, game: Game, seat: int) -> None:
        """Make other seats' bets in the history name the chips now lying on their offices.

        A seat bets at most once on an office (only right after its tile is placed), and the
        k-th ``bet`` event of a seat logs the square of its k-th bet action; a chip still on
        that office is the one the action placed.
        """
        squares: dict[int, list[int]] = {}
        for event in game.events:
            if isinstance(event, GameEvent) and event.type == "bet" and event.seat != seat:
                assert event.seat is not None
                squares.setdefault(event.seat, []).append(encode(*event.detail["square"]))
        placed = {
            (owner, pos): chip for pos, chips in self.offices.items() for owner, chip in chips
        }
        history = game.history
        counts: dict[int, int] = {}
        for index, (owner, action) in enumerate(history):
            if owner == seat or not isinstance(action, PlaceBet):
                continue
            k = counts[owner] = counts.get(owner, -1) + 1
            chip = placed.get((owner, squares[owner][k]))
            if chip is not None:
                history[index] = (owner, _PLACE_BET[chip])

    # ------------------------------------------------------------------------ features of a tile

    @staticmethod
    def _tile_features(game: Game, pos: int) -> list[tuple[int, Feature]]:
        """(segment id, feature) for each distinct road and city touching the tile at ``pos``.

        A road may leave an office tile and come back to it: it is one feature, named by its
        first segment on the tile.
        """
        placed = game.board[pos]
        seg_feature = game.seg_feature
        seen: list[tuple[int, Feature]] = []
        for i in placed.orientation.closable:
            gid = placed.base + i
            feature = seg_feature[gid]
            if all(f is not feature for _, f in seen):
                seen.append((gid, feature))
        return seen

    @staticmethod
    def _settle_target(game: Game, gid: int) -> tuple[int, int, str, str]:
        """The fields of the :class:`SettleAgainst` naming segment ``gid``'s feature, as a plain
        tuple (equal to that action; cheaper to build where no action is needed)."""
        pos = game.seg_pos[gid]
        placed = game.board[pos]
        segment = placed.orientation.segments[gid - placed.base]
        x, y = decode(pos)
        return x, y, KIND_NAMES[segment.kind], segment.location

    @staticmethod
    def _settle_action(game: Game, gid: int) -> SettleAgainst:
        # (tuple.__new__ builds the NamedTuple in C, as its _make does: calling the class runs
        # its interpreted __new__, in either build)
        return tuple.__new__(SettleAgainst, Bets._settle_target(game, gid))

    # ------------------------------------------------------------------- step 3: settle bets

    def after_scoring(self, game: Game, completed: list[Feature]) -> None:
        if not self.offices or not completed:
            return
        done = [f for f in completed if f.kind == CITY or f.kind == ROAD]
        if not done:
            return
        for pos in self.offices:
            if not any(pos in d.squares for d in done):
                continue  # (the common case: no feature done this turn has a segment there)
            candidates = tuple(
                gid for gid, f in self._tile_features(game, pos) if any(f is d for d in done)
            )
            if candidates:
                self._pending.append((pos, candidates))
        self._settle_pending(game)

    def _settle_pending(self, game: Game) -> None:
        """Settle this turn's offices one after another, stopping at the first that needs the
        active player to choose between features (it goes on from :meth:`resolve`)."""
        pending = self._pending
        while pending:
            pos, candidates = pending[0]
            if len(candidates) > 1:
                game.push_decision(Decision(self, SETTLE, game.active, (pos, candidates)))
                return
            pending.pop(0)
            self._settle_office(game, pos, candidates[0], "completed")

    def _settle_office(self, game: Game, pos: int, gid: int, reason: str) -> None:
        for seat, chip in self.offices.pop(pos):
            self._pay(game, seat, chip, pos, gid, reason)

    def _return_chip(self, seat: int, chip: str) -> None:
        """Put ``chip`` back into its owner's supply, which is kept in :data:`CHIPS` order: after
        the chips that come before it or equal it, as sorting would (no sort, no key calls)."""
        supply = self.supply[seat]
        order = _CHIP_ORDER[chip]
        index = 0
        while index < len(supply) and _CHIP_ORDER[supply[index]] <= order:
            index += 1
        supply.insert(index, chip)

    def _pay(self, game: Game, seat: int, chip: str, pos: int, gid: int, reason: str) -> None:
        """Flip one chip against the feature of segment ``gid``, pay it, return it to its owner."""
        feature = game.seg_feature[gid]
        tiles = len(feature.squares)
        points = chip_payoff(chip, tiles)
        self._return_chip(seat, chip)
        _, _, kind, location = self._settle_target(game, gid)
        game.add_points(
            seat,
            points,
            "bet",
            reason,
            owner=seat,
            chip=chip,
            square=list(decode(pos)),
            feature=kind,
            location=location,
            tiles=tiles,
            paid=points,
        )

    # ---------------------------------------------------------------------- step 4: place bets

    def end_of_turn(self, game: Game) -> None:
        placed = game.last_placed
        if placed is None or not placed.tile.has_office or game.is_last_tile:
            return
        seg_feature = game.seg_feature
        if all(seg_feature[placed.base + i].complete for i in placed.orientation.closable):
            return
        players = game.players
        for k in range(players):
            seat = (game.active + k) % players
            if self.supply[seat]:
                game.push_decision(Decision(self, BET, seat, placed.pos))

    # ------------------------------------------------------------------------- final scoring

    def before_final_scoring(self, game: Game) -> None:
        final: dict[tuple[int, int], int] = {}
        for pos, chips in self.offices.items():
            candidates = tuple(gid for gid, f in self._tile_features(game, pos) if not f.complete)
            if not candidates:  # D5: these chips get no entry and return unscored
                continue
            for index, (seat, _) in enumerate(chips):
                if len(candidates) == 1:
                    final[(pos, index)] = candidates[0]
                else:
                    final[(pos, index)] = -1
                    game.push_decision(Decision(self, SETTLE_FINAL, seat, (pos, index, candidates)))
                    self._final_open += 1
        self._final = final
        if not self._final_open:
            self._settle_final(game)

    def _settle_final(self, game: Game) -> None:
        final = self._final
        for pos, chips in list(self.offices.items()):
            del self.offices[pos]
            for index, (seat, chip) in enumerate(chips):
                gid = final.get((pos, index))
                if gid is None:
                    self._return_chip(seat, chip)
                    game.log("bet-returned", seat, square=list(decode(pos)))
                else:
                    self._pay(game, seat, chip, pos, gid, "final")
        self._final = {}

    # ------------------------------------------------------------------------------ decisions

    def decision_actions(self, game: Game, decision: Decision) -> list[Any]:
        if decision.phase == BET:
            actions: list[Any] = [PASS]
            for chip in self.supply[decision.seat]:
                actions.append(_PLACE_BET[chip])
            return actions
        candidates = decision.data[-1]
        return [self._settle_action(game, gid) for gid in candidates]

    def resolve(self, game: Game, decision: Decision, action: Any) -> None:
        phase = decision.phase
        if phase == BET:
            square = list(decode(decision.data))
            if isinstance(action, Pass):
                game.log("bet-pass", decision.seat, square=square)
                return
            (chip,) = action  # (unpacked: a compiled build reads a field generically)
            self.supply[decision.seat].remove(chip)
            self.offices.setdefault(decision.data, []).append((decision.seat, chip))
            game.log("bet", decision.seat, square=square)
            return
        gid = self._chosen(game, decision, action)
        if phase == SETTLE:
            pos, _ = self._pending.pop(0)
            self._settle_office(game, pos, gid, "completed")
            self._settle_pending(game)
            return
        pos, index, _ = decision.data
        self._final[(pos, index)] = gid
        self._final_open -= 1
        if not self._final_open:
            self._settle_final(game)

    def _chosen(self, game: Game, decision: Decision, action: SettleAgainst) -> int:
        """The candidate segment the (already legal) settle action names."""
        candidates = decision.data[-1]
        for gid in candidates:
            if self._settle_target(game, gid) == action:
                return gid
        raise AssertionError("resolve got an action that decision_actions did not offer")

    # ---------------------------------------------------------------------------------- view

    def view(self, game: Game, seat: int | None) -> dict[str, Any]:
        """Own supply and own chips' values (D2); of the others only where their chips lie."""
        offices = []
        for pos, chips in self.offices.items():
            x, y = decode(pos)
            offices.append(
                {
                    "x": x,
                    "y": y,
                    "chips": [
                        {"seat": owner, "chip": chip if owner == seat else None}
                        for owner, chip in chips
                    ],
                }
            )
        view: dict[str, Any] = {
            "supply": list(self.supply[seat]) if seat is not None else None,
            "supply_counts": [len(s) for s in self.supply],
            "offices": offices,
        }
        if game.phase in (SETTLE, SETTLE_FINAL):
            view["settle"] = self._candidates_view(game)
        return view

    @staticmethod
    def _candidates_view(game: Game) -> list[dict[str, Any]]:
        """The features being chosen between and their squares, so that a player sees them on
        the board (public: every feature is on the table, whoever is choosing)."""
        candidates = []
        for action in settle_choices(game):
            feature = game.feature_at(action.x, action.y, action.location)
            squares = sorted(list(decode(p)) for p in feature.squares)
            candidates.append({**action._asdict(), "tiles": len(squares), "squares": squares})
        return candidates


# ----------------------------------------------------------------------------- statistics


def bet_summary(games: Sequence[Game]) -> list[str]:
    """Report lines for ``carcassonne simulate --bets``: bet points per seat and game, and how
    each chip type fared, from the settlement events."""
    if not games:
        return []
    players = games[0].players
    per_seat = [0] * players
    settled = dict.fromkeys(CHIPS, 0)
    won = dict.fromkeys(CHIPS, 0)
    points = dict.fromkeys(CHIPS, 0)
    for game in games:
        for event in game.events:
            if isinstance(event, ScoreEvent) and event.source == "bet":
                chip, paid = event.detail["chip"], event.detail["paid"]
                per_seat[event.detail["owner"]] += paid
                settled[chip] += 1
                won[chip] += paid > 0
                points[chip] += paid
    n = len(games)
    seats = ", ".join(f"seat {s}: {p / n:.2f}" for s, p in enumerate(per_seat))
    lines = [
        f"bets: points per game by seat: {seats} (mean {sum(per_seat) / n / players:.2f})",
        f"{'chip':<6} {'settled/game':>12} {'won %':>6} {'points/chip':>11} {'points/game':>11}",
    ]
    for chip in CHIPS:
        count = settled[chip]
        lines.append(
            f"{chip:<6} {count / n:>12.2f} {100 * won[chip] / max(count, 1):>6.1f} "
            f"{points[chip] / max(count, 1):>11.2f} {points[chip] / n:>11.2f}"
        )
    return lines
