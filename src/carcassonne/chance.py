"""Shuffles and numbers drawn from a ``random.Random`` bit for bit as its own methods draw them.

Chance happens when a game is set up (the stack is shuffled from the seed) and when a search
deals a sampled world (``Game.determinized``).  ``random.Random.shuffle`` is interpreted Python
(``random.py``), with a call of its ``_randbelow`` per item: in the compiled build shuffling the
stack cost more than the rest of a game's set-up.  :func:`shuffle` runs the same algorithm
(Fisher-Yates from the last item, each index drawn by rejection from ``getrandbits`` of the
bound's bit length, as ``_randbelow_with_getrandbits`` does) in the module's own build, so the
generator is asked for the same bits in the same order and a seed deals exactly the stack it
always dealt (``tests/test_chance.py`` compares them).  :func:`randbelow` is ``randrange(n)``
the same way (Map-Chips draws its chip squares with it).  A generator of another class keeps its
own methods: a subclass may draw its numbers another way.  :func:`seeded` is
``random.Random(seed)`` without its interpreted ``__init__`` and ``seed``: every game makes one.
"""

from __future__ import annotations

import _random
import random
from typing import Final, TypeVar

T = TypeVar("T")

#: the class whose draws these functions reproduce (kept here: a compiled build would otherwise
#: look ``Random`` up in the ``random`` module at every call)
_PLAIN_RANDOM: Final = random.Random
#: the C generator's own seeding, which ``random.Random.seed`` calls for an int
_SEED: Final = _random.Random.seed


def seeded(seed: int | float | str | bytes | bytearray | None) -> random.Random:
    """``random.Random(seed)``, in the same state, without the two interpreted frames of its
    ``__init__`` and ``seed`` (~9 K instructions when compiled, a quarter of making one): for an
    int, ``seed`` seeds the C generator and clears ``gauss_next``, which is all this does (any
    other seed is left to ``random.Random``, which turns a str or bytes into an int first)."""
    if type(seed) is not int:
        return _PLAIN_RANDOM(seed)
    rng = _PLAIN_RANDOM.__new__(_PLAIN_RANDOM)
    _SEED(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined]
    return rng


def shuffle(items: list[T], rng: random.Random) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` would."""
    if type(rng) is not _PLAIN_RANDOM:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits  # a method of a C type: one lookup, not one per draw
    # random.py's loop: for i from the last index down to 1, j = _randbelow(i + 1), which draws
    # (i + 1).bit_length() bits until the number is at most i.  That bit length, kept here as
    # i goes down (it drops by one when i + 1 falls below a power of two), spares a method call
    # of int.bit_length per item.
    bits = len(items).bit_length()
    for i in range(len(items) - 1, 0, -1):
        if i + 1 < 1 << (bits - 1):
            bits -= 1
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def randbelow(n: int, rng: random.Random) -> int:
    """A number in ``range(n)`` drawn exactly as ``rng.randrange(n)`` would draw it."""
    if type(rng) is not _PLAIN_RANDOM:
        return rng.randrange(n)
    if n <= 0:
        raise ValueError(f"empty range for randbelow({n})")
    # random.py's randrange(n) for n > 0 is _randbelow(n), which for a plain Random is
    # _randbelow_with_getrandbits: draw n.bit_length() bits until the number is below n.
    bits = n.bit_length()
    r = rng.getrandbits(bits)
    while r >= n:
        r = rng.getrandbits(bits)
    return r
