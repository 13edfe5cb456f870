"""The ASGI application: HTTP API, the game websocket and the static browser client.

Routes (details and message formats in ``docs/web.md``)::

    GET  /                          the single-page client (lobby, game, replay, rules)
    GET  /static/...                its ES modules, CSS and message catalogues
    GET  /api/meta                  bots, maps, languages, expansions and variants on offer
    GET  /api/tiles                 tile geometry for drawing (from carcassonne.tiles)
    POST /api/games                 create a game -> its secret seat links
    GET  /api/games/{id}            public setup of a game
    GET  /api/games/{id}/state      the caller's view (Authorization: Bearer <token>)
    POST /api/games/{id}/actions    act for the caller's seat
    POST /api/games/{id}/seat       resign, take the seat back, hand a seat to the stand-in
    POST /api/games/{id}/rematch    play a finished game again -> the new game's id
    POST /api/games/{id}/join       take an open seat -> its secret token
    GET  /api/tables                the listed tables waiting for players (a page)
    GET  /api/games/{id}/record     the game record (finished games only)
    GET  /api/games/{id}/replay     replay frames (finished games only)
    POST /api/replay                replay frames of an uploaded record
    POST /api/games/{id}/review     start the review of a finished game
    GET  /api/games/{id}/review     its progress, then the review
    WS   /ws/{id}                   live play: hello, act, preview, hint, ping, resign,
                                    return, stand-in, chat, rematch
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketState

from .. import __version__
from ..bots import BOT_NAMES, bot_parameters
from ..bots.levels import LEVEL_NAMES
from ..expansions.registry import meta as registry_meta
from ..formats.actions import action_to_json
from . import replay
from .addresses import DEFAULT_GROUPS, AddressGroups
from .database import open_storage
from .errors import RateLimited, error_response
from .guards import LOCAL_HOST_NAMES, CrossSiteGuard, SecurityHeaders
from .headerlimits import HeaderLimits
from .opentables import parse_cursor, parse_join, parse_listed, tables_page
from .outbox import Connection, encode
from .protocol import (
    MAX_MESSAGE_BYTES,
    WEB_THINK_CHOICES,
    ProtocolError,
    decode_json,
    parse_actions,
    parse_client_message,
    parse_options,
    parse_ply,
    parse_seat_change,
    parse_seats,
    parse_table,
)
from .ratelimit import RateLimits, TokenBuckets
from .reviews import Reviews
from .rooms import Room
from .server import (
    EXPIRE_AFTER,
    MAX_GAMES_PER_ADDRESS,
    MAX_LIVE_GAMES,
    UNCLAIMED_EXPIRE_AFTER,
    GameServer,
)
from .storage import Storage, default_db_path, now_ms
from .tilegeom import tile_geometry_bytes

log = logging.getLogger("carcassonne.web")

STATIC_DIR = Path(__file__).parent / "static"
LANGUAGES = ("en", "fr", "ro")
MAPS = ("france",)
MAX_BODY_BYTES = 2 * 1024 * 1024
#: seconds a new websocket has to say hello, counted from its opening (not from its last frame)
HELLO_TIMEOUT = 30.0

#: answers holding a seat's secrets (its links, its view): no cache or proxy may keep them
PRIVATE = {"cache-control": "no-store"}


def _server(request: Request | WebSocket) -> GameServer:
    server: GameServer = request.app.state.server
    return server


async def _room(request: Request) -> Room:
    room = await _server(request).get(request.path_params["game_id"])
    if room is None:
        raise ProtocolError.of("no_such_game")
    return room


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ProtocolError.of("bad_authorization")
    return token.strip()


async def _json_body(request: Request) -> Any:
    """The request's JSON, read no further than :data:`MAX_BODY_BYTES` (a huge upload is cut
    off as it arrives, not held in memory first)."""
    too_large = ProtocolError.of("too_large", max=MAX_BODY_BYTES)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large
        chunks.append(chunk)
    return decode_json(b"".join(chunks), "the request body")


def _api(handler: Any, limit: str | None = None) -> Any:
    """Turns :class:`ProtocolError` into a JSON error response with a fitting status; with
    ``limit`` (a :class:`RateLimits` field) each client's requests are counted first."""

    async def endpoint(request: Request) -> Response:
        try:
            if limit is not None:
                _check_rate(request, limit)
            return await handler(request)
        except ProtocolError as exc:
            return error_response(exc)
        except ClientDisconnect:
            return Response(status_code=400)  # nobody is left to read it
        except Exception:
            # Every answer of the API is its documented JSON, a server failure included.
            log.exception("failed on %s %s", request.method, request.url.path)
            return error_response(ProtocolError.of("server_failed"))

    return endpoint


def client_key(request: Request | WebSocket) -> str:
    """Who the client is for every per-client limit: its address's group (an IPv6 /64 is one
    client: :mod:`.addresses`). Clients are told apart by address only: behind a proxy they
    are one client, unless ``carcassonne serve --trusted-proxy`` names the proxy."""
    groups: AddressGroups = request.app.state.address_groups
    return groups.key(request.client.host if request.client else "")


def _check_rate(request: Request | WebSocket, limit: str) -> None:
    """Spend one of the client's tokens for ``limit`` or refuse the request (before its body is
    read)."""
    buckets: TokenBuckets = request.app.state.limits[limit]
    wait = buckets.take(client_key(request))
    if wait:
        raise RateLimited(buckets.limit.per_minute, wait)


async def index(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", headers={"cache-control": "no-cache"})


async def meta(request: Request) -> Response:
    return JSONResponse(
        {
            "version": __version__,
            #: the ladder's levels, weakest first: the lobby offers them before the bots
            "levels": list(LEVEL_NAMES),
            "bots": list(BOT_NAMES),
            #: bots that take a think time, and the times offered
            "think_times": {
                name: list(WEB_THINK_CHOICES)
                for name in BOT_NAMES
                if any(p.name == "seconds" for p in bot_parameters(name))
            },
            "maps": list(MAPS),
            "languages": list(LANGUAGES),
            #: the expansions and rule variants the lobby offers (its checkboxes)
            **registry_meta(),
        }
    )


async def tiles(request: Request) -> Response:
    return Response(
        tile_geometry_bytes(),
        media_type="application/json",
        headers={"cache-control": "public, max-age=3600"},
    )


async def create_game(request: Request) -> Response:
    data = await _json_body(request)
    if not isinstance(data, dict):
        raise ProtocolError.of("request_not_object")
    unknown = set(data) - {"seats", "options", "hotseat", "table", "listed"}
    if unknown:
        raise ProtocolError.of("request_unknown_keys", keys=sorted(unknown))
    seats = parse_seats(data.get("seats"))
    options = parse_options(data.get("options"), len(seats))
    table = parse_table(data.get("table"))
    hotseat = data.get("hotseat", False)
    if not isinstance(hotseat, bool):
        raise ProtocolError.of("hotseat_not_boolean")
    listed = parse_listed(data, seats, hotseat)
    room, links = await _server(request).create(
        seats, options, hotseat, client_key(request), table, listed
    )
    return JSONResponse({**links, "game": room.public_info()}, status_code=201, headers=PRIVATE)


async def game_info(request: Request) -> Response:
    return JSONResponse((await _room(request)).public_info())


async def game_state(request: Request) -> Response:
    room = await _room(request)
    principal = room.authorise(_bearer(request))
    await _server(request).opened(room, principal, client_key(request))
    return Response(room.api_state(principal), media_type="application/json", headers=PRIVATE)


async def game_actions(request: Request) -> Response:
    data = await _json_body(request)
    room = await _room(request)
    principal = room.authorise(_bearer(request))
    if not isinstance(data, dict) or set(data) - {"actions", "ply"}:
        raise ProtocolError.of("actions_request")
    await room.submit(principal, parse_actions(data.get("actions")), parse_ply(data))
    return JSONResponse(room.state(principal), headers=PRIVATE)


async def game_seat(request: Request) -> Response:
    data = await _json_body(request)
    room = await _room(request)
    principal = room.authorise(_bearer(request))
    msg = parse_seat_change(data)
    await room.change_seat(principal, msg["change"], msg["seat"], msg["ply"])
    return JSONResponse(room.state(principal), headers=PRIVATE)


async def game_rematch(request: Request) -> Response:
    """The finished game's "Play again" (:mod:`.rematch`): 201 when this request made it, 200
    when it was made already; the caller's seats in it (its token opens them)."""
    body = b""
    async for chunk in request.stream():  # read no further than a body it could take
        body += chunk
        if len(body) > len(b"{}"):
            raise ProtocolError.of("rematch_request")
    if body not in (b"", b"{}"):
        raise ProtocolError.of("rematch_request")
    room = await _room(request)
    principal = room.authorise(_bearer(request))
    game_id, made = await room.rematch.ask(_server(request), principal, client_key(request))
    return JSONResponse(
        {"id": game_id, "seats": room.rematch.seats_of(principal)},
        status_code=201 if made else 200,
        headers=PRIVATE,
    )


async def game_join(request: Request) -> Response:
    seat, name = parse_join(await _json_body(request))
    room = await _room(request)
    token = await room.open_seats.take(seat, name)
    await _server(request).opened(room, room.authorise(token), client_key(request))
    body = {"id": room.id, "seat": seat, "token": token}
    return JSONResponse(body, status_code=201, headers=PRIVATE)


async def open_tables(request: Request) -> Response:
    cursor = parse_cursor(request.query_params.get("page"))
    storage = _server(request).storage
    return JSONResponse(await storage.run(tables_page, storage, cursor))


def _encode(data: Any) -> bytes:
    return encode(data).encode("utf-8")


async def _finished_game_answer(
    request: Request, kind: str, build: Callable[[Room], bytes]
) -> bytes:
    """A finished game's record or replay, built once (in a worker thread, so that the event
    loop keeps serving while the game is replayed) and then answered from the cache."""
    cache: replay.ReplayCache = request.app.state.replays
    key = (kind, request.path_params["game_id"])
    body = cache.get(key)
    if body is None:
        room = await _room(request)
        body = await asyncio.to_thread(build, room)
        cache.put(key, body)
    return body


async def game_record(request: Request) -> Response:
    # the record file itself, which pages save as it is (docs/web.md: integers)
    body = await _finished_game_answer(request, "record", replay.record_file)
    filename = f"carcassonne-{request.path_params['game_id']}.json"
    return Response(
        body,
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="{filename}"'},
    )


async def game_replay(request: Request) -> Response:
    body = await _finished_game_answer(
        request, "replay", lambda room: _encode(replay.frames_of_room(room))
    )
    return Response(body, media_type="application/json")


async def start_review(request: Request) -> Response:
    reviews: Reviews = request.app.state.reviews
    answer = await reviews.start(await _room(request))
    # 202: accepted, under way; 200: the stored review
    return JSONResponse(answer, status_code=202 if answer["status"] == "running" else 200)


async def review_status(request: Request) -> Response:
    reviews: Reviews = request.app.state.reviews
    return JSONResponse(await reviews.status((await _room(request)).id))


async def upload_replay(request: Request) -> Response:
    record = await _json_body(request)
    return Response(
        await asyncio.to_thread(lambda: _encode(replay.frames_of_record(record))),
        media_type="application/json",
    )


# ------------------------------------------------------------------------------ websocket


async def _send_loop(websocket: WebSocket, conn: Connection) -> None:
    while True:
        try:
            text = await conn.next()
        except Exception:
            # states are built when sent: a server bug building one ends this connection only
            log.exception("failed to build a message for a client")
            await websocket.close(code=1011, reason="the server failed")
            return
        if text is None:
            if conn.overflowed:
                await websocket.close(code=1008, reason="too far behind")
            return
        await websocket.send_text(text)


def _error(exc: ProtocolError) -> dict[str, Any]:
    return {"type": "error", "code": exc.code, **exc.to_json()}


async def game_socket(websocket: WebSocket) -> None:
    """One client's live connection; see ``docs/web.md`` for the messages."""
    server = _server(websocket)
    game_id = websocket.path_params["game_id"]
    await websocket.accept()

    async def find_room() -> Room:
        room = await server.get(game_id)
        if room is None:
            raise ProtocolError.of("no_such_game")
        return room

    try:
        room = await find_room()
    except ProtocolError as exc:
        await websocket.send_json(_error(exc))
        await websocket.close(code=4404 if exc.code == "not-found" else 4409)
        return
    conn: Connection | None = None
    sender: asyncio.Task[None] | None = None
    loop = asyncio.get_running_loop()
    hello_by = loop.time() + HELLO_TIMEOUT

    def reply(message: dict[str, Any]) -> None:
        assert conn is not None
        conn.send(message)

    hint_task: asyncio.Task[None] | None = None

    async def answer_hint(room: Room, asker: Connection, ply: int) -> None:
        """A hint takes a second of a worker's time: answered when ready, meanwhile the
        connection goes on; one at a time per connection."""
        try:
            asker.send(await room.hints.ask(asker.principal, ply))
        except ProtocolError as exc:
            asker.send(_error(exc))
        except Exception:
            log.exception("game %s: failed on a hint", room.id)
            asker.send(_error(ProtocolError.of("hint_server_failed")))

    try:
        while True:
            timeout = max(0.0, hello_by - loop.time()) if conn is None else None
            try:
                incoming = await asyncio.wait_for(websocket.receive(), timeout)
            except TimeoutError:
                await websocket.send_json(_error(ProtocolError.of("no_hello")))
                await websocket.close(code=4400)
                return
            if incoming["type"] == "websocket.disconnect":
                return
            text = incoming.get("text")
            if conn is not None and conn.overflowed:
                return
            try:
                # counted per client address, over all its connections
                _check_rate(websocket, "message")
                if text is None:
                    raise ProtocolError.of("not_text_frame")
                if len(text) > MAX_MESSAGE_BYTES:
                    raise ProtocolError.of("message_too_large", max=MAX_MESSAGE_BYTES)
                msg = parse_client_message(decode_json(text, "the message"))
                kind = msg["type"]
                if conn is None:
                    if kind != "hello":
                        raise ProtocolError.of("hello_first")
                    # Looked up again: while the client was silent, an unused room may have
                    # left memory; a connection holds its room there from now on.
                    room = await find_room()
                    principal = room.authorise(msg.get("token"))
                    await server.opened(room, principal, client_key(websocket))
                    conn = Connection(principal)
                    sender = asyncio.create_task(_send_loop(websocket, conn))
                    room.join(conn)
                elif kind == "hello":
                    raise ProtocolError.of("hello_again")
                elif kind == "ping":
                    reply({"type": "pong"})
                elif kind == "act":
                    await room.submit(conn.principal, msg["actions"], msg["ply"])
                elif kind == "seat":
                    _check_rate(websocket, "seat")
                    await room.change_seat(conn.principal, msg["change"], msg["seat"], msg["ply"])
                elif kind == "hint":
                    if hint_task is not None and not hint_task.done():
                        raise ProtocolError.of("hint_busy")
                    _check_rate(websocket, "hint")
                    hint_task = asyncio.create_task(answer_hint(room, conn, msg["ply"]))
                elif kind == "rematch":
                    _check_rate(websocket, "create")
                    # every connection of the game is offered it when made; an asker
                    # who came second is answered at once
                    _, made = await room.rematch.ask(server, conn.principal, client_key(websocket))
                    if not made:
                        reply(room.rematch.offer(conn.principal, None))
                elif kind == "chat":
                    _check_rate(websocket, "chat")
                    await room.chat.say(conn.principal, msg["said"])
                elif kind == "preview":
                    legal = room.preview(conn.principal, msg["action"], msg["ply"])
                    reply(
                        {
                            "type": "preview",
                            "ply": len(room.game.history),
                            "action": action_to_json(msg["action"]),
                            "legal_actions": legal,
                        }
                    )
            except ProtocolError as exc:
                error = _error(exc)
            except Exception:
                # A server bug on one message must not end the connection or reveal internals.
                log.exception("game %s: failed on a client message", room.id)
                error = _error(ProtocolError.of("message_failed"))
            else:
                continue
            if conn is None:
                await websocket.send_json(error)
            else:
                reply(error)
    finally:
        if conn is not None:
            room.leave(conn)
            server.release(room)
        if hint_task is not None:
            hint_task.cancel()
        if sender is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sender, 1.0)
            sender.cancel()
        if websocket.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close()


# ------------------------------------------------------------------------------ app


def create_app(
    db: str | Path | None = None,
    *,
    bot_delay: float = 0.5,
    storage: Storage | None = None,
    limits: RateLimits | None = None,
    max_live_games: int = MAX_LIVE_GAMES,
    max_games_per_address: int = MAX_GAMES_PER_ADDRESS,
    expire_after: float | None = EXPIRE_AFTER,
    expire_unclaimed_after: float | None = UNCLAIMED_EXPIRE_AFTER,
    address_groups: AddressGroups = DEFAULT_GROUPS,
    allowed_origins: frozenset[str] = frozenset(),
    allowed_hosts: frozenset[str] = LOCAL_HOST_NAMES,
    clock: Callable[[], float] = time.monotonic,
    wall_clock: Callable[[], int] = now_ms,
) -> Starlette:
    """The web app on a games database: an SQLite file path or a ``postgresql://`` URL
    (default: an SQLite file in the user's data directory).

    ``limits`` are the per-client HTTP rate limits, ``max_live_games`` the unfinished games the
    server holds at once, ``max_games_per_address`` those one address may have created,
    ``expire_after`` the seconds without a move after which an unfinished game ends (None:
    never), ``expire_unclaimed_after`` those after which a game nobody took up ends (no person
    moved, nobody but its creator opened a seat; None: as any other); ``address_groups`` which
    addresses are one client for every per-client limit; ``allowed_origins`` the origins of
    other sites' pages that may use the API and ``allowed_hosts`` the host names it answers to
    besides IP addresses (``"*"``: any; :class:`CrossSiteGuard`); ``clock`` (monotonic
    seconds) drives the rate limits, and ``wall_clock`` (milliseconds since the epoch) the
    times of moves and the tables' clocks, for tests."""
    if storage is None:
        storage = open_storage(db if db is not None else default_db_path())
    server = GameServer(
        storage,
        bot_delay=bot_delay,
        max_live_games=max_live_games,
        max_games_per_address=max_games_per_address,
        expire_after=expire_after,
        expire_unclaimed_after=expire_unclaimed_after,
        wall_clock=wall_clock,
    )
    limits = limits or RateLimits()
    reviews = Reviews(storage, wall_clock)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        try:
            yield
        finally:
            reviews.stop()
            server.stop()

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/tiles", tiles),
        Route("/api/games", _api(create_game, "create"), methods=["POST"]),
        Route("/api/games/{game_id}", _api(game_info)),
        Route("/api/games/{game_id}/state", _api(game_state, "state")),
        Route("/api/games/{game_id}/actions", _api(game_actions, "action"), methods=["POST"]),
        Route("/api/games/{game_id}/seat", _api(game_seat, "seat"), methods=["POST"]),
        Route("/api/games/{game_id}/rematch", _api(game_rematch, "create"), methods=["POST"]),
        Route("/api/games/{game_id}/join", _api(game_join, "join"), methods=["POST"]),
        Route("/api/tables", _api(open_tables, "read")),
        Route("/api/games/{game_id}/record", _api(game_record, "read")),
        Route("/api/games/{game_id}/replay", _api(game_replay, "read")),
        Route("/api/replay", _api(upload_replay, "replay"), methods=["POST"]),
        Route("/api/games/{game_id}/review", _api(start_review, "review"), methods=["POST"]),
        Route("/api/games/{game_id}/review", _api(review_status, "review")),
        WebSocketRoute("/ws/{game_id}", game_socket),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(HeaderLimits),
        Middleware(CrossSiteGuard, allowed_origins=allowed_origins, allowed_hosts=allowed_hosts),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.server = server
    app.state.storage = storage
    app.state.address_groups = address_groups
    app.state.limits = {
        name: TokenBuckets(getattr(limits, name), clock)
        for name in (
            "create",
            "replay",
            "action",
            "message",
            "read",
            "state",
            "hint",
            "seat",
            "chat",
            "join",
            "review",
        )
    }
    app.state.reviews = reviews
    app.state.replays = replay.ReplayCache()
    return app
