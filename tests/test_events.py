"""Events: what the game's log is made of survives the trips it takes (pickling, copying)."""

from __future__ import annotations

import copy
import pickle

from carcassonne.events import GameEvent, ScoreEvent


def test_events_pickle_and_copy_back_equal() -> None:
    # The compiled classes are rebuilt through their own __init__: every field must come back.
    score = ScoreEvent(
        7,
        "city",
        "completed",
        {0: 8, 1: 8},
        tiles=3,
        coats_of_arms=1,
        figures={0: 1, 1: 1},
        square_codes=frozenset({5, 9}),
        detail={"value": 8, "per_tile": 2},
    )
    happening = GameEvent(3, "discard", None, {"tile": "base/A"})
    for event in (score, happening):
        for back in (pickle.loads(pickle.dumps(event)), copy.deepcopy(event), copy.copy(event)):
            assert back == event
            assert type(back) is type(event)
    assert pickle.loads(pickle.dumps(score)).square_codes == {5, 9}
    assert pickle.loads(pickle.dumps(happening)).detail == {"tile": "base/A"}


def test_event_defaults_are_fresh_per_event() -> None:
    first, second = ScoreEvent(1, "bet", "final", {0: 0}), ScoreEvent(1, "bet", "final", {0: 0})
    first.detail["paid"] = 0
    first.figures[0] = 1
    assert second.detail == {} and second.figures == {}
    assert GameEvent(1, "x").detail is not GameEvent(1, "x").detail
