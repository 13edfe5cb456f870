"""Which expansions override which hook, so that the game's hot path asks only those.

``Game._bind_hooks`` keeps, per hook of :data:`LISTED_HOOKS`, a tuple of the expansions that
override it (the empty tuple, the common case, costs one test per turn and allocates nothing).
Which ones do depends on the expansions' classes only, so the answer is worked out once per
tuple of classes.
"""

from __future__ import annotations

from typing import Final

from .base import Expansion


def overrides(ext: Expansion, hook: str) -> bool:
    """Whether ``ext``'s class overrides the hook ``hook`` of :class:`Expansion`."""
    return getattr(type(ext), hook) is not getattr(Expansion, hook)


#: the hooks the game asks only of the expansions that override them (``Game._bind_hooks``), each
#: kept in its own list
LISTED_HOOKS: Final = (
    "placement_allowed",
    "after_tile_placed",
    "figure_actions",
    "after_scoring",
    "end_of_turn",
    "before_final_scoring",
    "figure_allowed",
    "adjust_value",
    "adjust_points",
)
#: the expansions' classes in hook order -> per hook of LISTED_HOOKS, the positions of those
#: that override it: which ones do depends on the classes only, and asking each class (two
#: attribute lookups by name per hook) cost a game's set-up and every copy ~13 K instructions
#: with four expansions
_HOOK_PLANS: Final[dict[tuple[type, ...], tuple[tuple[int, ...], ...]]] = {}


def hook_plan(exts: list[Expansion]) -> tuple[tuple[int, ...], ...]:
    key = tuple([type(ext) for ext in exts])
    plan = _HOOK_PLANS.get(key)
    if plan is None:
        plan = _HOOK_PLANS[key] = tuple(
            tuple(i for i, ext in enumerate(exts) if overrides(ext, hook)) for hook in LISTED_HOOKS
        )
    return plan
