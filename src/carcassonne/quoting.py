"""Quoting a sender's value back in an error: at most a few dozen characters of it.

Errors name the value at fault, and the web server answers them to clients and may log them; a
value is whatever a client sent (a "tile id" of 1.9 MB, once), so it is cut to a line.
"""

from __future__ import annotations

import reprlib
from typing import Any

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40


def short_repr(value: Any) -> str:
    """``repr(value)``, strings and other values cut to about 40 characters (``'abc...xyz'``)."""
    return _SHORT.repr(value)
