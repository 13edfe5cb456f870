"""The menus of ``carcassonne play``: what a human deciding sees under the board, and how what
they type becomes an action.

Step 1 (:class:`TileMenu`) numbers the placements of the drawn tile, grouped by square, and
letters the squares on the board; a move is typed as its number, a letter and rotation or
``x y rotation``.  Step 2 and any phase an expansion adds (:class:`ListMenu`) number the legal
actions, pass as 0, so new phases work without changes here.  :func:`menu_for` picks the menu
for the phase being played.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import PASS, PlaceFigure, PlaceTile
from ..tiles import ROTATIONS
from .layout import columns, wrap
from .render import PREVIEW_SIZE, TILE_SIZE, tile_block
from .wording import decision_label, figure_label, tile_words

if TYPE_CHECKING:
    from .session import Session

#: square labels: letters that are not commands (h, q, u) and not easily misread (l, o, p)
LABEL_LETTERS = "abcdefgijkmnrstvwxyz"


class Menu:
    """The options of one decision: their lines on screen and the parsing of a typed answer."""

    labels: dict[tuple[int, int], str] = {}
    hint = "Type an option number, or h for help."

    def lines(self) -> list[str]:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        """The chosen action, or an error message (str)."""
        raise NotImplementedError

    def describe(self, action: Any) -> str:
        """``action`` as the player would type it, and in words."""
        raise NotImplementedError


def menu_for(session: Session, seat: int) -> Menu:
    """The menu for the decision ``seat`` makes now."""
    if session.game.phase == "tile":
        return TileMenu(session, seat)
    return ListMenu(session, seat)


def _with_commands(hint: str, width: int) -> list[str]:
    commands = "hint · h help · u undo · resign · q quit"
    if len(hint) + 2 + len(commands) <= width:
        return [f"{hint}  {commands}"]
    return [hint, commands]


def _label(n: int) -> str:
    letters = LABEL_LETTERS
    if n < len(letters):
        return letters[n]
    return letters[n // len(letters) - 1] + letters[n % len(letters)]


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()


class TileMenu(Menu):
    """Step 1: placements numbered, grouped by square; squares lettered on the board."""

    hint = 'Type a move number, a square and rotation ("b 90"), or "x y rotation".'

    def __init__(self, session: Session, seat: int) -> None:
        self.session = session
        self.seat = seat
        game = session.game
        self.moves = sorted(
            (a for a in game.legal_actions() if isinstance(a, PlaceTile)),
            key=lambda a: (a.y, a.x, a.rotation),
        )
        self.squares: dict[tuple[int, int], list[PlaceTile]] = {}
        for move in self.moves:
            self.squares.setdefault((move.x, move.y), []).append(move)
        self.labels = {sq: _label(i) for i, sq in enumerate(self.squares)}
        self.by_label = {label: sq for sq, label in self.labels.items()}

    def lines(self) -> list[str]:
        s = self.session
        tile = s.game.current_tile
        assert tile is not None
        rotations = sorted({m.rotation for m in self.moves})
        out = wrap(s.tag(self.seat) + ": ", f"place {tile_words(tile)}.", s.width)
        out.append("It fits in these rotations:")
        blocks = [tile_block(tile.orientations[r // 90], (), s.colour) for r in rotations]
        out.append("  " + "".join(f"{r}°".center(TILE_SIZE[0] + 3) for r in rotations))
        for row in range(TILE_SIZE[1]):
            out.append("  " + "".join(" " + b[row] + "  " for b in blocks))
        out.append("Moves by square (letters on the board):")
        entries = []
        number = 1
        names = {sq: f"({sq[0]}, {sq[1]}):" for sq in self.squares}
        pad = max(len(n) for n in names.values())
        for square, moves in self.squares.items():
            label = s.bold(self.labels[square].rjust(2))
            options = []
            for move in moves:
                options.append(f"{number:>2}) {move.rotation}°")
                number += 1
            entries.append(f"{label} {names[square].ljust(pad)} " + "  ".join(options))
        out += columns(entries, s.width)
        out += [s.dim(line) for line in _with_commands(self.hint, s.width)]
        return out

    def parse(self, text: str) -> Any:
        tokens = (
            text.replace(",", " ").replace("(", " ").replace(")", " ").replace("°", " ").split()
        )
        tile = self.session.game.current_tile
        assert tile is not None
        if len(tokens) == 1 and tokens[0].lstrip("-").isdigit():
            n = int(tokens[0])
            if 1 <= n <= len(self.moves):
                return self.moves[n - 1]
            return f"There is no move {n}: choose 1 to {len(self.moves)}."
        if tokens and tokens[0] in self.by_label:
            square = self.by_label[tokens[0]]
            return self._at(square, tokens[1:], f"square {tokens[0]}")
        if len(tokens) in (2, 3) and all(_is_int(t) for t in tokens):
            square = (int(tokens[0]), int(tokens[1]))
            if square not in self.squares:
                if square in {(p.xy) for p in self.session.game.board.values()}:
                    return f"Square {square} already holds a tile."
                return f"This tile fits nowhere at {square}: pick a lettered square."
            return self._at(square, tokens[2:], str(square))
        return f"I did not understand {text!r}. " + self.hint

    def describe(self, action: Any) -> str:
        label = self.labels[(action.x, action.y)]
        return (
            f"{label} {action.rotation}: square {label} at ({action.x}, {action.y}), "
            f"rotation {action.rotation}°"
        )

    def _at(self, square: tuple[int, int], rest: list[str], name: str) -> Any:
        moves = self.squares[square]
        choices = ", ".join(f"{m.rotation}°" for m in moves)
        if not rest:
            if len(moves) == 1:
                return moves[0]
            example = f"{name.split()[-1]} {moves[1].rotation}"
            return f"Several rotations fit on {name} ({choices}): add one, e.g. {example}."
        if len(rest) > 1 or not _is_int(rest[0]):
            return f"After {name} type a rotation ({choices})."
        rotation = int(rest[0])
        if rotation not in ROTATIONS:
            return "A rotation is 0, 90, 180 or 270 (degrees clockwise)."
        for move in moves:
            if move.rotation == rotation:
                return move
        # Symmetric tiles list one rotation of each shape; the engine accepts the equal ones.
        return PlaceTile(square[0], square[1], rotation)


class ListMenu(Menu):
    """Step 2 and every expansion phase: the legal actions, numbered; pass is 0."""

    def __init__(self, session: Session, seat: int) -> None:
        self.session = session
        self.seat = seat
        game = session.game
        legal = list(game.legal_actions())
        self.passing = PASS in legal
        others = [a for a in legal if a != PASS]
        self.options: dict[int, Any] = dict(enumerate(others, start=1))
        if self.passing:
            self.options[0] = PASS
        self.figure_phase = game.phase == "figure"
        self.hint = "Type an option number" + (", or 0 / p to pass." if self.passing else ".")

    def label(self, action: Any) -> str:
        if self.figure_phase:
            return figure_label(self.session.game, action)
        return decision_label(action)

    def lines(self) -> list[str]:
        s = self.session
        game = s.game
        out = []
        if self.figure_phase and game.last_placed is not None:
            placed = game.last_placed
            x, y = placed.xy
            question = f"place a figure on the tile at ({x}, {y})? The numbers show where each "
            out += wrap(f"{s.tag(self.seat)}: ", question + "option stands.", s.width)
            marks: dict[str, str] = {}
            for n, action in sorted(self.options.items()):
                if isinstance(action, PlaceFigure):
                    marks.setdefault(action.location, _mark(n))
            for row in tile_block(placed.orientation, (), s.colour, marks=marks, size=PREVIEW_SIZE):
                out.append("    " + row)
        else:
            out.append(f"{s.tag(self.seat)}: {game.phase.replace('-', ' ')} — choose:")
        entries = [f"{n:>2}) {self.label(a)}" for n, a in sorted(self.options.items())]
        out += columns(entries, s.width)
        out += [s.dim(line) for line in _with_commands(self.hint, s.width)]
        return out

    def describe(self, action: Any) -> str:
        number = next(n for n, a in self.options.items() if a == action)
        return f"{number}: {self.label(action)}"

    def parse(self, text: str) -> Any:
        if text in ("p", "pass", "n", "none"):
            return PASS if self.passing else "Passing is not allowed now."
        if _is_int(text):
            n = int(text)
            if n in self.options:
                return self.options[n]
            return f"There is no option {n}: choose {min(self.options)} to {max(self.options)}."
        return f"I did not understand {text!r}. " + self.hint


def _mark(n: int) -> str:
    return str(n) if n < 10 else chr(ord("a") + n - 10)
