"""Seat changes, statuses and the final places (issue 24)."""

from __future__ import annotations

import pytest

from carcassonne.clocks import NO_CLOCK, PRESETS, TimeControlError
from carcassonne.standings import (
    SeatChange,
    SeatState,
    TableRecord,
    TableSettings,
    ranking,
    statuses,
)


def change(ply: int, seat: int, kind: str, at_ms: int = 1_000) -> SeatChange:
    return SeatChange.from_json({"ply": ply, "seat": seat, "change": kind, "at_ms": at_ms})


def test_change_json_round_trip() -> None:
    data = {"ply": 12, "seat": 1, "change": "stand-in", "at_ms": 1_780_000_000_000}
    assert SeatChange.from_json(data).to_json() == data


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("x", "JSON object"),
        ({"ply": 1, "seat": 0, "change": "resign"}, "missing 'at_ms'"),
        ({"ply": 1, "seat": 0, "change": "quit", "at_ms": 0}, "'change' must be one of"),
        ({"ply": -1, "seat": 0, "change": "resign", "at_ms": 0}, "'ply' must be"),
        ({"ply": 1, "seat": True, "change": "resign", "at_ms": 0}, "'seat' must be"),
        ({"ply": 1, "seat": 0, "change": "resign", "at_ms": 1.5}, "'at_ms' must be"),
        ({"ply": 1, "seat": 0, "change": "resign", "at_ms": 0, "why": "x"}, "'why'"),
    ],
)
def test_bad_change_json_is_refused(data: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        SeatChange.from_json(data, "changes[0]")


def test_statuses_follow_the_changes() -> None:
    states = statuses(
        [change(4, 1, "stand-in"), change(9, 1, "return"), change(11, 2, "resign")], 4
    )
    assert [s.to_json() for s in states] == [
        {"status": "playing", "since_ply": None},
        {"status": "playing", "since_ply": 9},
        {"status": "resigned", "since_ply": 11},
        {"status": "playing", "since_ply": None},
    ]
    assert statuses([change(3, 0, "stand-in"), change(5, 0, "timeout")], 2)[0] == SeatState(
        "timed-out", 5, 0
    )


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ([change(1, 0, "return")], "not played by the stand-in"),
        ([change(1, 0, "stand-in"), change(2, 0, "stand-in")], "already played by the stand-in"),
        ([change(1, 0, "resign"), change(2, 0, "return")], "has already resigned"),
        ([change(1, 0, "timeout"), change(2, 0, "resign")], "has already timed out"),
        ([change(1, 5, "resign")], "seat 5 does not exist"),
        ([change(5, 0, "stand-in"), change(4, 1, "resign")], "ply order"),
    ],
)
def test_impossible_changes_are_named(changes: list[SeatChange], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        statuses(changes, 2)


def test_ranking_by_score_with_ties() -> None:
    assert ranking([10, 30, 10, 5], statuses([], 4)) == [[1], [0, 2], [3]]


def test_d55_stood_in_seats_are_ranked_by_score() -> None:
    assert ranking([40, 30], statuses([change(2, 0, "stand-in")], 2)) == [[0], [1]]


def test_d55_leavers_rank_last_the_latest_highest() -> None:
    states = statuses(
        [change(3, 0, "resign"), change(8, 3, "stand-in"), change(9, 3, "timeout")], 4
    )
    # seat 0 has the best score but resigned first: last; seat 3 left later: above it
    assert ranking([90, 10, 20, 80], states) == [[2], [1], [3], [0]]


def test_d55_ranking_when_everyone_left() -> None:
    states = statuses([change(3, 1, "resign"), change(4, 0, "resign")], 2)
    assert ranking([0, 50], states) == [[0], [1]]


def test_ranking_checks_its_lengths() -> None:
    with pytest.raises(ValueError, match="3 scores for 2 seats"):
        ranking([1, 2, 3], statuses([], 2))


def test_table_settings_json_and_defaults() -> None:
    assert TableSettings.from_json({}) == TableSettings(NO_CLOCK, "greedy", "stand-in")
    settings = TableSettings(PRESETS["10+30"], "random", "lose")
    assert TableSettings.from_json(settings.to_json()) == settings
    no_aids = TableSettings(aids=False)
    assert TableSettings.from_json({}).aids and not TableSettings.from_json({"aids": False}).aids
    assert TableSettings.from_json(no_aids.to_json()) == no_aids
    assert settings.to_json()["clock"] == {
        "kind": "real-time",
        "initial_ms": 600000,
        "increment_ms": 30000,
    }


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([], "table_shape"),
        ({"clocks": {}}, "table_shape"),
        ({"clock": {"kind": "fast"}}, "clock_kind"),
        ({"clock": {"kind": "real-time", "initial_ms": 1, "increment_ms": 0}}, "clock_range"),
        ({"stand_in": "expert"}, "stand_in_bot"),
        ({"on_timeout": "pass"}, "on_timeout"),
        ({"aids": "off"}, "aids"),
        ({"aids": 0}, "aids"),
    ],
)
def test_bad_table_settings_name_their_reason(data: object, reason: str) -> None:
    with pytest.raises(TimeControlError) as caught:
        TableSettings.from_json(data)
    assert caught.value.reason == reason


def test_table_record_of_settings() -> None:
    settings = TableSettings(PRESETS["3d"], "greedy", "lose", aids=False)
    record = TableRecord.of(settings, [change(1, 0, "timeout")], [0, 5])
    assert record.settings == settings
    assert record.changes == (change(1, 0, "timeout"),) and record.spent_ms == (0, 5)
