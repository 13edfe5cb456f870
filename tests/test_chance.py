"""The engine's shuffle and randbelow draw exactly what ``random.Random.shuffle`` and
``randrange`` draw from the same state.

Every game's stack comes from the shuffle and Map-Chips' chip squares from randbelow, so a
difference of one draw would deal other games from the same seeds (records would no longer
replay): compared here item for item, and the generators' states after, for every length a stack
can have and then some, and for bounds from 1 to far beyond one 32-bit word.  Every game's
generator is made by seeded, which must leave it as ``random.Random(seed)`` does.
"""

from __future__ import annotations

import random

import pytest

from carcassonne.chance import randbelow, seeded, shuffle


@pytest.mark.parametrize("length", [*range(73), 95, 127, 128, 129, 143, 200, 257])
def test_shuffle_draws_as_random_shuffle(length: int) -> None:
    for seed in range(25):
        ours, theirs = random.Random(seed), random.Random(seed)
        mine, reference = list(range(length)), list(range(length))
        shuffle(mine, ours)
        theirs.shuffle(reference)
        assert mine == reference
        assert ours.getstate() == theirs.getstate()


class _OwnDraws(random.Random):
    """A generator that draws its numbers its own way (random.py then shuffles by random())."""

    def random(self) -> float:
        return super().random() ** 2


def test_a_generator_of_another_class_shuffles_its_own_way() -> None:
    ours, theirs = _OwnDraws(5), _OwnDraws(5)
    mine, reference = list(range(60)), list(range(60))
    shuffle(mine, ours)
    theirs.shuffle(reference)
    assert mine == reference
    # and that way is not the plain generator's: the fallback is what made them equal
    plain = list(range(60))
    random.Random(5).shuffle(plain)
    assert mine != plain


#: bounds of every bit length up to 3 words: just below, at and above each power of two, and some
#: between (Map-Chips' draw weights are products of many set counts, far above 2**32)
_BOUNDS = sorted(
    {n for k in range(100) for n in (2**k - 1, 2**k, 2**k + 1, 3 * 2**k // 2) if n > 0}
    | {10**30 + 7, 2**96 - 1, 2**96 + 12345}
)


@pytest.mark.parametrize("n", _BOUNDS)
def test_randbelow_draws_as_random_randrange(n: int) -> None:
    for seed in range(5):
        ours, theirs = random.Random(seed), random.Random(seed)
        mine = [randbelow(n, ours) for _ in range(20)]
        reference = [theirs.randrange(n) for _ in range(20)]
        assert mine == reference
        assert ours.getstate() == theirs.getstate()


@pytest.mark.parametrize("n", [0, -1, -(2**40)])
def test_randbelow_of_an_empty_range_is_an_error(n: int) -> None:
    with pytest.raises(ValueError, match="empty range"):
        randbelow(n, random.Random(1))
    with pytest.raises(ValueError, match="empty range"):
        random.Random(1).randrange(n)  # (as randrange says too)


def test_a_generator_of_another_class_draws_its_numbers_its_own_way() -> None:
    ours, theirs = _OwnDraws(5), _OwnDraws(5)
    mine = [randbelow(1000, ours) for _ in range(50)]
    reference = [theirs.randrange(1000) for _ in range(50)]
    assert mine == reference
    plain = random.Random(5)
    assert mine != [plain.randrange(1000) for _ in range(50)]


@pytest.mark.parametrize(
    "seed", [0, 1, 7, 2**32 - 1, 2**32, 2**64 - 1, 2**200 + 3, -5, True, "seed", b"seed", 2.5]
)
def test_seeded_is_random_random_of_the_seed(seed: object) -> None:
    ours, theirs = seeded(seed), random.Random(seed)  # type: ignore[arg-type]
    assert type(ours) is random.Random
    assert ours.getstate() == theirs.getstate()
    draws = [ours.getrandbits(40) for _ in range(700)]
    assert draws == [theirs.getrandbits(40) for _ in range(700)]
    assert ours.gauss(0, 1) == theirs.gauss(0, 1)
    assert ours.getstate() == theirs.getstate()
