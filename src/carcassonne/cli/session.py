"""One game of ``carcassonne play`` at the keyboard: the game loop, the screens shown to each
human, what they type, undo, the hotseat hand-over and the record saved at the end.

The loop asks each seat in turn: a bot's ``choose``, or a human, who sees what happened since
their last move, the board and the scores (:mod:`.screens`) and the menu of the decision
(:mod:`.menus`).  The table (:mod:`.table`) keeps the human seats' clocks and says who plays
each seat: a human who resigned or ran out of time is played by the stand-in bot.  Hidden
information is only ever taken from ``game.view(seat)`` of the human who is deciding, and
between two humans whose views differ the keyboard is handed over on a blank screen.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from typing import Any, TextIO

from ..actions import PASS, PlaceTile
from ..bots import Bot, make_bot, make_hinting_bot
from ..bots.expert import HINT_COUNT
from ..events import ScoreEvent
from ..game import MAX_PLAYERS, Game, GameOptions, IllegalAction
from ..replaying import replay
from ..standings import TableSettings
from . import screens
from .layout import wrap_log
from .menus import Menu, menu_for
from .render import paint, seat_name, seat_tag, sgr
from .table import ClockFn, Table
from .wording import bot_name, describe_event, figure_label, plural, tile_words

#: the seat kind played at the keyboard (every other kind is a bot spec)
HUMAN = "human"

InputFn = Callable[[str], str]


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class Quit(Exception):
    """The player asked to stop (or the input ended)."""


class Session:
    """One game at the keyboard: the loop, the screens, the input parsing."""

    def __init__(
        self,
        options: GameOptions,
        seats: list[str],
        input_fn: InputFn,
        output: TextIO,
        colour: bool,
        save_path: str | None,
        terminal: tuple[int, int] | None,
        hints: str,
        seed_in_header: bool,
        table: TableSettings | None = None,
        clock: ClockFn = wall_clock_ms,
    ) -> None:
        self.options = options
        self.seed_in_header = seed_in_header  # False for a drawn seed: it is told at the end
        self.seats = seats
        self.input_fn = input_fn
        self.out = output
        self.colour = colour
        self.save_path = save_path
        self.width, self.rows = terminal or tuple(shutil.get_terminal_size((100, 40)))
        self.clear = output.isatty() and os.environ.get("TERM") != "dumb"
        self.humans = [s for s, kind in enumerate(seats) if kind == HUMAN]
        seed = options.seed or 0
        self.bots: dict[int, Bot] = {
            s: make_bot(kind, seed * 31 + s) for s, kind in enumerate(seats) if kind != HUMAN
        }
        single = len(self.humans) == 1
        self.names = [
            seat_name(s) + (" (you)" if single else "") if kind == HUMAN else bot_name(s, kind)
            for s, kind in enumerate(seats)
        ]
        # Seeded like the bots, so a hint is the same when asked again after an undo.
        self.hints_spec = hints
        self.hint_seed = seed * 31 + MAX_PLAYERS
        self.game = Game(options)
        self.log: list[str] = []
        self.shown = 0  # log lines already printed (games without humans print as they go)
        self.recap = dict.fromkeys(self.humans, 0)  # human seat -> where its recap starts
        self.reported = len(self.game.events)
        self.last_human: int | None = None
        self.notice = ""  # one line for the next screen (auto-pass, undo…)
        self.input_closed = False
        self.table = Table(table or TableSettings(), options.players, self.humans, clock, seed)

    # -------------------------------------------------------------------------- output

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def tag(self, seat: int) -> str:
        return seat_tag(seat, self.colour) + " " + self.names[seat]

    def bold(self, text: str) -> str:
        return screens.bold(text, self.colour)

    def dim(self, text: str) -> str:
        return screens.dim(text, self.colour)

    def warn(self, text: str) -> str:
        return paint(text, sgr(203, bold=True), self.colour)

    def turn_number(self) -> int:
        """The turn being played: ``game.turn`` counts placed tiles, so before placing add one."""
        return self.game.turn + (self.game.phase == "tile")

    # ---------------------------------------------------------------------------- loop

    def play(self) -> None:
        try:
            self.table.begin(self.game)
            # self.game, not a local: undo replaces the game.
            while not self.game.is_over:
                seat = self.game.to_move
                if seat in self.bots:
                    self.apply(seat, self.bots[seat].choose(self.game))
                    if not self.humans:
                        self.flush_log()
                    continue
                if not self.table.person_plays(seat) and not self.takes_seat_back(seat):
                    stand_in = self.table.stand_ins[seat]
                    self.apply(seat, stand_in.choose(self.game), by_stand_in=True)
                    continue
                if self.game.phase == "figure" and self.game.legal_actions() == [PASS]:
                    self.apply(seat, PASS, "no figure (none can go on this tile)")
                    continue
                action = self.ask(seat)
                if action is not None:  # None: undone, ask again
                    self.apply(seat, action)
        except Quit:
            self.quit()
            return
        self.finish()

    def takes_seat_back(self, seat: int) -> bool:
        """At the start of a stood-in seat's turn, its player may take the seat back."""
        game = self.game
        if game.phase != "tile" or not self.table.may_return(seat, game):
            return False
        self.handover(seat)
        self.last_human = seat
        self.screen(seat, {})
        answer = self.read(
            f"{self.names[seat]} is played by the stand-in. Take your seat back? [y/N] "
        )
        if answer.strip().lower() not in ("y", "yes"):
            return False
        self.table.change(game, seat, "return")
        self.log.append(f"  {self.names[seat]} is back at the table.")
        return True

    def apply(
        self, seat: int, action: Any, text: str | None = None, by_stand_in: bool = False
    ) -> None:
        """Apply ``action`` for ``seat`` and log it (``text`` overrides its description)."""
        game = self.game
        if text is None and isinstance(action, PlaceTile):
            tile = tile_words(game.current_tile) if game.current_tile else "?"
            text = f"placed {tile} at ({action.x}, {action.y}), rotation {action.rotation}°"
        elif text is None:
            text = figure_label(game, action)
        phase = game.phase
        game.apply(action)
        self.table.moved(seat, game)
        if phase == "tile" and seat in self.humans and not by_stand_in:
            # A human's screens recap the round from their own last turn on.
            self.recap[seat] = len(self.log)
        who = self.tag(seat) + (" (stand-in)" if by_stand_in else "")
        if phase == "tile":
            self.log.append(self.bold(f"Turn {game.turn}") + f" · {who} {text}.")
        elif phase == "figure":
            self.log.append(f"  {self.names[seat]}: {text}.")
        # Expansion decisions may be secret (a bet's chip): what they reveal is in the events.
        self.report_events()
        if seat in self.humans and not by_stand_in:
            self.last_human = seat

    def report_events(self) -> None:
        game = self.game
        final_started = False
        for event in game.events[self.reported :]:
            if isinstance(event, ScoreEvent) and event.reason == "final" and not final_started:
                final_started = True
                self.log.append(self.bold("Final scoring"))
            self.log.append("  " + describe_event(event, self.names))
        self.reported = len(game.events)

    def flush_log(self) -> None:
        for line in self.log[self.shown :]:
            self.say(line)
        self.shown = len(self.log)

    # -------------------------------------------------------------------------- screen

    def screen(self, seat: int, labels: dict[tuple[int, int], str]) -> None:
        game = self.game
        if self.clear:
            self.out.write("\x1b[H\x1b[2J")
        title = (
            f"Carcassonne · turn {self.turn_number()} · {plural(len(game.stack), 'tile')} left"
            + (f" · seed {self.options.seed}" if self.seed_in_header else "")
        )
        self.say(self.bold(title))
        # What happened first: on a short terminal the board and the menu stay in view.
        for entry in self.log[self.recap[seat] :]:
            for line in wrap_log(entry, self.width):
                self.say(line)
        if self.notice:
            self.say(self.notice)
            self.notice = ""
        for line in screens.board_lines(game, labels, self.colour, self.width, self.rows):
            self.say(line)
        for line in screens.scores_lines(game, self.names, self.colour):
            self.say(line)
        if self.table.shows_anything():
            for line in wrap_log(self.table.clock_line(self.names), self.width):
                self.say(line)
        for line in screens.panel_lines(game, seat, self.colour, self.width):
            self.say(line)
        self.say()

    # --------------------------------------------------------------------------- input

    def read(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            self.input_closed = True
            self.say()  # end the prompt's line
            raise Quit from None
        except KeyboardInterrupt:
            self.say()
            raise Quit from None

    def handover(self, seat: int) -> None:
        """Hotseat with hidden information: let the next player take the keyboard unseen."""
        if len(self.humans) < 2 or self.last_human in (None, seat):
            return
        game = self.game
        views = [game.view(s)["expansions"] for s in self.humans]
        if all(v == views[0] for v in views):
            return
        if self.clear:
            self.out.write("\x1b[H\x1b[2J")
        self.read(f"Hand the keyboard to {self.names[seat]} and press Enter. ")

    def ask(self, seat: int) -> Any:
        """One decision of a human: an action, or None after undo/help (the loop asks again)."""
        game = self.game
        self.handover(seat)
        self.last_human = seat
        menu = menu_for(self, seat)
        self.screen(seat, menu.labels)
        for line in menu.lines():
            self.say(line)
        while True:
            clock = f" {self.table.clock_text(seat)}" if self.table.timed else ""
            text = self.read(f"{seat_name(seat)}{clock}> ").strip()
            word = text.lower()
            if word in ("q", "quit", "exit"):
                raise Quit
            if self.table.out_of_time(seat):
                self.time_out(seat)
                return None
            if word == "resign":
                if self.resign(seat):
                    return None
                continue
            if word in ("h", "help", "?"):
                self.say(screens.help_text(self.game.players, self.colour))
                continue
            if word in ("u", "undo"):
                if self.undo():
                    return None
                continue
            if word in ("hint", "hints"):
                for line in self.hint_lines(seat, menu):
                    self.say(line)
                continue
            if not word:
                self.say(menu.hint)
                continue
            action = menu.parse(word)
            if isinstance(action, str):
                self.say(self.warn(action))
                continue
            if action not in game.legal_actions():
                # Typed rather than picked (e.g. an equivalent rotation of a symmetric tile):
                # let the engine judge it on a copy, so a refusal leaves the game untouched.
                try:
                    game.copy().apply(action)
                except IllegalAction as exc:
                    self.say(self.warn(f"Not allowed: {exc}"))
                    continue
            return action

    def time_out(self, seat: int) -> None:
        """``seat``'s clock ran out before it decided: the decision is refused, and the stand-in
        plays the seat (which, with ``--on-timeout lose``, is ranked last)."""
        name = self.names[seat]
        bot = self.table.settings.stand_in
        if self.table.settings.on_timeout == "lose":
            self.table.change(self.game, seat, "timeout")
            text = f"{name} ran out of time and loses (ranked last); the stand-in ({bot}) plays on."
        else:
            self.table.change(self.game, seat, "stand-in")
            text = (
                f"{name} ran out of time: the stand-in ({bot}) plays {name} from now on "
                "(take the seat back at the start of a turn)."
            )
        self.say(self.warn("Too late: " + text))
        self.log.append("  " + self.warn(text))

    def resign(self, seat: int) -> bool:
        """Resign ``seat`` once the player confirms; True if they did."""
        name = self.names[seat]
        answer = self.read(
            f"Resign {name}? You will be ranked last and the stand-in plays your turns. [y/N] "
        )
        if answer.strip().lower() not in ("y", "yes"):
            self.say("Not resigned.")
            return False
        self.table.change(self.game, seat, "resign")
        text = f"{name} resigned (ranked last); the stand-in plays on."
        self.say(text)
        self.log.append("  " + text)
        return True

    def hint_lines(self, seat: int, menu: Menu) -> list[str]:
        """The expert's best moves for ``seat`` with their expected lead; other humans are told
        in the log that a hint was used (it is no secret at the table)."""
        bot = make_hinting_bot(self.hints_spec, self.hint_seed + self.game.turn)
        hints = bot.hints(self.game, HINT_COUNT)
        if len(self.humans) > 1:
            self.log.append(f"  {self.names[seat]} asked for a hint.")
        lines = [self.bold(f"Hints ({self.hints_spec}):")]
        for n, hint in enumerate(hints, 1):
            lead = hint.expected_points
            if hint.samples:
                worth = f"expected lead {lead:+.1f} points over the best opponent"
            else:
                worth = "the only move"
            lines.append(f"  {n}. {menu.describe(hint.action)}  ({worth})")
        return lines

    def undo(self) -> bool:
        """Take back the last human action and everything after it, by replaying the rest."""
        history = self.game.history
        human = set(self.humans)
        cut = max((i for i, (s, _) in enumerate(history) if s in human), default=None)
        if cut is None:
            self.say(self.warn("Nothing to undo yet."))
            return False
        refusal = self.table.undo_refusal(cut)
        if refusal is not None:
            self.say(self.warn(refusal))
            return False
        game = self.game = replay(self.options, history[:cut])
        self.table.undone(game)
        self.reported = len(game.events)
        self.recap = dict.fromkeys(self.humans, len(self.log))  # the undone lines are history
        self.last_human = None
        self.notice = f"Undone: back to turn {self.turn_number()}, {game.phase} step."
        return True

    # ------------------------------------------------------------------------- the end

    def finish(self) -> None:
        if self.clear:
            self.out.write("\x1b[H\x1b[2J")
        seed = f" · seed {self.options.seed}" if self.options.seed is not None else ""
        self.say(self.bold(f"Carcassonne · game over{seed}"))
        for line in screens.board_lines(self.game, {}, self.colour, self.width, self.rows):
            self.say(line)
        self.say()
        start = min(self.recap.values(), default=self.shown)
        for entry in self.log[start:]:
            for line in wrap_log(entry, self.width):
                self.say(line)
        self.say()
        places = self.table.places(self.game)
        for line in screens.final_scores_lines(self.game, self.names, self.colour, places):
            self.say(line)
        self.offer_save("Save the game record to")

    def quit(self) -> None:
        self.say("Game stopped.")
        if self.input_closed:
            return
        self.offer_save("Save the unfinished game to")

    def offer_save(self, question: str) -> None:
        if not self.save_path:
            return
        replacing = " (replacing it)" if os.path.exists(self.save_path) else ""
        try:
            answer = self.input_fn(f"{question} {self.save_path}{replacing}? [Y/n] ").strip()
        except (EOFError, KeyboardInterrupt):
            return
        if answer.lower() not in ("", "y", "yes"):
            return
        try:
            from ..formats.record import save_record
        except ImportError:
            self.say(self.warn("Saving records is not available in this version."))
            return
        seats = [{"name": seat_name(s), "kind": kind} for s, kind in enumerate(self.seats)]
        try:
            table = self.table.record() if self.table.shows_anything() else None
            save_record(self.game, self.save_path, seats, table)
        except (OSError, ValueError) as exc:
            self.say(self.warn(f"Could not save: {exc}"))
            return
        self.say(f"Saved to {self.save_path}.")
