"""Shared web-test helpers (imported by name: tests/web is on sys.path).

Starlette's TestClient warns at import that it prefers ``httpx2``; the project pins ``httpx``
(the test extra), so the warning is silenced here once rather than in every module.
"""

from __future__ import annotations

import warnings
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

__all__ = ["TestClient"]


def auth(token: str) -> dict[str, str]:
    """The header that proves a seat's token."""
    return {"authorization": f"Bearer {token}"}


def hello(ws: Any, token: str | None) -> dict[str, Any]:
    """Greet on a websocket and return the first state message."""
    ws.send_json({"type": "hello", "token": token})
    assert ws.receive_json()["type"] == "welcome"
    state = ws.receive_json()
    assert state["type"] == "state"
    return state
