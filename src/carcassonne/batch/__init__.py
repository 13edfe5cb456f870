"""Batch runs of bot games: the one game-running path of ``simulate`` and ``tournament``.

:mod:`.runner` plays games in this process, in local worker processes or as Ray tasks, with the
same results for the same seeds; :mod:`.tallies` counts what expansions pay per seat;
:mod:`.tournament` schedules, stores, rates and reports a tournament; :mod:`.plots` draws it.
This package sits at the edge: it uses the engine and the bots, and the engine never uses it.
"""
