"""Shared test settings: a hypothesis profile that keeps property tests quick.

``tests/`` is on ``sys.path`` (pytest's default rootdir-relative import), so tests import the
situation builder as ``from scenario import ...``.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("default")
