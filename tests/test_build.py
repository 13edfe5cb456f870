"""Which build runs (pure Python or the mypyc-compiled engine), and that it says so.

``scripts/test`` runs the suite twice, pure and then compiled; it sets
``CARCASSONNE_EXPECT_BUILD`` so that a compiled run that silently imported the Python source
(or the reverse) fails here instead of passing for the wrong build.
"""

from __future__ import annotations

import os
from importlib.machinery import EXTENSION_SUFFIXES

import pytest

import carcassonne
from carcassonne import BUILD
from carcassonne.bots import greedy
from carcassonne.cli.main import main
from carcassonne.expansions import bets


def test_build_is_what_the_engine_modules_are() -> None:
    compiled = [
        module.__file__.endswith(tuple(EXTENSION_SUFFIXES))
        for module in (carcassonne.game, carcassonne.features, bets, greedy)
        if module.__file__
    ]
    assert compiled == [BUILD == "compiled"] * 4


def test_the_environments_per_step_modules_are_built_with_the_engine() -> None:
    pytest.importorskip("numpy")  # the rl extra
    from carcassonne.env import actions, observations

    compiled = [
        module.__file__.endswith(tuple(EXTENSION_SUFFIXES))
        for module in (actions, observations)
        if module.__file__
    ]
    assert compiled == [BUILD == "compiled"] * 2


def test_build_is_the_one_the_test_run_expects() -> None:
    expected = os.environ.get("CARCASSONNE_EXPECT_BUILD")
    if expected is None:
        pytest.skip("CARCASSONNE_EXPECT_BUILD not set (scripts/test sets it)")
    assert expected == BUILD


def test_version_says_which_build_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"carcassonne {carcassonne.__version__} ({BUILD})"
