"""Entry point of the ``carcassonne`` command.

:func:`main` is the one place that turns bad input into a message: whatever a command raises for
input it refuses (:class:`~.errors.CommandError`, a game setup or record error, a file it cannot
read or write) is printed as one line ``carcassonne COMMAND: error: …`` with a non-zero exit
status, never a traceback.  Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Sequence

from .. import BUILD, __version__
from ..formats.record import RecordError
from ..options import GameSetupError
from ..tiles import TileDataError
from .errors import FAILURE, USAGE, CommandError

#: exit status when the reader of our output went away (``| head``): what a shell reports for a
#: process ended by SIGPIPE, the way ``cat`` would have ended
BROKEN_PIPE = 128 + 13
INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="carcassonne",
        description="Carcassonne: base game (C3), River, Abbot, The Bets, France map with "
        "Map-Chips, Inns & Cathedrals, Traders & Builders. Play in the terminal or the browser, "
        "simulate bot games, run tournaments, replay records.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__} ({BUILD})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    from . import bots, play, replay, review, serve, simulate, tournament

    for module in (play, simulate, tournament, bots, replay, review, serve):
        module.register(commands)
    return parser


class _CommandParser(argparse.ArgumentParser):
    """A command's parser refuses an argument it does not know itself, with its own usage.

    argparse hands a command's unknown arguments back to the top-level parser, whose error shows
    ``usage: carcassonne [-h] [--version] COMMAND …``: nothing about the command's own options.
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def main(argv: Sequence[str] | None = None) -> int:
    _tolerate_narrow_terminals()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a refused argument (already printed)
        return exc.code if isinstance(exc.code, int) else USAGE
    if not getattr(args, "run", None):
        parser.print_help()
        return USAGE
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
        return status
    except BrokenPipeError:
        _discard_stdout()
        return BROKEN_PIPE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return INTERRUPTED
    except CommandError as exc:
        return _report(args.command, str(exc), exc.status)
    except (GameSetupError, TileDataError) as exc:
        return _report(args.command, str(exc), USAGE)
    except RecordError as exc:
        return _report(args.command, str(exc), FAILURE)
    except OSError as exc:
        return _report(args.command, describe_os_error(exc), FAILURE)


def describe_os_error(exc: OSError) -> str:
    """``PATH: reason`` without Python's ``[Errno N]`` noise."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename is not None else reason


def _report(command: str, message: str, status: int) -> int:
    print(f"carcassonne {command}: error: {message}", file=sys.stderr)
    return status


def _tolerate_narrow_terminals() -> None:
    """On a terminal that cannot show a character (board lines, ``°`` in an ASCII locale), print
    ``?`` rather than stop the game with a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")


def _discard_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        stdout = sys.stdout.fileno()  # none when stdout is not a file (in tests)
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout)


if __name__ == "__main__":
    sys.exit(main())
