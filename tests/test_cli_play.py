"""`carcassonne play`: scripted keyboard sessions, and the tile drawing they rely on.

Sessions run through :func:`play_game` with an input function that replays a script and an
in-memory output, on short explicit stacks, so every test is a whole game in milliseconds.
Drawing tests check structure (where city, road and figures land), not a snapshot.
"""

from __future__ import annotations

import functools
import io
import itertools
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator

import pytest

from carcassonne import PASS, Game, GameOptions, PlaceFigure, PlaceTile
from carcassonne.cli.main import main
from carcassonne.cli.play import PLAY_AGAIN, parse_seats, play_game, play_games
from carcassonne.cli.render import (
    K_CENTRE,
    K_CITY,
    K_FIELD,
    K_ROAD,
    TILE_SIZE,
    _layout,
    board_columns,
    render_board,
    tile_block,
)
from carcassonne.cli.render_map import map_columns, render_map
from carcassonne.cli.wording import decision_label, describe_event, figure_label, generic_label
from carcassonne.expansions.abbot import RecallAbbot
from carcassonne.expansions.actions import PlaceBet, SellWine, SettleAgainst
from carcassonne.tiles import CITY, FIELD, GARDEN, MONASTERY, ROAD, tile_by_id, tile_set

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The start tile base/D is at (0, 0): city N, road W-E, field S.
SHORT_STACK = ("base/E", "base/U", "base/B", "base/K", "base/E")


class Script:
    """Input that answers prompts from a list, then behaves like a closed stdin."""

    def __init__(self, answers: Iterable[str]) -> None:
        self.answers: Iterator[str] = iter(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self.answers)
        except StopIteration:
            raise EOFError from None


def session(
    answers: Iterable[str],
    seats: tuple[str, ...] = ("human", "random"),
    stack: tuple[str, ...] = SHORT_STACK,
    **kwargs: object,
) -> tuple[Game, str, Script]:
    script = Script(answers)
    out = io.StringIO()
    hints = str(kwargs.pop("hints", "expert:iterations=6"))
    options = GameOptions(players=len(seats), stack=stack, **kwargs)  # type: ignore[arg-type]
    game = play_game(options, seats, script, out, terminal=(120, 60), hints=hints)
    return game, out.getvalue(), script


# ------------------------------------------------------------------------------- sessions


def test_human_vs_random_game_completes_with_final_scores() -> None:
    # "1" is always legal: the first placement, or the first figure option (the loop passes by
    # itself when no figure can be placed).
    game, out, _ = session(itertools.repeat("1"))
    assert game.is_over
    assert len(game.draws) == len(SHORT_STACK)
    assert "Final scores" in out
    assert "wins!" in out or "Shared victory" in out
    # the session's game is the engine's game: replaying its history gives the same scores
    replay = Game(game.options)
    for _, action in game.history:
        replay.apply(action)
    assert replay.scores == game.scores


def test_illegal_input_is_rejected_and_the_game_continues() -> None:
    bad = ["zz", "99", "0", "5 5 0", "0 0 90", "a 45", "a 90 7"]
    game, out, _ = session(itertools.chain(bad, ["1", "99", "p"], itertools.repeat("1")))
    assert "I did not understand 'zz'" in out
    assert "There is no move 99" in out
    assert "There is no move 0" in out
    assert "fits nowhere at (5, 5)" in out
    assert "already holds a tile" in out
    assert "A rotation is 0, 90, 180 or 270" in out
    assert "After square a type a rotation" in out
    assert "There is no option 99" in out
    assert "Traceback" not in out
    assert game.is_over
    # the bad lines changed nothing: the first human action is the first good answer
    first_seat, first_action = game.history[0]
    assert first_seat == 0 and isinstance(first_action, PlaceTile)
    assert game.history[1] == (0, PASS)  # "p" after the bad option number


def test_square_letter_and_coordinates_pick_the_same_move() -> None:
    by_letter, _, _ = session(["a", "p"], stack=("base/E",))  # a = (0, -1): only 180° fits
    by_xy, _, _ = session(["0 -1 180", "p"], stack=("base/E",))
    assert by_letter.history[0] == by_xy.history[0] == (0, PlaceTile(0, -1, 180))


def test_letter_of_square_with_several_rotations_asks_for_one() -> None:
    # base/L (city N, roads E S W) fits west of the start tile, square b, in three rotations
    game, out, _ = session(["b", "b 270", "p"], stack=("base/L",))
    assert "Several rotations fit on square b (0°, 180°, 270°): add one" in out
    assert game.history[0] == (0, PlaceTile(-1, 0, 270))


def test_symmetric_tile_accepts_an_equivalent_rotation_it_did_not_list() -> None:
    # the list offers (1, 0) at 0 degrees only; 180 is the same shape and the engine accepts it
    game, out, _ = session(["1 0 180", "p"], stack=("base/U",))
    assert game.history[0] == (0, PlaceTile(1, 0, 180))
    assert "Not allowed" not in out


def test_typed_placement_the_engine_refuses_is_explained() -> None:
    game, out, _ = session(["0 -1 0", "0 -1 180", "p"], stack=("base/E",))
    assert "Not allowed: base/E at rotation 0 does not match its neighbours at (0, -1)" in out
    assert game.history[0] == (0, PlaceTile(0, -1, 180))


def test_undo_takes_back_the_tile_just_placed() -> None:
    game, out, _ = session(["0 -1 180", "u", "0 1 180", "p"], stack=("base/E",))
    assert "Undone: back to turn 1, tile step." in out
    assert game.history == [(0, PlaceTile(0, 1, 180)), (0, PASS)]


def test_undo_before_any_move_says_so() -> None:
    game, out, _ = session(["u", "q"])
    assert "Nothing to undo yet." in out
    assert not game.history


def test_undo_also_takes_back_the_bot_moves_after_it() -> None:
    answers = ["1", "p", "u", "u", "q"]
    game, _, _ = session(answers)
    # after "1", "p" the bot moved; the first undo returns to the figure step, the second to
    # the start
    assert game.history == []


def test_help_lists_the_commands_and_symbols() -> None:
    _, out, _ = session(["h", "q"])
    assert "u undo your last move" in out
    assert "[M] monastery" in out


def test_quit_without_save_stops_cleanly() -> None:
    game, out, script = session(["q"])
    assert "Game stopped." in out
    assert not game.is_over
    assert len(script.prompts) == 1


def test_closed_input_stops_without_a_traceback() -> None:
    game, out, _ = session([])
    assert "Game stopped." in out
    assert not game.is_over


def test_quit_offers_to_save_and_the_record_replays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from carcassonne.formats.record import load_record

    path = tmp_path / "game.json"
    script = Script(["1", "p", "q", "y"])
    out = io.StringIO()
    game = play_game(
        GameOptions(stack=SHORT_STACK), ["human", "random"], script, out, save_path=str(path)
    )
    assert f"Save the unfinished game to {path}? [Y/n] " in script.prompts
    assert f"Saved to {path}." in out.getvalue()
    assert load_record(path).history == game.history


def test_end_of_game_offers_to_save(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from carcassonne.formats.record import load_record

    path = tmp_path / "done.json"
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return "y" if prompt.startswith("Save") else "1"

    game = play_game(
        GameOptions(stack=("base/E", "base/U")),
        ["human", "greedy"],
        answer,
        io.StringIO(),
        save_path=str(path),
    )
    assert game.is_over
    assert prompts[-1] == f"Save the game record to {path}? [Y/n] "
    assert load_record(path).scores == game.scores


def test_saving_over_a_file_says_so_and_no_keeps_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "kept.json"
    path.write_text("my earlier game", encoding="utf-8")
    script = Script(["q", "n"])
    out = io.StringIO()
    play_game(GameOptions(stack=SHORT_STACK), ["human", "random"], script, out, save_path=str(path))
    assert script.prompts[-1] == f"Save the unfinished game to {path} (replacing it)? [Y/n] "
    assert path.read_text(encoding="utf-8") == "my earlier game"
    assert "Saved" not in out.getvalue()


def test_no_figure_left_passes_by_itself() -> None:
    # Red's only meeple goes on the open road at (1, 0); on Red's next tile there is no figure
    stack = ("base/U", "base/U", "base/U")
    game, out, script = session(["1 0 0", "1", "1"], stack=stack, meeples=1)
    assert "Red (you): no figure (none can go on this tile)." in out
    assert game.is_over
    assert len(script.prompts) == 3
    assert game.history[-1] == (0, PASS)


def test_bots_only_game_prints_every_turn_and_the_result() -> None:
    game, out, script = session([], seats=("random", "greedy"))
    assert game.is_over
    assert not script.prompts
    assert out.count("Turn ") >= len(SHORT_STACK)
    assert "Final scores" in out


def test_an_expert_seat_plays_and_is_named_with_its_parameters() -> None:
    game, out, _ = session([], seats=("expert:iterations=4,depth=0", "greedy"))
    assert game.is_over
    assert "Red (expert bot, depth 0, iterations 4)" in out


def test_hint_lists_the_experts_best_moves_as_they_are_typed() -> None:
    game, out, _ = session(["hint", "q"])
    hints = re.findall(
        r"^  (\d)\. ([a-z]+) (\d+): square \2 at \((-?\d+), (-?\d+)\), rotation "
        r"\3°  \(expected lead ([-+]\d+\.\d) points over the best opponent\)$",
        out,
        re.MULTILINE,
    )
    assert [h[0] for h in hints] == ["1", "2", "3"]
    assert "Hints (expert:iterations=6):" in out
    leads = [float(h[5]) for h in hints]
    assert leads == sorted(leads, reverse=True)
    legal = Game(game.options).legal_actions()
    assert all(PlaceTile(int(h[3]), int(h[4]), int(h[2])) in legal for h in hints)
    assert "asked for a hint" not in out  # alone at the table nobody needs telling


def test_a_hint_typed_back_is_played() -> None:
    """The first hint, typed as shown, is a legal move the session accepts."""
    _, out, _ = session(["hint", "q"])
    typed = re.search(r"^  1\. ([a-z]+ \d+):", out, re.MULTILINE)
    assert typed is not None
    game, _, _ = session(["hint", typed.group(1), "q"])
    assert len(game.history) >= 1 and isinstance(game.history[0][1], PlaceTile)


def test_a_hint_is_shown_to_the_other_humans() -> None:
    _, out, script = session(["hint", "1", "p", "1"], seats=("human", "human"))
    assert script.prompts.count("Blue> ") >= 1
    assert "Red asked for a hint." in out


def test_hotseat_names_each_human_at_the_prompt() -> None:
    _, _, script = session(itertools.repeat("1"), seats=("human", "human"))
    assert {"Red> ", "Blue> "} <= set(script.prompts)


def test_scores_of_a_turn_are_reported_with_their_breakdown() -> None:
    # Red closes the start tile's city with base/E at (0, -1) and a meeple on it: 2 tiles = 4
    _, out, _ = session(["0 -1 180", "1", "q"], stack=("base/E", "base/U"))
    assert "City completed (2 tiles = 4): Red (you) +4." in out


def test_bets_are_listed_and_other_seats_chips_stay_hidden() -> None:
    from carcassonne.expansions.bets import PlaceBet

    # Red places a bookmaker tile and passes; then both seats may bet (step 4): Red, then Blue
    out = io.StringIO()
    screens: list[tuple[str, str]] = []  # (prompt, what was printed before it)
    answers = iter(["1", "p", "4", "", "2", "q"])

    def answer(prompt: str) -> str:
        screens.append((prompt, out.getvalue()))
        out.seek(0)
        out.truncate()
        return next(answers)

    game = play_game(
        GameOptions(bets=True, stack=("bets/01", "base/E")),
        ["human", "human"],
        answer,
        out,
        terminal=(120, 40),
    )
    prompts = [prompt for prompt, _ in screens]
    assert prompts == [
        "Red> ",
        "Red> ",
        "Red> ",
        "Hand the keyboard to Blue and press Enter. ",
        "Blue> ",
        "Blue> ",
    ]
    blue_bets = screens[4][1]
    assert "B Blue: bet — choose:" in blue_bets
    assert " 0) pass" in blue_bets and "1) place bet chip 2/6" in blue_bets
    # Blue sees that Red's chip lies on the office, but not which it is; Red's "4" shows nowhere
    assert "Bets on the office at (0, -1), settled when its road or city is completed" in blue_bets
    assert "at the end: Red's face-down chip." in blue_bets
    assert "Red: bet at (0, -1)." in blue_bets
    assert "chip 4" not in blue_bets.replace("place bet chip 4", "")
    assert "You hold six betting chips: 2/6, 3/5, 3/6, 4, 4/7+, 5/8+." in blue_bets
    assert "Red holds five betting chips, face down." in blue_bets
    assert game.history[-2:] == [(0, PlaceBet("4")), (1, PlaceBet("3/5"))]


def test_the_first_screen_of_a_france_game_says_what_chips_everybody_holds() -> None:
    options = {"map": "france", "map_chips": True, "bets": True, "seed": 5}
    _, out, _ = session(["q"], stack=None, **options)  # type: ignore[arg-type]
    assert "You hold no map chip: place a tile on a ● to take one." in out
    assert "Blue holds no map chip." in out
    assert "On the map: 30 chips face down (●)." in out
    assert "You hold six betting chips: 2/6, 3/5, 3/6, 4, 4/7+, 5/8+." in out
    assert "Blue holds six betting chips, face down." in out
    assert "No bets lie on any office." in out
    assert "in front:" not in out and "supply counts" not in out


def test_panels_name_each_seats_chips_from_its_own_view_only() -> None:
    from carcassonne.bots import make_bot
    from carcassonne.cli.panels import bets_lines, map_chips_lines

    game = Game(GameOptions(players=2, map="france", map_chips=True, bets=True, seed=1))
    bots = [make_bot("greedy", 1), make_bot("greedy", 2)]

    def both_bet_and_hold_chips() -> bool:
        view = game.view(None)["expansions"]
        bet = any(len({c["seat"] for c in o["chips"]}) == 2 for o in view["bets"]["offices"])
        return bet and all(view["map-chips"]["in_front"])

    while not both_bet_and_hold_chips():
        assert not game.is_over, "no moment with both seats' bets on one office"
        game.apply(bots[game.to_move].choose(game))
    for seat, other in ((0, "Blue"), (1, "Red")):
        view = game.view(seat)["expansions"]
        office = next(o for o in view["bets"]["offices"] if len(o["chips"]) >= 2)
        mine = [c["chip"] for c in office["chips"] if c["seat"] == seat]
        theirs = sum(1 for c in office["chips"] if c["seat"] != seat)
        text = "\n".join(bets_lines(game, view["bets"], seat, False))
        line = next(x for x in text.splitlines() if f"({office['x']}, {office['y']})" in x)
        assert line.count(f"{other}'s face-down chip") == theirs
        assert line.count("your ") == len(mine)
        for chip in mine:
            assert f"your {chip}" in line
        supply = view["bets"]["supply"]
        assert (f"betting chips: {', '.join(supply)}." if supply else "no betting chip") in text
        chips = map_chips_lines(game, view["map-chips"], seat, False)
        held = view["map-chips"]["in_front"][1 - seat]
        assert chips[1].startswith(f"{other} holds the map chip")
        for chip in held:
            assert f"{chip['colour'].replace('-', ' ')} {chip['value']}" in chips[1]


def test_map_chips_make_wine_by_colour() -> None:
    from carcassonne.cli.panels import _wines

    def chips(*pairs: tuple[str, int]) -> list[dict[str, object]]:
        return [{"colour": c, "value": v} for c, v in pairs]

    assert _wines(chips(("purple", 1))) == ""
    assert _wines(chips(("purple", 1), ("orange", 1))) == ""
    assert _wines(chips(("purple", 1), ("purple", 1))) == ", enough for one purple wine"
    # a 1 and a 2 of one colour are one wine, never a 1+2 (docs/rules.md §5)
    assert _wines(chips(("orange", 2), ("orange", 1), ("light-blue", 2))) == (
        ", enough for one orange wine and one light blue wine"
    )


# ------------------------------------------------------------------------------ describing


def test_figure_options_are_named_as_players_say_them() -> None:
    game = Game(stack=("base/A", "base/E"), abbot=True)
    game.apply(PlaceTile(0, 1, 0))  # monastery with a road south, below the start tile
    assert figure_label(game, PlaceFigure("meeple", "monastery")) == "meeple on monastery"
    assert figure_label(game, PlaceFigure("abbot", "monastery")) == "abbot on monastery"
    assert figure_label(game, PlaceFigure("meeple", "NL")) == "farmer on field NL"
    assert figure_label(game, PlaceFigure("meeple", "S")) == "meeple on road S"
    assert figure_label(game, PASS) == "no figure"
    assert generic_label(RecallAbbot(2, 1)) == "recall abbot at (2, 1)"


def test_field_event_counts_completed_cities() -> None:
    from carcassonne import ScoreEvent

    event = ScoreEvent(
        9,
        "field",
        "final",
        {1: 6},
        figures={1: 2, 0: 1},
        detail={"completed_cities": 2, "value": 6, "per_city": {1: 3}},
    )
    text = describe_event(event, ["Red", "Blue"])
    assert text == "Field (2 completed cities × 3 = 6) [figures: Red 1, Blue 2]: Blue +6."


def test_d45_a_field_with_a_pig_states_each_winners_rate() -> None:
    from carcassonne import ScoreEvent

    event = ScoreEvent(
        9,
        "field",
        "final",
        {0: 8, 1: 6},
        figures={1: 1, 0: 1},
        detail={"completed_cities": 2, "value": 6, "per_city": {0: 4, 1: 3}},
    )
    text = describe_event(event, ["Red", "Blue"])
    assert text == (
        "Field (2 completed cities × 4 = 8 or 2 completed cities × 3 = 6)"
        " [figures: Red 1, Blue 1]: Red +8, Blue +6."
    )


def test_completed_feature_without_figures_scores_nobody() -> None:
    from carcassonne import ScoreEvent

    event = ScoreEvent(3, "road", "completed", {}, tiles=3, detail={"value": 3})
    assert describe_event(event, ["Red", "Blue"]) == (
        "Road completed (3 tiles = 3): nobody had a figure there."
    )


def test_parse_seats() -> None:
    assert parse_seats(None, None) == ["human", "greedy"]
    assert parse_seats(None, 3) == ["human", "greedy", "greedy"]
    assert parse_seats("human, Random,human", None) == ["human", "random", "human"]
    assert parse_seats("human,expert:seconds=2,iterations=50,greedy:seed=1", None) == [
        "human",
        "expert:iterations=50,seconds=2.0",
        "greedy:seed=1",
    ]
    with pytest.raises(ValueError, match="seat 'expert:seconds=-1': bot 'expert': seconds must"):
        parse_seats("human,expert:seconds=-1", None)
    with pytest.raises(ValueError, match="unknown seat 'robot'"):
        parse_seats("human,robot", None)
    with pytest.raises(ValueError, match="does not match"):
        parse_seats("human,random", 3)


def test_command_rejects_bad_seats_without_traceback(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["play", "--seats", "human,wizard"]) == 2
    assert "unknown seat 'wizard'" in capsys.readouterr().err


def test_command_rejects_bad_game_options(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["play", "--players", "7"]) == 2
    assert "argument --players: must be from 2 to 6, not 7" in capsys.readouterr().err
    assert main(["play", "--map-chips"]) == 2
    assert "carcassonne play: error: map chips need a map" in capsys.readouterr().err


# -------------------------------------------------------------------------------- drawing


def _plain(orientation_id: str, rotation: int = 0, **kwargs: object) -> list[str]:
    tile = tile_by_id(orientation_id)
    return tile_block(tile.orientations[rotation // 90], colour=False, **kwargs)  # type: ignore


def test_city_edge_is_drawn_on_its_side() -> None:
    width, height = TILE_SIZE
    east = _plain("base/E", 90)  # city N turned to the east
    assert all(row[-1] == "#" for row in east[1:-1])
    assert all(row[0] == "." for row in east)
    north = _plain("base/E", 0)
    assert north[0] == "#" * width
    assert "#" not in "".join(north[1:])


def test_straight_road_crosses_the_middle_row() -> None:
    rows = _plain("base/U", 0)
    middle = TILE_SIZE[1] // 2
    assert rows[middle] == "─" * TILE_SIZE[0]
    turned = _plain("base/U", 90)
    assert all(row[TILE_SIZE[0] // 2] == "│" for row in turned)


def test_monastery_in_the_centre_and_road_stops_at_it() -> None:
    rows = _plain("base/A", 0)
    cx, cy = TILE_SIZE[0] // 2, TILE_SIZE[1] // 2
    assert rows[cy][cx - 1 : cx + 2] == "[M]"
    assert all(rows[r][cx] == "│" for r in range(cy + 1, TILE_SIZE[1]))


def test_two_separate_cities_keep_a_field_between_them() -> None:
    rows = _plain("base/H", 0)  # cities N and S, field between
    assert rows[0] == "#" * TILE_SIZE[0] and rows[-1] == "#" * TILE_SIZE[0]
    assert "#" not in "".join(rows[1:-1])


def test_figures_stand_on_their_feature_in_seat_letters() -> None:
    # base/K: city N, road S-W, fields; Red farmer on field NL? (K has the big field at EL)
    tile = tile_by_id("base/K").orientations[0]
    layout = _layout(tile, TILE_SIZE)
    rows = tile_block(
        tile, [("N", 0, "meeple"), ("S", 1, "meeple"), ("EL", 2, "meeple")], colour=False
    )
    found = {ch: (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "RBY"}
    assert layout.kinds[found["R"][0]][found["R"][1]] == K_CITY
    assert layout.kinds[found["B"][0]][found["B"][1]] == K_ROAD
    assert layout.kinds[found["Y"][0]][found["Y"][1]] == K_FIELD
    abbot = tile_block(tile_by_id("base/B").orientations[0], [("monastery", 1, "abbot")], False)
    assert "[b]" in abbot[TILE_SIZE[1] // 2]


@pytest.mark.parametrize("set_name", ["base", "river", "bets"])
def test_every_segment_gets_its_own_cell_of_its_kind(set_name: str) -> None:
    expected = {CITY: K_CITY, ROAD: K_ROAD, FIELD: K_FIELD, MONASTERY: K_CENTRE, GARDEN: K_CENTRE}
    for tile in tile_set(set_name).tiles:
        for orientation in tile.orientations:
            layout = _layout(orientation, TILE_SIZE)
            cells = list(layout.anchors.values())
            assert len(set(cells)) == len(cells), (tile.id, orientation.rotation)
            for index, (r, c) in layout.anchors.items():
                kind = orientation.segments[index].kind
                assert layout.kinds[r][c] == expected[kind], (tile.id, orientation.rotation, kind)
                assert layout.segs[r][c] == index


def test_colour_block_has_the_same_shape_as_plain() -> None:
    tile = tile_by_id("base/J").orientations[1]
    coloured = tile_block(tile, [("N", 0, "meeple")], colour=True, highlight=True)
    plain = tile_block(tile, [("N", 0, "meeple")], colour=False, highlight=True)
    assert any("\x1b[" in row for row in coloured)
    assert [len(ANSI.sub("", row)) for row in coloured] == [TILE_SIZE[0]] * TILE_SIZE[1]
    assert plain[0][0] == "┏" and plain[-1][-1] == "┛"


def test_board_has_axes_and_candidate_labels() -> None:
    game = Game(stack=("base/E",))
    lines = render_board(game, colour=False, labels={(0, -1): "a"})
    assert lines[0].split() == ["0"]
    assert any(line.startswith("-1 ") and " a " in line for line in lines)
    assert any(line.startswith(" 0 ") for line in lines)
    assert len(lines) == 1 + 2 * TILE_SIZE[1]


# --------------------------------------------------------------------- a map in 80 columns

FRANCE = ("--map", "france", "--map-chips", "--bets", "--seed", "5")


def assert_framed_within(lines: list[str], width: int) -> None:
    """The map, from its x axis to its frame's bottom, at most ``width`` wide, in one closed
    frame whose sides line up."""
    plain = [ANSI.sub("", line) for line in lines]
    top = next(i for i, line in enumerate(plain) if "┌" in line)
    bottom = next(i for i, line in enumerate(plain) if "└" in line)
    assert max(len(line) for line in plain[top - 1 : bottom + 1]) <= width
    left, right = plain[top].index("┌"), plain[top].index("┐")
    assert (plain[bottom].index("└"), plain[bottom].index("┘")) == (left, right)
    for line in plain[top + 1 : bottom]:
        assert len(line) == right + 1 and line[left] in "│┊" and line[right] in "│┊", line


def test_the_france_map_fits_80_columns_with_its_frame_whole() -> None:
    # COLUMNS is what shutil.get_terminal_size reads first: the command as run in 80 columns
    done = subprocess.run(
        [sys.executable, "-m", "carcassonne.cli.main", "play", *FRANCE],
        input="q\n",
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80", "LINES": "24"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)  # the whole screen
    assert_framed_within(lines, 80)
    axis = lines[lines.index(next(line for line in lines if "┌" in line)) - 1]
    assert axis.split()[:1] == ["0"] and axis.rstrip().endswith("14 ›")  # 15 of 16 columns
    assert "Columns 0 to 14 shown (┊: the map goes on); a terminal 85 columns wide" in done.stdout


@pytest.mark.parametrize("colour", [False, True])
@pytest.mark.parametrize("width", [60, 80, 84])
def test_a_cut_map_keeps_its_frame_at_any_width(colour: bool, width: int) -> None:
    out = io.StringIO()
    options = GameOptions(players=2, map="france", map_chips=True, seed=5)
    play_game(options, ["human", "greedy"], Script([]), out, colour=colour, terminal=(width, 24))
    assert_framed_within(out.getvalue().splitlines(), width)


def test_the_cut_map_shows_the_squares_where_the_tile_fits() -> None:
    game = Game(players=2, map="france", seed=5)
    assert map_columns(game, {(15, 4): "a"}, (5, 3), 80) == (1, 15)
    assert map_columns(game, {(0, 4): "a"}, (5, 3), 80) == (0, 14)
    assert map_columns(game, {(0, 4): "a"}, (5, 3), 85) == (0, 15)  # all of it fits
    # too far apart to show all three in 7 columns: the two that can be shown together
    first, last = map_columns(game, {(0, 4): "a", (1, 4): "b", (15, 4): "c"}, (5, 3), 40)
    assert first == 0 and last == 6
    lines = render_map(game, colour=False, labels={(15, 4): "a"}, columns=(1, 15))
    assert any(" a " in line for line in lines)
    assert all(line[3] == "┊" and line[-1] == "│" for line in lines[2:-1])
    with pytest.raises(ValueError, match="columns 3-16 are not on a map 16 wide"):
        render_map(game, colour=False, columns=(3, 16))


@pytest.mark.parametrize("options", [{}, {"map": "france", "map_chips": True, "bets": True}])
def test_every_screen_of_a_few_turns_fits_80_columns(options: dict[str, object]) -> None:
    out = io.StringIO()
    game_options = GameOptions(players=2, seed=7, **options)  # type: ignore[arg-type]
    script = Script(["1"] * 12)
    play_game(game_options, ["human", "greedy"], script, out, colour=True, terminal=(80, 24))
    lines = ANSI.sub("", out.getvalue()).splitlines()
    assert (
        len(script.prompts) == 13
    )  # six turns of the human's, tile and figure, then the end of input
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert any(line.startswith("Turn 5 · R Red (you) placed ") for line in lines)


def test_a_board_wider_than_the_terminal_is_cut_around_the_action() -> None:
    # two humans lay 18 straight roads east of the start tile: 20 columns with the next square
    answers = [step for x in range(1, 19) for step in (f"{x} 0 0", "p")]
    out = io.StringIO()
    options = GameOptions(players=2, stack=("base/U",) * 18, copies=3)
    game = play_game(options, ["human", "human"], Script(answers), out, terminal=(80, 24))
    assert game.is_over and len(game.board) == 19
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert "‹ ›: the board goes on" in out.getvalue()
    # the last tile's screen shows the square where it fits at the east end, (18, 0)
    axis = [line for line in lines if line.rstrip().endswith(" 18")][-1]
    assert axis.lstrip().startswith("‹")


def test_board_columns_keep_the_labelled_squares_in_view() -> None:
    game = Game(stack=("base/U",) * 14, copies=2)
    for x in range(1, 15):
        game.apply(PlaceTile(x, 0, 0))
        game.apply(PASS)
    labels = {(-1, 0): "a"}
    assert board_columns(game, labels, (5, 3), 80) == (-1, 13)
    assert board_columns(game, labels, (5, 3), 200) == (-1, 14)  # all of it fits
    lines = render_board(game, colour=False, labels=labels, size=(5, 3), columns=(-1, 13))
    assert lines[0].rstrip().endswith("13 ›")
    assert any(line.startswith("0 · a ·") for line in lines)


def test_expansion_decisions_are_named_as_players_say_them() -> None:
    # the wine and settling menus offered "sell wine outlet export colour purple chips 2"
    assert decision_label(SellWine("export", "purple", (2,))) == (
        "sell one purple wine (chip 2) by export: +5"
    )
    assert decision_label(SellWine("town", "light-blue", (1, 1))) == (
        "sell one light blue wine (chips 1 + 1) to the town: +9"
    )
    assert decision_label(SettleAgainst(3, -1, "road", "S")) == (
        "settle the bets at (3, -1) against its road S"
    )
    assert decision_label(PlaceBet("3/5")) == "place bet chip 3/5"
    assert decision_label(RecallAbbot(2, 1)) == "recall abbot at (2, 1)"
    assert decision_label(PASS) == "pass"


def test_a_random_seed_is_not_shown_before_the_game_is_over() -> None:
    # The seed the program drew fixes the stack's order: shown during the game, a player could
    # deal the same game elsewhere and read what comes next. The game-over screen tells it.
    script = Script(itertools.repeat("1"))
    out = io.StringIO()
    game = play_game(GameOptions(), ["human", "random"], script, out, terminal=(120, 60))
    playing, over = out.getvalue().split("Carcassonne · game over")
    assert game.options.seed is not None
    assert "seed" not in playing
    assert f"seed {game.options.seed}" in over


def test_a_seed_the_player_chose_stays_in_the_header() -> None:
    _, out, _ = session(itertools.repeat("1"), stack=None, seed=5)  # type: ignore[arg-type]
    assert out.startswith("Carcassonne · turn 1 · 70 tiles left · seed 5")


def test_bets_map_chips_wine_and_goods_are_told_in_sentences() -> None:
    # They were their fields' dump: "Bet completed at (5, 8) (Red, chip 4, feature road,
    # location N, tiles 2, paid 0): Red +0."
    from carcassonne import ScoreEvent

    def told(source: str, reason: str, points: dict[int, int], **detail: object) -> str:
        return describe_event(ScoreEvent(5, source, reason, points, detail=detail), NAMES)

    NAMES = ["Red", "Blue"]
    bet = {"owner": 1, "chip": "4", "square": [5, 8], "feature": "road", "location": "N"}
    assert told("bet", "completed", {1: 0}, **bet, tiles=2, paid=0) == (
        "Bet at (5, 8): Blue's chip 4 loses — the road has 2 tiles (completed)."
    )
    assert told("bet", "final", {1: 8}, **bet, tiles=4, paid=8) == (
        "Bet at (5, 8): Blue's chip 4 wins 8 — the road has 4 tiles (final scoring)."
    )
    assert told("map-chip", "collected", {0: 2}, square=[8, 10], colour="purple", value=2) == (
        "Red collects a purple map chip (2) at (8, 10): +2."
    )
    assert told("wine", "export", {0: 5}, colour="light-blue", chips=[1, 1]) == (
        "Red exports light blue wine (chips 1 + 1): +5."
    )
    town = {"colour": "orange", "chips": [2], "town": "Clermont-Ferrand", "square": [9, 9]}
    assert told("wine", "town", {1: 9}, **town) == (
        "Blue sells orange wine (chip 2) in Clermont-Ferrand at (9, 9): +9."
    )
    assert told("goods", "final", {0: 10}, goods="wine", tokens=6) == (
        "Red has the most wine (6 tokens): +10."
    )


def test_the_humans_own_bet_is_told_as_yours() -> None:
    # "Bet at (5, 8): Red (you)'s chip 4 ..." read oddly for the one human at the keyboard
    from carcassonne import ScoreEvent

    bet = {"owner": 0, "chip": "4", "square": [5, 8], "feature": "road", "location": "N"}
    event = ScoreEvent(5, "bet", "completed", {0: 8}, detail={**bet, "tiles": 4, "paid": 8})
    assert describe_event(event, ["Red (you)", "Blue"]) == (
        "Bet at (5, 8): your chip 4 wins 8 — the road has 4 tiles (completed)."
    )


def test_an_office_on_two_cities_says_they_are_completed() -> None:
    # "settled when its road or two cities is completed"
    from types import SimpleNamespace

    from carcassonne.board import encode
    from carcassonne.cli.panels import _office_features

    def office(*kinds: str) -> SimpleNamespace:
        segments = [SimpleNamespace(kind=kind) for kind in kinds]
        placed = SimpleNamespace(orientation=SimpleNamespace(segments=segments))
        return SimpleNamespace(board={encode(0, 0): placed})

    assert _office_features(office(ROAD, CITY, FIELD), 0, 0) == "its road or city is"
    assert _office_features(office(ROAD, CITY, CITY), 0, 0) == "its road or two cities are"
    assert _office_features(office(ROAD, ROAD), 0, 0) == "its two roads are"


def test_play_again_rotates_the_seats_with_a_new_seed() -> None:
    """After a game played to its end, the players may play again at once: the same options
    and table with a new seed (not the chosen one), each seat one earlier, so the second player
    starts; "no" (or closed input) stops."""
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        if prompt == PLAY_AGAIN:
            return "y" if prompts.count(PLAY_AGAIN) == 1 else "n"
        return "1"

    out = io.StringIO()
    options = GameOptions(stack=("base/E", "base/U"), seed=5)
    play_one = functools.partial(play_game, input_fn=answer, output=out, terminal=(120, 60))
    first, second = play_games(options, ["human", "greedy"], answer, play_one)
    assert first.is_over and second.is_over and prompts.count(PLAY_AGAIN) == 2
    assert first.options.seed == 5 and second.options.seed != 5
    assert second.options.with_(seed=5) == first.options
    # the person was Red (the first seat) and is Blue in the second game, the bot Red
    shown = out.getvalue()
    assert "Red (you)" in shown and "Blue (greedy bot)" in shown
    assert "Blue (you)" in shown and "Red (greedy bot)" in shown
    # input closed at the question: one game
    script = Script(["1"] * 10)
    play_one = functools.partial(play_game, input_fn=script, output=io.StringIO())
    (only,) = play_games(options, ["human", "greedy"], script, play_one)
    assert only.is_over
