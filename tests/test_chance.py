"""The engine's shuffle deals exactly what ``random.Random.shuffle`` deals from the same state.

Every game's stack comes from it, so a difference of one draw would deal other games from the
same seeds (records would no longer replay): compared here item for item, and the generators'
states after, for every length a stack can have and then some.
"""

from __future__ import annotations

import random

import pytest

from carcassonne.chance import shuffle


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
