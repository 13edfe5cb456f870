"""The one kind of error a command reports itself; :func:`carcassonne.cli.main.main` prints it.

A command raises :class:`CommandError` for input it refuses (an option out of range, a file it
cannot write); ``main`` prints ``carcassonne COMMAND: error: MESSAGE`` on one line and exits with
the error's status, so no command needs its own ``try``/``print``/``return``.
"""

from __future__ import annotations

#: exit status of a refused command line (as argparse uses)
USAGE = 2
#: exit status of a file or record that cannot be read or written
FAILURE = 1


class CommandError(Exception):
    """Bad input, described in one line for the person who typed the command."""

    def __init__(self, message: str, status: int = USAGE) -> None:
        super().__init__(message)
        self.status = status
