"""Every error the server can send is worded in every language of the page (issue 21, item 10).

The page says an error by its ``reason`` (``error.<reason>`` in the catalogues), so each reason
the source can raise (found by reading the source, not by a list kept by hand) must be in each
catalogue, with no placeholder the server does not fill; and no error may be built without a
reason (it would stay English on a French or Romanian page).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_i18n import load

from carcassonne.game import Game, GameOptions, IllegalAction, PlaceTile
from carcassonne.web.errors import ERRORS, ProtocolError, illegal

SOURCE = Path(__file__).resolve().parents[2] / "src" / "carcassonne"
PLACEHOLDER = re.compile(r"\{(\w+)")
LANGUAGES = ("en", "fr", "ro")


def calls(root: Path, name: str) -> Iterator[tuple[Path, ast.Call]]:
    """Every call of ``name`` (a function or an attribute of that name) under ``root``."""
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if called == name:
                    yield path, node


def constant(node: ast.expr | None, where: str) -> Any:
    assert isinstance(node, ast.Constant), f"{where}: the reason must be written out"
    return node.value


def protocol_reasons() -> dict[str, set[str]]:
    """reason -> the params given at every place it is raised (those given everywhere)."""
    found: dict[str, set[str]] = {}
    for path, call in calls(SOURCE / "web", "of"):
        if ast.unparse(call.func) != "ProtocolError.of":
            continue
        where = f"{path.name}:{call.lineno}"
        reason = constant(call.args[0], where)
        given = {k.arg for k in call.keywords if k.arg is not None and k.arg != "code"}
        found[reason] = found[reason] & given if reason in found else given
    return found


def illegal_reasons() -> set[str]:
    """Every reason of an :class:`IllegalAction` raised anywhere in the package."""
    found = set()
    for path, call in calls(SOURCE, "IllegalAction"):
        where = f"{path.name}:{call.lineno}"
        reason = call.args[1] if len(call.args) > 1 else None
        for keyword in call.keywords:
            if keyword.arg == "reason":
                reason = keyword.value
        found.add("not_legal" if reason is None else constant(reason, where))
    return found


def test_the_source_is_read() -> None:
    # the scans below find what they look for (a scan finding nothing would pass them all)
    assert {"not_your_turn", "rate_limited", "seat_name", "server_full"} <= set(protocol_reasons())
    assert {"tile_mismatch", "feature_taken", "not_legal"} <= illegal_reasons()


def test_every_reason_raised_is_known() -> None:
    assert sorted(set(protocol_reasons()) - set(ERRORS)) == []
    assert sorted(set(ERRORS) - set(protocol_reasons())) == []  # none left unused


def test_no_error_is_built_without_a_reason() -> None:
    # only errors.py builds a ProtocolError itself (in ProtocolError.of and illegal)
    direct = [
        f"{path.name}:{call.lineno}"
        for path, call in calls(SOURCE / "web", "ProtocolError")
        if path.name != "errors.py"
    ]
    assert direct == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_server_error_is_worded_in_every_language(lang: str) -> None:
    catalogue = load(lang)
    keys = [f"error.{r}" for r in protocol_reasons()]
    keys += [f"error.illegal.{r}" for r in illegal_reasons()]
    assert sorted(k for k in keys if k not in catalogue) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_wording_quotes_only_what_the_server_sends(lang: str) -> None:
    catalogue = load(lang)
    unfilled = {
        reason: sorted(set(PLACEHOLDER.findall(catalogue[f"error.{reason}"])) - given)
        for reason, given in protocol_reasons().items()
        if not set(PLACEHOLDER.findall(catalogue[f"error.{reason}"])) <= given
    }
    assert unfilled == {}


def test_an_illegal_move_names_its_rule_and_squares() -> None:
    game = Game(GameOptions(players=2, seed=1))
    with pytest.raises(IllegalAction) as refused:
        game.apply(PlaceTile(5, 5, 0))
    error = illegal(refused.value, action=1)
    assert (error.code, error.reason) == ("illegal", "illegal.not_adjacent")
    assert error.params == {"x": 5, "y": 5, "action": 1}
    assert str(error) == "action 1: square (5, 5) does not touch a placed tile"
    assert error.to_json()["reason"] == "illegal.not_adjacent"


def test_an_error_keeps_its_english_message() -> None:
    error = ProtocolError.of("not_your_turn", seat=2)
    assert (str(error), error.code) == ("it is seat 2's move, not yours", "not-your-turn")
    assert error.to_json() == {
        "message": "it is seat 2's move, not yours",
        "reason": "not_your_turn",
        "params": {"seat": 2},
    }


def test_a_number_the_browser_would_round_is_sent_as_its_digits() -> None:
    # the seed's bound, 2**63 - 1, is not a number a browser holds exactly (2**53 at most)
    error = ProtocolError.of(
        "not_in_range", what="options: 'seed'", key="seed", low=0, high=2**63 - 1
    )
    assert error.to_json()["params"] == {
        "what": "options: 'seed'",
        "key": "seed",
        "low": 0,
        "high": "9223372036854775807",
    }
