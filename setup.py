"""Builds the optional compiled engine (mypyc) when ``CARCASSONNE_COMPILE=1``; otherwise pure.

The compiled modules are the same source files, translated to C by mypyc: the engine core, the
expansions, the bots and the learning environment's per-step work (its observations and action
layout) (``COMPILED`` below).  Everything else, and every package's
``__init__``, stays interpreted, and so do the modules of plain data types that are not on the
hot path: ``options.py`` (a plain frozen dataclass pickles, and ``simulate --jobs`` sends options
to worker processes), ``expansions/actions.py`` (``formats`` reads its field types),
``expansions/registry.py`` (the expansions' rows, read once per game by ``options.py`` and the
edges; it imports the compiled classes only when a game is built), the table's clocks and
standings (``clocks.py``, ``standings.py``: a few calls per move, never in a search), the game
review (``bots/review.py``: its marks come back from the web's review worker pickled, and its
time is the expert's search, compiled), and the environment's PettingZoo and Gymnasium classes
(``env/aec.py``, ``env/single.py``: they subclass those libraries' classes, and most of their
per-step work is the observer's and the action layout's, compiled).
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

PACKAGE = Path("src") / "carcassonne"
#: modules left interpreted among those: see their docstrings for why
INTERPRETED = (
    "options.py",
    "expansions/actions.py",
    "expansions/registry.py",
    "clocks.py",
    "standings.py",
    "bots/review.py",
    "env/aec.py",
    "env/single.py",
)
#: the modules compiled, as paths from the project root
COMPILED = sorted(
    str(path)
    for pattern in ("*.py", "expansions/*.py", "bots/*.py", "env/*.py")
    for path in PACKAGE.glob(pattern)
    if path.name != "__init__.py" and path.relative_to(PACKAGE).as_posix() not in INTERPRETED
)


#: the mypy whose mypyc compiles the engine: the one the project checks its types with
MYPYC = "mypy==2.4.1"

if os.environ.get("CARCASSONNE_COMPILE", "") in ("", "0"):
    setup()
else:
    try:
        from mypyc.build import mypycify
    except ImportError:
        # Before building, pip asks what the build needs: mypy, then it runs this again.
        setup(setup_requires=[MYPYC])
    else:
        setup(ext_modules=mypycify(COMPILED, opt_level="3"))
