"""Shared web-test helpers (imported by name: tests/web is on sys.path).

Starlette's TestClient warns at import that it prefers ``httpx2``; the project pins ``httpx``
(the test extra), so the warning is silenced here once rather than in every module.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

__all__ = ["TestClient"]
