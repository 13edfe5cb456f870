"""Time controls and clocks (issue 24) on a fake clock: the caller gives every time."""

from __future__ import annotations

import pytest

from carcassonne.clocks import (
    DAY_MS,
    HOUR_MS,
    MINUTE_MS,
    NO_CLOCK,
    PRESETS,
    SECOND_MS,
    Clocks,
    TimeControl,
    TimeControlError,
    parse,
)

FIVE_20 = PRESETS["5+20"]
THREE_DAYS = PRESETS["3d"]


def started(control: TimeControl, players: int = 2, clocked: set[int] | None = None) -> Clocks:
    """Clocks after an untimed first ply of seat 0 at time 0; seat 1 to move from then on."""
    clocks = Clocks(control, players, clocked)
    clocks.start(0, 0, True)
    clocks.moved(0, 50_000, 1, True)  # the first ply took 50 s, charged nothing
    return clocks


# ------------------------------------------------------------------------- time controls


def test_presets_are_the_designed_ones() -> None:
    assert PRESETS["5+20"] == TimeControl("real-time", 5 * MINUTE_MS, 20 * SECOND_MS)
    assert PRESETS["10+30"] == TimeControl("real-time", 10 * MINUTE_MS, 30 * SECOND_MS)
    assert PRESETS["20+60"] == TimeControl("real-time", 20 * MINUTE_MS, 60 * SECOND_MS)
    for name, days in (("1d", 1), ("3d", 3), ("7d", 7)):
        assert PRESETS[name] == TimeControl("turn-based", days * DAY_MS, DAY_MS)
        assert PRESETS[name].capped
    assert not FIVE_20.capped and FIVE_20.timed and not NO_CLOCK.timed


@pytest.mark.parametrize("control", [NO_CLOCK, *PRESETS.values()])
def test_json_round_trip(control: TimeControl) -> None:
    assert TimeControl.from_json(control.to_json()) == control


def test_json_of_none_is_just_the_kind() -> None:
    assert NO_CLOCK.to_json() == {"kind": "none"}
    assert FIVE_20.to_json() == {"kind": "real-time", "initial_ms": 300000, "increment_ms": 20000}


@pytest.mark.parametrize(
    ("data", "reason", "words"),
    [
        ([], "clock_shape", "JSON object"),
        ({}, "clock_kind", "missing 'kind'"),
        ({"kind": "blitz", "initial_ms": 1, "increment_ms": 0}, "clock_kind", "'blitz'"),
        ({"kind": "real-time", "initial_ms": 300000}, "clock_shape", "'increment_ms'"),
        ({"kind": "real-time", "initial_ms": 3e5, "increment_ms": 0}, "clock_shape", "whole"),
        ({"kind": "real-time", "initial_ms": True, "increment_ms": 0}, "clock_shape", "whole"),
        ({"kind": "none", "speed": 1}, "clock_shape", "'speed'"),
        ({"kind": "real-time", "initial_ms": 59_999, "increment_ms": 0}, "clock_range", "1 min"),
        (
            {"kind": "real-time", "initial_ms": 181 * MINUTE_MS, "increment_ms": 0},
            "clock_range",
            "to 3 h",
        ),
        (
            {"kind": "real-time", "initial_ms": MINUTE_MS, "increment_ms": 601 * SECOND_MS},
            "clock_range",
            "the increment",
        ),
        (
            {"kind": "real-time", "initial_ms": MINUTE_MS, "increment_ms": -1},
            "clock_range",
            "the increment",
        ),
        (
            {"kind": "turn-based", "initial_ms": 15 * DAY_MS, "increment_ms": DAY_MS},
            "clock_range",
            "14 days",
        ),
        (
            {"kind": "turn-based", "initial_ms": DAY_MS, "increment_ms": HOUR_MS - 1},
            "clock_range",
            "time per move",
        ),
        (
            {"kind": "turn-based", "initial_ms": DAY_MS, "increment_ms": DAY_MS + 1},
            "clock_range",
            "time per move",
        ),
    ],
)
def test_bad_json_is_refused_with_its_reason(data: object, reason: str, words: str) -> None:
    with pytest.raises(TimeControlError, match=words) as caught:
        TimeControl.from_json(data)
    assert caught.value.reason == reason


def test_bounds_are_inclusive() -> None:
    assert TimeControl.checked("real-time", MINUTE_MS, 0).initial_ms == MINUTE_MS
    assert TimeControl.checked("real-time", 180 * MINUTE_MS, 600 * SECOND_MS).timed
    assert TimeControl.checked("turn-based", 14 * DAY_MS, 14 * DAY_MS).capped
    assert TimeControl.checked("turn-based", DAY_MS, HOUR_MS).increment_ms == HOUR_MS


@pytest.mark.parametrize(
    ("text", "control"),
    [
        ("none", NO_CLOCK),
        ("5+20", FIVE_20),
        (" 3D ", THREE_DAYS),
        ("15+10", TimeControl("real-time", 15 * MINUTE_MS, 10 * SECOND_MS)),
        ("2d", TimeControl("turn-based", 2 * DAY_MS, DAY_MS)),
        ("2d+12h", TimeControl("turn-based", 2 * DAY_MS, 12 * HOUR_MS)),
    ],
)
def test_parse(text: str, control: TimeControl) -> None:
    assert parse(text) == control


@pytest.mark.parametrize(
    ("text", "words"),
    [("fast", "write none"), ("0+5", "from 1 min"), ("20d", "14 days"), ("1d+25h", "per move")],
)
def test_parse_refuses_with_a_clear_error(text: str, words: str) -> None:
    with pytest.raises(TimeControlError, match=words):
        parse(text)


def test_describe() -> None:
    assert FIVE_20.describe() == "5 min + 20 s per turn"
    assert THREE_DAYS.describe() == "a bank of 3 days + 1 day per move, capped at the bank"
    assert NO_CLOCK.describe() == "no clock"


# ------------------------------------------------------------------------------- clocks


def test_first_ply_is_not_timed() -> None:
    clocks = Clocks(FIVE_20, 2)
    clocks.start(0, 0, True)
    assert clocks.running is None and clocks.deadline_ms() is None
    assert clocks.remaining_ms(0, 10 * MINUTE_MS) == 5 * MINUTE_MS
    clocks.moved(0, 10 * MINUTE_MS, 1, True)
    assert clocks.spent_ms == [0]
    # seat 0's stint ended: it earns the increment; seat 1 now runs
    assert clocks.remaining_ms(0) == 5 * MINUTE_MS + 20 * SECOND_MS
    assert clocks.running == 1
    assert clocks.deadline_ms() == 10 * MINUTE_MS + 5 * MINUTE_MS


def test_running_seat_counts_down_and_others_do_not() -> None:
    clocks = started(FIVE_20)
    assert clocks.remaining_ms(1, 50_000 + 7_000) == 5 * MINUTE_MS - 7_000
    assert clocks.remaining_ms(0, 50_000 + 7_000) == 5 * MINUTE_MS + 20_000


def test_increment_only_at_the_end_of_a_stint() -> None:
    clocks = started(FIVE_20)
    clocks.moved(1, 60_000, 1, True)  # the tile: 10 s, seat 1 decides again (figure)
    assert clocks.remaining_ms(1) == 5 * MINUTE_MS - 10_000
    assert clocks.running == 1
    clocks.moved(1, 65_000, 0, True)  # the figure: 5 s, the stint ends
    assert clocks.remaining_ms(1) == 5 * MINUTE_MS - 15_000 + 20_000
    assert clocks.spent_ms == [0, 10_000, 5_000]


def test_real_time_is_not_capped() -> None:
    clocks = started(FIVE_20)
    clocks.moved(1, 51_000, 0, True)
    assert clocks.remaining_ms(1) == 5 * MINUTE_MS + 19_000


def test_turn_based_is_capped_at_the_bank() -> None:
    clocks = started(THREE_DAYS)
    clocks.moved(1, 50_000 + 2 * HOUR_MS, 0, True)
    assert clocks.remaining_ms(1) == 3 * DAY_MS  # 3 d - 2 h + 1 d, capped
    clocks.moved(0, 50_000 + 2 * HOUR_MS + 2 * DAY_MS + HOUR_MS, 1, True)
    assert clocks.remaining_ms(0) == 3 * DAY_MS - 2 * DAY_MS - HOUR_MS + DAY_MS


def test_never_below_zero_and_out_of_time_earns_nothing() -> None:
    clocks = started(FIVE_20)
    assert clocks.deadline_ms() == 50_000 + 5 * MINUTE_MS
    late = 50_000 + 6 * MINUTE_MS
    assert clocks.remaining_ms(1, late) == 0 and clocks.out_of_time(1, late)
    assert not clocks.out_of_time(1, 50_000 + 4 * MINUTE_MS)
    clocks.moved(1, late, 0, True)
    assert clocks.remaining_ms(1) == 0  # a move made out of time earns no increment
    assert clocks.spent_ms[-1] == 6 * MINUTE_MS


def test_stand_in_decisions_earn_the_increment_and_are_not_charged() -> None:
    clocks = started(FIVE_20)
    clocks.switch(50_000 + 5 * MINUTE_MS, False)  # out of time: the stand-in takes seat 1
    assert clocks.running is None and clocks.remaining_ms(1) == 0
    clocks.moved(1, 50_000 + 5 * MINUTE_MS + 3_000, 1, False)  # the stand-in's tile
    clocks.moved(1, 50_000 + 5 * MINUTE_MS + 4_000, 0, True)  # and its figure
    assert clocks.remaining_ms(1) == 40_000  # +20 s for each of its decisions
    assert clocks.running == 0
    # seat 1 returns at its next turn: its clock runs again from the time it has
    t = 50_000 + 5 * MINUTE_MS + 60_000
    clocks.moved(0, t, 1, False)
    clocks.switch(t + 1_000, True)
    assert clocks.running == 1 and clocks.deadline_ms() == t + 1_000 + 40_000


def test_switch_charges_the_running_seat_up_to_then() -> None:
    clocks = started(FIVE_20)
    clocks.switch(50_000 + 30_000, False)
    assert clocks.remaining_ms(1, 50_000 + 90_000) == 5 * MINUTE_MS - 30_000


def test_bots_have_no_clock() -> None:
    clocks = started(FIVE_20, clocked={0})  # seat 1 is a bot
    assert clocks.running is None and clocks.deadline_ms() is None
    clocks.moved(1, 50_000 + 9 * MINUTE_MS, 0, True)
    assert clocks.remaining_ms(1) == 5 * MINUTE_MS  # neither charged nor incremented
    assert not clocks.out_of_time(1)
    assert clocks.spent_ms[-1] == 9 * MINUTE_MS  # its think time is still recorded
    assert clocks.running == 0


def test_untimed_tables_record_times_and_run_no_clock() -> None:
    clocks = started(NO_CLOCK)
    assert clocks.running is None and clocks.deadline_ms() is None
    clocks.moved(1, 80_000, 0, True)
    assert clocks.spent_ms == [0, 30_000]
    assert not clocks.out_of_time(1)


def test_the_end_of_the_game_stops_every_clock() -> None:
    clocks = started(FIVE_20)
    clocks.moved(1, 60_000, None, False)
    assert clocks.running is None and clocks.deadline_ms() is None


def test_moved_by_the_wrong_seat_is_refused() -> None:
    clocks = started(FIVE_20)
    with pytest.raises(ValueError, match="seat 0 moved, but seat 1 was to move"):
        clocks.moved(0, 60_000, 1, True)
