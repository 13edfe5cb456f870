"""Open tables (issue 25): a creator leaves seats open and may list the table publicly; a
visitor takes an open seat with a name and gets that seat's link.

The requests (``docs/web.md``): the create request's ``listed`` (:func:`parse_listed`), taking
a seat (``POST /api/games/{id}/join``, :func:`parse_join`) and the public list (``GET
/api/tables?page=<cursor>``, :func:`tables_page`): newest first, :data:`PAGE_SIZE` a page,
only the unfinished listed tables with a seat open.  Each entry holds what the game's public
setup holds (seats, options without the seed or stack, the table's clock and settings): never
a token, a digest, the seed or the stack.  The bounds: :data:`.server.MAX_LISTED_PER_ADDRESS`
listed tables waiting per creator, an expiry for tables that never fill
(:data:`.server.WAITING_EXPIRE_AFTER`), a fixed page size and a checked cursor.
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Any

from ..game import MAX_PLAYERS
from ..standings import TableSettings
from .errors import ProtocolError
from .opentablesdb import ListedRow, listed_tables
from .protocol import options_from_json, parse_seat_name, public_options, seat_public
from .server import GAME_ID
from .storage import Storage

log = logging.getLogger("carcassonne.web")

#: tables on one page of the list
PAGE_SIZE = 20
#: a page's cursor: the last table's creation time (seconds, as Python writes a float exactly)
#: and id, as ``<created>~<id>``
_CURSOR = re.compile(r"([0-9]{1,12}(?:\.[0-9]{1,20})?(?:e[+-]?[0-9]{1,3})?)~([A-Za-z0-9_-]{1,32})")


def parse_listed(data: dict[str, Any], seats: list[dict[str, Any]], hotseat: bool) -> bool:
    """The create request's ``listed`` (default false), checked against its seats: a listed
    table has a seat open; a hotseat game (its players share one screen) has none."""
    listed = data.get("listed", False)
    if not isinstance(listed, bool):
        raise ProtocolError.of("listed_not_boolean")
    has_open = any(seat["kind"] == "open" for seat in seats)
    if hotseat and has_open:
        raise ProtocolError.of("hotseat_open_seat")
    if listed and not has_open:
        raise ProtocolError.of("listed_without_open_seat")
    return listed


def parse_join(data: Any) -> tuple[int, str]:
    """``{"seat": i, "name": "Bo"}`` → (seat, name); the name follows the seat names' rules
    (blank: "Player <n>")."""
    if not isinstance(data, dict) or set(data) - {"seat", "name"} or "seat" not in data:
        raise ProtocolError.of("join_request")
    seat = data["seat"]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < MAX_PLAYERS:
        raise ProtocolError.of("join_seat", high=MAX_PLAYERS - 1)
    return seat, parse_seat_name(data.get("name"), seat)


def parse_cursor(text: str | None) -> tuple[float, str] | None:
    """A page's cursor (the ``next`` of the page before it) → (created, id); None: the first."""
    if text is None:
        return None
    match = _CURSOR.fullmatch(text)
    created = float(match.group(1)) if match else math.inf
    if match is None or not math.isfinite(created) or not GAME_ID.fullmatch(match.group(2)):
        raise ProtocolError.of("bad_cursor")
    return created, match.group(2)


def _cursor(row: ListedRow) -> str:
    return f"{row.created!r}~{row.id}"


def table_entry(row: ListedRow) -> dict[str, Any] | None:
    """One table of the list: public things only; None for a row that no longer reads (it is
    logged, and left out)."""
    try:
        stored = json.loads(row.options)
        options = options_from_json(stored)
        table = TableSettings.from_json(stored.get("table", {})).to_json()
        seats = [
            {"seat": i, **seat_public(i, seat["name"], seat["kind"], seat["bot"])}
            for i, seat in enumerate(json.loads(row.seats))
        ]
        fixed_seed = bool(stored.get("seed_chosen", False))
    except Exception:
        log.exception("game %s: its stored setup does not read for the open tables' list", row.id)
        return None
    return {
        "id": row.id,
        "seats": seats,
        "options": public_options(options, fixed_seed),
        "table": table,
        "created_ms": int(row.created * 1000),
        "open": [seat["seat"] for seat in seats if seat["kind"] == "open"],
    }


def tables_page(storage: Storage, cursor: tuple[float, str] | None) -> dict[str, Any]:
    """The page of the list after ``cursor``: ``{"tables": [...], "next": cursor or None}``."""
    rows = listed_tables(storage, cursor, PAGE_SIZE + 1)
    page = rows[:PAGE_SIZE]
    entries = [entry for entry in map(table_entry, page) if entry is not None]
    return {"tables": entries, "next": _cursor(page[-1]) if len(rows) > PAGE_SIZE else None}
