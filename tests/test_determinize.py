"""Game.determinized: what a seat cannot know is dealt again, what it knows stays exactly."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from carcassonne import Game
from carcassonne.expansions.bets import CHIPS, Bets, PlaceBet
from carcassonne.expansions.mapchips import MapChips, chip_set
from carcassonne.tiles import tile_set

EVERYTHING = {"map": "france", "map_chips": True, "abbot": True, "bets": True}


def midgame(seed: int, players: int = 3, steps: int = 120) -> Game:
    """A game played at random for ``steps`` actions, with bets lying on offices."""
    game = Game(players=players, seed=seed, **EVERYTHING)
    rng = random.Random(seed)
    for _ in range(steps):
        actions = game.legal_actions()
        # bet whenever possible, so that offices hold chips of every seat
        bets = [a for a in actions if isinstance(a, PlaceBet)]
        game.apply(rng.choice(bets or actions))
    assert not game.is_over
    return game


def public(game: Game, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know, in comparable form."""
    return {
        "view": json.dumps(game.view(seat), sort_keys=True),
        "scores": list(game.scores),
        "board": {pos: (p.tile.id, p.orientation.rotation) for pos, p in game.board.items()},
        "figures": dict(game.figures),
        "supply": [dict(s) for s in game.supply],
        "legal": list(game.legal_actions()),
        "tiles_left": len(game.stack),
        "current": game.current_tile.id if game.current_tile else None,
        "events": list(game.events),
        "own_history": [a for s, a in game.history if s == seat],
    }


def hidden(game: Game) -> tuple[Any, ...]:
    """The hidden state: stack order, every seat's chips, face-down map chips."""
    bets = game.expansion(Bets)
    chips = game.expansion(MapChips)
    return (
        [t.id for t in game.stack],
        [list(s) for s in bets.supply],
        {pos: list(c) for pos, c in bets.offices.items()},
        dict(chips.face_down),
        list(game.history),
    )


def check_conservation(game: Game) -> None:
    """Every seat owns exactly the six chips; the 30 map chips are all somewhere."""
    bets = game.expansion(Bets)
    for seat in range(game.players):
        on_offices = [c for chips in bets.offices.values() for s, c in chips if s == seat]
        assert sorted(bets.supply[seat] + on_offices) == sorted(CHIPS)
    chips = game.expansion(MapChips)
    everywhere = [*chips.face_down.values(), *chips.sold]
    for held in chips.in_front:
        everywhere.extend(held)
    assert len(everywhere) == 30
    assert Counter(everywhere) == Counter(chip_set(game.map))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_determinized_game_keeps_everything_the_seat_knows(seed: int) -> None:
    game = midgame(seed)
    for seat in range(game.players):
        world = game.determinized(seat, random.Random(seed))
        assert public(world, seat) == public(game, seat)
        check_conservation(world)


@pytest.mark.parametrize("seed", [4, 5])
def test_determinized_game_is_legal_and_plays_to_the_end(seed: int) -> None:
    world = midgame(seed).determinized(1, random.Random(seed))
    rng = random.Random(seed)
    while not world.is_over:
        actions = world.legal_actions()
        world.apply(rng.choice(actions))
    check_conservation(world)
    bets = world.expansion(Bets)
    assert not bets.offices and all(s == list(CHIPS) for s in bets.supply)


def test_hidden_state_varies_with_the_rng_seed() -> None:
    game = midgame(6)
    seat = 0
    stacks, other_chips, face_down = set(), set(), set()
    for rng_seed in range(12):
        world = game.determinized(seat, random.Random(rng_seed))
        check_conservation(world)
        bets = world.expansion(Bets)
        stacks.add(tuple(t.id for t in world.stack))
        other_chips.add(
            (tuple(bets.supply[1]), tuple(sorted((p, tuple(c)) for p, c in bets.offices.items())))
        )
        face_down.add(tuple(sorted(world.expansion(MapChips).face_down.items())))
        # the seat's own chips never move
        assert bets.supply[seat] == game.expansion(Bets).supply[seat]
    assert len(stacks) == 12
    assert len(other_chips) > 1
    assert len(face_down) == 12


def test_other_seats_bets_in_the_history_match_the_new_deal() -> None:
    game = midgame(7)
    world = game.determinized(0, random.Random(3))
    bets = world.expansion(Bets)
    placed = Counter(PlaceBet(chip) for chips in bets.offices.values() for _, chip in chips)
    bet_actions = Counter(a for _, a in world.history if isinstance(a, PlaceBet))
    assert not placed - bet_actions  # every chip lying on an office was placed by the record
    for owner in (1, 2):
        own_on_offices = {c for chips in bets.offices.values() for s, c in chips if s == owner}
        recorded = {a.chip for s, a in world.history if s == owner and isinstance(a, PlaceBet)}
        assert own_on_offices <= recorded


def test_original_game_is_untouched() -> None:
    game = midgame(8)
    before = hidden(game), public(game, 0), game.options
    for seat in range(game.players):
        game.determinized(seat, random.Random(seat))
    assert (hidden(game), public(game, 0), game.options) == before


def test_games_the_seat_cannot_tell_apart_give_the_same_determinization() -> None:
    game = midgame(9)
    twin = game.copy()
    twin.stack.reverse()
    # swap two different face-down chips, and a chip of seat 1 on an office with its supply
    chips = twin.expansion(MapChips).face_down
    first = next(iter(chips))
    other = next(pos for pos in chips if chips[pos] != chips[first])
    chips[first], chips[other] = chips[other], chips[first]
    bets = twin.expansion(Bets)
    pos, i = next((p, i) for p, c in bets.offices.items() for i, (s, _) in enumerate(c) if s == 1)
    swapped = bets.supply[1][0]
    bets.supply[1][0] = bets.offices[pos][i][1]
    bets.supply[1].sort(key=CHIPS.index)
    bets.offices[pos][i] = (1, swapped)
    assert hidden(twin) != hidden(game)
    assert public(twin, 0) == public(game, 0)
    world = game.determinized(0, random.Random(1))
    twin_world = twin.determinized(0, random.Random(1))
    assert hidden(twin_world) == hidden(world)


def test_river_tiles_stay_first_and_the_lake_last_of_them() -> None:
    game = Game(players=2, river=True, seed=3)
    world = game.determinized(0, random.Random(1))
    river = [t.id for t in reversed(world.stack) if t.rivers]
    count = len(river)
    assert [t.id for t in reversed(world.stack)][:count] == river
    assert river[-1] == f"river/{tile_set('river').last_tile}"
    assert [t.id for t in world.stack] != [t.id for t in game.stack]


def test_determinized_refuses_a_seat_that_does_not_play() -> None:
    with pytest.raises(ValueError, match="seat must be between 0 and 1, not 2"):
        Game(players=2, seed=1).determinized(2, random.Random(0))


def test_each_world_carries_its_own_games_options_without_seed_or_stack() -> None:
    # Worlds of two games dealt in turn (the unseeded options are kept for the last game only):
    # each world has its own game's options, less the seed and the stack that reveal the deal.
    games = [Game(players=2, seed=4), Game(players=3, seed=5, abbot=True)]
    for round_ in range(3):
        for game in games:
            world = game.determinized(0, random.Random(round_))
            assert world.options == replace(game.options, seed=None, stack=None)
            assert world.options.seed is None and world.options.stack is None
            assert world.determinized(1, random.Random(round_)).options == world.options


def test_a_worlds_generator_is_seeded_with_the_next_64_bits_of_the_callers() -> None:
    # The world's generator is made only when read (a search never reads it), from the 64 bits
    # determinized() drew from the caller's generator: the same generator it always got.
    game = midgame(10)
    world = game.determinized(0, random.Random(7))
    expected = random.Random(random.Random(7).getrandbits(64))
    assert world.rng is world.rng is not game.rng
    assert world.rng.getstate() == expected.getstate()
    assert world.copy().rng.getstate() == expected.getstate()
