"""Properties every game must have, checked on random games with random options (hypothesis).

The checks read the rules' invariants from the game's public state, not from the engine's
bookkeeping: figure totals come from the supplies at the start, tile limits from the tile sets,
edge matching from the board's orientations.  New options belong in :func:`game_options`; the
properties are written so they hold for any expansion (printed map tiles and borders included).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from types import GetSetDescriptorType, MemberDescriptorType

from hypothesis import given, settings
from hypothesis import strategies as st

from carcassonne import Action, Game, GameOptions, IllegalAction
from carcassonne.board import DELTAS, OPPOSITE, decode, encode
from carcassonne.expansions.traders import GOODS, TradersBuilders
from carcassonne.game import PlacedTile
from carcassonne.tiles import BORDER, CITY, tile_set
from scenario import snapshot

EXAMPLES = settings(max_examples=20, deadline=None)


@st.composite
def game_options(draw: st.DrawFn) -> GameOptions:
    """Random options: players 2-5, any expansions (the River only off the map), any rule
    variant (those of Inns & Cathedrals only with it, D54), few meeples."""
    on_map = draw(st.booleans())
    inns_cathedrals = draw(st.booleans())
    inns = not inns_cathedrals or draw(st.booleans())
    cathedrals = not inns_cathedrals or draw(st.booleans())
    return GameOptions(
        players=draw(st.integers(2, 5)),
        river=not on_map and draw(st.booleans()),
        abbot=draw(st.booleans()),
        bets=draw(st.booleans()),
        inns_cathedrals=inns_cathedrals,
        small_city_scores_2=draw(st.booleans()),
        farmers=draw(st.booleans()),
        inns=inns,
        cathedrals=cathedrals,
        plain_unfinished_inns_cathedrals=inns_cathedrals
        and (inns or cathedrals)
        and draw(st.booleans()),
        map="france" if on_map else None,
        map_chips=on_map and draw(st.booleans()),
        traders_builders=draw(st.booleans()),
        meeples=draw(st.one_of(st.none(), st.integers(1, 3))),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


PLAY_SEEDS = st.integers(0, 2**32 - 1)


def play(game: Game, rng: random.Random, after: Callable[[Game], None] | None = None) -> Game:
    """Play random legal actions to the end, calling ``after`` after each one."""
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
        if after is not None:
            after(game)
    return game


def placed_tiles(game: Game) -> list[PlacedTile]:
    """The tiles on the board that are tiles of a set (not a map's printed large cities)."""
    printed = {encode(p.x, p.y) for p in game.geometry.printed}
    return [p for pos, p in game.board.items() if pos not in printed]


def figures_on_board(game: Game) -> Counter[tuple[int, str]]:
    """(seat, figure type) -> count, read from the features (not from ``game.figures``)."""
    counts: Counter[tuple[int, str]] = Counter()
    for feature in game.features():
        for seat, figure, _ in feature.figures:
            counts[seat, figure] += 1
    return counts


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_every_legal_action_is_of_a_type_the_action_union_names(
    options: GameOptions, play_seed: int
) -> None:
    """``legal_actions()`` is typed ``list[Action]``: check that type holds in every phase."""

    def all_legal_are_actions(game: Game) -> None:
        assert all(isinstance(action, Action) for action in game.legal_actions())

    play(Game(options), random.Random(play_seed), after=all_legal_are_actions)


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_figures_are_conserved(options: GameOptions, play_seed: int) -> None:
    game = Game(options)
    initial = [dict(s) for s in game.supply]

    def check(g: Game) -> None:
        on_board = figures_on_board(g)
        assert sum(on_board.values()) == len(g.figures)
        for seat, start in enumerate(initial):
            assert set(g.supply[seat]) == set(start)
            for figure, total in start.items():
                assert g.supply[seat][figure] >= 0
                assert g.supply[seat][figure] + on_board[seat, figure] == total

    play(game, random.Random(play_seed), check)


def goods_in_complete_cities(game: Game) -> Counter[str]:
    """Trade goods marks (docs/rules.md §12) on the segments of every complete city."""
    counts: Counter[str] = Counter()
    for feature in game.features():
        if feature.kind == CITY and feature.complete:
            for g in feature.segments:
                placed = game.board[game.seg_pos[g]]
                counts.update(placed.orientation.segments[g - placed.base].marks)
    return Counter({kind: counts[kind] for kind in GOODS if counts[kind]})


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_goods_tokens_are_the_marks_of_the_cities_players_completed(
    options: GameOptions, play_seed: int
) -> None:
    options = options.with_(traders_builders=True)
    game = Game(options)
    at_setup = goods_in_complete_cities(game)  # closed by a map's border: nobody completed them
    box = Counter(
        mark for t in tile_set("traders_builders").copies() for s in t.segments for mark in s.marks
    )

    def check(g: Game) -> None:
        held = Counter()
        for tokens in g.expansion(TradersBuilders).goods:
            held.update(dict(zip(GOODS, tokens, strict=True)))
        assert +held == goods_in_complete_cities(g) - at_setup
        assert all(held[kind] <= box[kind] for kind in GOODS)

    play(game, random.Random(play_seed), check)


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_each_tile_is_placed_once_and_never_more_than_the_sets_hold(
    options: GameOptions, play_seed: int
) -> None:
    game = Game(options)

    def tiles_in_play(g: Game) -> Counter[str]:
        current = [g.current_tile.id] if g.current_tile is not None else []
        placed = [p.tile.id for p in placed_tiles(g)]
        return Counter(placed + [t.id for t in g.stack + g.discarded] + current)

    everything = tiles_in_play(game)
    for tile_id, n in everything.items():
        set_name, name = tile_id.split("/")
        copies = options.copies if set_name == "base" else 1
        (tile,) = [t for t in tile_set(set_name).tiles if t.name == name]
        assert n <= tile.count * copies, tile_id
    play(game, random.Random(play_seed))
    assert game.current_tile is None and not game.stack
    assert tiles_in_play(game) == everything  # nothing lost, nothing duplicated
    by_players = sorted((p for p in placed_tiles(game) if p.seat is not None), key=lambda p: p.turn)
    assert [p.tile.id for p in by_players] == [t for t, discarded in game.draws if not discarded]
    assert sorted(t.id for t in game.discarded) == sorted(t for t, d in game.draws if d)


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_every_placed_tile_matches_all_its_neighbours(options: GameOptions, play_seed: int) -> None:
    game = play(Game(options), random.Random(play_seed))
    board = game.board
    for pos, placed in board.items():
        edges = placed.orientation.edges
        touches_earlier = placed.seat is None
        for d in range(4):
            neighbour = board.get(pos + DELTAS[d])
            if neighbour is None:
                continue
            theirs = neighbour.orientation.edges[OPPOSITE[d]]
            if BORDER not in (edges[d], theirs):
                assert edges[d] == theirs, f"{placed} side {d} against {neighbour}"
            touches_earlier |= neighbour.seat is None or neighbour.turn < placed.turn
        assert touches_earlier, f"{placed} at {decode(pos)} touched no tile placed before it"


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_scores_never_decrease(options: GameOptions, play_seed: int) -> None:
    game = Game(options)
    last = list(game.scores)

    def check(g: Game) -> None:
        nonlocal last
        assert all(now >= before for now, before in zip(g.scores, last, strict=True))
        last = list(g.scores)

    play(game, random.Random(play_seed), check)


def played_part_way(options: GameOptions, play_seed: int, cut: float) -> tuple[Game, random.Random]:
    """A game played at random for the share ``cut`` of its length, and the generator that
    played it (to go on with)."""
    rng = random.Random(play_seed)
    game = Game(options)
    length = len(play(Game(options), random.Random(play_seed)).history)
    for _ in range(int(cut * length)):
        game.apply(rng.choice(game.legal_actions()))
    return game, rng


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS, cut=st.floats(0, 1))
def test_a_copy_plays_identically_and_leaves_the_original_alone(
    options: GameOptions, play_seed: int, cut: float
) -> None:
    game, rng = played_part_way(options, play_seed, cut)
    before = snapshot(game)
    other = game.copy()
    play(other, rng)
    assert snapshot(game) == before
    for _, action in other.history[len(game.history) :]:
        game.apply(action)
    assert snapshot(game) == snapshot(other)


def feature_state(game: Game, g: int) -> tuple[object, ...]:
    f = game.seg_feature[g]
    marks = None if f.marks is None else dict(f.marks)
    lists = list(f.segments), list(f.figures), list(f.cities)
    return (f.kind, set(f.squares), f.open, f.coat_of_arms, f.complete, marks, *lists)


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS, cut=st.floats(0, 1))
def test_a_copy_shares_the_complete_features_and_neither_game_changes_them(
    options: GameOptions, play_seed: int, cut: float
) -> None:
    game, rng = played_part_way(options, play_seed, cut)
    other = game.copy()
    complete = [g for g, f in enumerate(game.seg_feature) if f.complete]
    assert all(other.seg_feature[g] is game.seg_feature[g] for g in complete)
    assert all(
        other.seg_feature[g] is not f for g, f in enumerate(game.seg_feature) if not f.complete
    )
    before = [feature_state(game, g) for g in complete]
    play(game, random.Random(play_seed + 1))
    play(other, rng)
    assert [feature_state(game, g) for g in complete] == before
    assert [feature_state(other, g) for g in complete] == before


def test_a_copy_has_every_attribute_of_the_game() -> None:
    # Game.copy() names each attribute (a compiled Game has no __dict__ to copy wholesale): a
    # new attribute it forgets would be missing from the copy, here in every phase of a game.
    game = Game(GameOptions(players=3, map="france", map_chips=True, abbot=True, bets=True, seed=4))
    rng = random.Random(4)
    phases: set[str] = set()
    # Pure, these are the __slots__; compiled, every native attribute (and the properties),
    # on Game and the classes it builds on (state.py declares them).
    names = [
        n
        for cls in Game.__mro__
        for n, v in vars(cls).items()
        if isinstance(v, MemberDescriptorType | GetSetDescriptorType)
    ]
    assert {"board", "seg_feature", "_queue"} <= set(names)
    while True:
        other = game.copy()
        for name in names:
            assert getattr(other, name) is not None or getattr(game, name) is None, name
        phases.add(game.phase)
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    assert {"tile", "figure", "bet", "wine", "over"} <= phases


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_the_view_never_reveals_the_stack_order(options: GameOptions, play_seed: int) -> None:
    shuffler = random.Random(play_seed ^ 0x5EED)

    def check(g: Game) -> None:
        if len({t.id for t in g.stack}) < 2 or shuffler.random() > 0.2:
            return
        other = g.copy()
        while [t.id for t in other.stack] == [t.id for t in g.stack]:
            shuffler.shuffle(other.stack)
        for seat in (None, *range(g.players)):
            assert other.view(seat) == g.view(seat)

    play(Game(options), random.Random(play_seed), check)


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_options_and_history_replay_every_score(options: GameOptions, play_seed: int) -> None:
    scores: list[list[int]] = []
    game = play(Game(options), random.Random(play_seed), lambda g: scores.append(list(g.scores)))
    replay = Game(game.options)
    for (seat, action), expected in zip(game.history, scores, strict=True):
        assert replay.to_move == seat
        replay.apply(action)
        assert replay.scores == expected
    assert replay.is_over
    assert replay.events == game.events


@EXAMPLES
@given(options=game_options(), play_seed=PLAY_SEEDS)
def test_illegal_actions_leave_the_game_unchanged(options: GameOptions, play_seed: int) -> None:
    # Replaying an action once its moment has passed is (almost always) illegal; whatever the
    # engine decides, a rejected action must change nothing.
    rng = random.Random(play_seed)
    game = Game(options)
    while not game.is_over:
        if game.history and rng.random() < 0.2:
            before = snapshot(game)
            try:
                game.apply(rng.choice(game.history)[1])
            except IllegalAction:
                assert snapshot(game) == before
            continue
        game.apply(rng.choice(game.legal_actions()))
