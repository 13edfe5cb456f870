"""`carcassonne serve`: the browser game (lobby, play, replays) on a local web server."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import re
import resource
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import FAILURE, CommandError
from .options import int_in, port, seconds_in

if TYPE_CHECKING:
    from ..web.addresses import AddressGroups

#: connections accepted at most in one go (the listen backlog): those over a cap are refused
#: and closed at once, but for an instant they too hold a file descriptor each
ACCEPT_BACKLOG = 256
#: file descriptors kept free of counted connections: the database, the log, the listening
#: socket, and connections being refused (measured: a burst of idle sockets raised the open
#: files by about three backlogs above the connections counted)
RESERVED_FILES = 64 + 3 * ACCEPT_BACKLOG

#: the garbage collector's thresholds while serving (Python's defaults: 700, 10, 10): a young
#: collection after 2,000 more objects, a middle one after 10 of those (a pause of tens of
#: milliseconds at 800 games; 10,000 young objects doubled it), a full one considered after a
#: million objects (Python also waits until the objects new since the last full collection are
#: a quarter of the old ones, which at hundreds of games in memory is about as many)
GC_THRESHOLDS = (2_000, 10, 50)

#: a DNS name: dot-separated labels of letters, digits, '-' and '_' (not first or last)
DNS_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "serve",
        help="play in the browser: start the web server",
        description="Serve the browser game. Open the printed address, create a game, and send "
        "each player their own link. Games are kept in an SQLite file (or PostgreSQL, which "
        "several server processes can share) and survive restarts. "
        "The limits keep one client from taking the server down (docs/web.md explains them).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port", type=port, default=8000, help="port to listen on (0: one the system picks)"
    )
    parser.add_argument(
        "--fd",
        type=int_in(0),
        default=None,
        metavar="N",
        help="serve on the TCP socket this process inherited as file descriptor N (bound by a "
        "supervisor such as systemd, which keeps it across restarts), instead of --host/--port",
    )
    parser.add_argument(
        "--db",
        default=None,
        metavar="PATH_OR_URL",
        help="games database: an SQLite file, or postgresql://user@host/dbname for several "
        "server processes sharing the games (docs/deploy.md); default: $CARCASSONNE_DB, else "
        "$XDG_DATA_HOME/carcassonne/games.sqlite3",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        help="seconds a bot waits before each move, so people can follow (default 0.6)",
    )
    parser.add_argument(
        "--bot-workers",
        type=int_in(1, 64),
        default=None,
        help="processes in which bots think, shared by all games (hints have one of their own) "
        "(default: one per core beyond the first, at least 1)",
    )
    limits = parser.add_argument_group("limits")
    limits.add_argument(
        "--games-per-minute",
        type=int_in(1),
        default=10,
        help="games one client address may create a minute, all at once at most (default 10)",
    )
    limits.add_argument(
        "--replays-per-minute",
        type=int_in(1),
        default=20,
        help="records one client address may upload for replay a minute (default 20)",
    )
    limits.add_argument(
        "--max-games",
        type=int_in(1),
        default=1000,
        help="unfinished games the server holds at once; more are refused (default 1000)",
    )
    limits.add_argument(
        "--games-per-address",
        type=int_in(1),
        default=20,
        help="unfinished games one client address may have created (default 20)",
    )
    limits.add_argument(
        "--expire-days",
        type=float,
        default=7.0,
        help="days without a move after which an unfinished game ends; 0: never (default 7)",
    )
    limits.add_argument(
        "--unclaimed-expiry-minutes",
        type=float,
        default=15.0,
        metavar="MINUTES",
        help="minutes after which a game nobody took up ends: no person moved in it and nobody "
        "but its creator opened a seat's link; 0: only --expire-days (default 15)",
    )
    limits.add_argument(
        "--ipv4-prefix",
        type=int_in(8, 32),
        default=32,
        metavar="BITS",
        help="IPv4 addresses sharing this many leading bits are one client for every "
        "per-client limit (default 32: each address)",
    )
    limits.add_argument(
        "--ipv6-prefix",
        type=int_in(16, 128),
        default=64,
        metavar="BITS",
        help="IPv6 addresses sharing this many leading bits are one client for every "
        "per-client limit (default 64: one subscriber's network)",
    )
    limits.add_argument(
        "--max-connections",
        type=int_in(1),
        default=2000,
        metavar="N",
        help="connections open at once, all clients together; more are refused with a 503 "
        "(default 2000, lowered to fit the process's open-files limit)",
    )
    limits.add_argument(
        "--max-connections-per-address",
        type=int_in(1),
        default=100,
        metavar="N",
        help="connections open at once from one client address (default 100)",
    )
    limits.add_argument(
        "--header-timeout",
        type=seconds_in(0, 3600),
        default=10.0,
        metavar="SECONDS",
        help="time a client has to send a request's headers, from connecting (default 10)",
    )
    limits.add_argument(
        "--body-timeout",
        type=seconds_in(0, 3600),
        default=30.0,
        metavar="SECONDS",
        help="time a client has to send a request's whole body, once its headers are in "
        "(default 30)",
    )
    limits.add_argument(
        "--idle-timeout",
        type=seconds_in(0, 3600),
        default=5.0,
        metavar="SECONDS",
        help="an HTTP connection idle this long after a response is closed (default 5)",
    )
    access = parser.add_argument_group("who may use the server")
    access.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="a web page origin (scheme://host[:port]) that may also create games and open game "
        "websockets; pages this server serves always may (repeatable)",
    )
    access.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name this server is reached by, besides localhost, its --host and IP "
        "addresses (repeatable; also $CARCASSONNE_ALLOWED_HOSTS, comma-separated; '*': any "
        "name, when a proxy in front checks it); requests naming another host are refused, "
        "so that no web site can reach the server by making its own name resolve here",
    )
    access.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy's address: only from it are X-Forwarded-For and X-Forwarded-Proto "
        "believed, and it has no per-address connection cap (repeatable; default: none, every "
        "proxy header is ignored)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..web.logthrottle import throttled_handler
    except ImportError as exc:
        raise CommandError(
            f"the web server needs the 'web' extra (pip install 'carcassonne-engine[web]'): {exc}",
            FAILURE,
        ) from None
    app, db = build_app(args)
    sock = listen(args.host, args.port) if args.fd is None else inherited_socket(args.fd)
    address, port = sock.getsockname()[:2]  # the port: the one the system chose for --port 0
    host = f"[{address}]" if ":" in address else address
    files = open_files_limit()
    if connection_cap(args.max_connections, files) < args.max_connections:
        print(
            f"note: at most {connection_cap(args.max_connections, files)} connections at once "
            f"(the open-files limit is {files})",
            file=sys.stderr,
        )
    logging.basicConfig(level=logging.WARNING, handlers=[throttled_handler()])
    print(f"Carcassonne: open http://{host}:{port}/ in your browser (games in {db})", flush=True)
    config = server_config(app, args, files)
    tune_garbage_collector()
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def tune_garbage_collector() -> None:
    """Make the garbage collector's pauses short and rare while serving (issue 22, item 6).

    With hundreds of games in memory a full collection walks every object of every game: at
    600 games it stopped the server for a quarter of a second every few seconds, which is what
    broke the moves' p95 (``benchmarks/README.md``).  What is alive once the server has started
    (modules, the tiles' tables) lives as long as the server: frozen, no collection walks it
    again.  The higher thresholds make every generation's collections rarer: a game in memory
    grows by some objects every move, each a young object to walk and promote.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def build_app(args: argparse.Namespace) -> tuple[Any, str]:
    """The web app for these flags, and the database it keeps its games in (as it may be
    shown: a URL without its password)."""
    from ..web import botworker, create_app
    from ..web.ratelimit import Limit, RateLimits
    from ..web.storage import StorageError, default_db_path

    if not 0 <= args.bot_delay <= 60:
        raise CommandError(f"--bot-delay must be from 0 to 60 seconds, not {args.bot_delay}")
    if not 0 <= args.expire_days <= 36500:
        raise CommandError(f"--expire-days must be from 0 (never) to 36500, not {args.expire_days}")
    if not 0 <= args.unclaimed_expiry_minutes <= 10080:
        raise CommandError(
            "--unclaimed-expiry-minutes must be from 0 (as any other game) to 10080, "
            f"not {args.unclaimed_expiry_minutes}"
        )
    for origin in args.allow_origin:
        if not valid_origin(origin):
            raise CommandError(
                f"--allow-origin must be scheme://host[:port] (like https://example.org), "
                f"not {origin!r}"
            )
    allowed_hosts = allowed_host_names(args)
    if args.bot_workers is not None:
        botworker.configure(args.bot_workers)
    limits = RateLimits(
        create=Limit(args.games_per_minute, burst=args.games_per_minute),
        replay=Limit(args.replays_per_minute, burst=args.replays_per_minute),
    )
    db: str | Path = args.db or os.environ.get("CARCASSONNE_DB") or default_db_path()
    try:
        app = create_app(
            db,
            bot_delay=args.bot_delay,
            limits=limits,
            max_live_games=args.max_games,
            max_games_per_address=args.games_per_address,
            expire_after=args.expire_days * 86400 if args.expire_days else None,
            expire_unclaimed_after=args.unclaimed_expiry_minutes * 60 or None,
            address_groups=address_groups(args),
            allowed_origins=frozenset(args.allow_origin),
            allowed_hosts=allowed_hosts,
        )
    except StorageError as exc:
        raise CommandError(str(exc), FAILURE) from None
    return app, app.state.storage.name


def address_groups(args: argparse.Namespace) -> AddressGroups:
    """Which addresses are one client (``--ipv4-prefix``, ``--ipv6-prefix``)."""
    from ..web.addresses import AddressGroups

    return AddressGroups(args.ipv4_prefix, args.ipv6_prefix)


def allowed_host_names(args: argparse.Namespace) -> frozenset[str]:
    """The host names the server answers to: localhost, the name it listens on, and those of
    ``--allowed-host`` and ``$CARCASSONNE_ALLOWED_HOSTS``."""
    from ..web.guards import ANY_HOST, LOCAL_HOST_NAMES, is_ip_address, normal_host_name

    from_env = os.environ.get("CARCASSONNE_ALLOWED_HOSTS", "").split(",")
    names = {normal_host_name(name) for name in [*args.allowed_host, *from_env] if name.strip()}
    for name in sorted(names):
        if name != ANY_HOST and not DNS_NAME.fullmatch(name) and not is_ip_address(name):
            raise CommandError(
                f"--allowed-host must be a host name or address without scheme or port "
                f"(like games.example.org), not {name!r}"
            )
    return LOCAL_HOST_NAMES | {normal_host_name(args.host)} | names


def valid_origin(origin: str) -> bool:
    scheme, sep, rest = origin.partition("://")
    return bool(sep) and scheme in ("http", "https") and bool(rest) and "/" not in rest


def open_files_limit() -> int:
    """Raise this process's open-files limit as far as it may go, and return it: past it the
    server could not even accept a connection to refuse it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(wanted: int, files: int) -> int:
    """The connections the server may hold at once under an open-files limit of ``files``
    (half of them at least, should the limit be tiny: bursts are then briefly paused by the
    event loop, which logs it)."""
    return min(wanted, max(files // 2, files - RESERVED_FILES))


def server_config(app: Any, args: argparse.Namespace, files: int) -> Any:
    """uvicorn's configuration of ``app`` for these flags; ``files``: the open-files limit."""
    import uvicorn

    from ..web.headerlimits import MAX_HEADER_BYTES
    from ..web.protocol import MAX_MESSAGE_BYTES
    from ..web.socketlimits import ConnectionGuard, ConnectionLimits, guarded_protocols

    limits = ConnectionLimits(
        max_connections=connection_cap(args.max_connections, files),
        max_per_address=args.max_connections_per_address,
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
    )
    guard = ConnectionGuard(limits, frozenset(args.trusted_proxy), address_groups(args))
    http, ws = guarded_protocols(guard)
    return uvicorn.Config(
        app,
        http=http,
        ws=ws,
        # uvicorn's default is 16 MiB, buffered before the app could refuse it; a frame larger
        # than the protocol allows is now refused from its header, before its payload is read
        ws_max_size=MAX_MESSAGE_BYTES,
        # a head arriving in pieces is bounded by h11 itself, a whole one by the app
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        timeout_keep_alive=args.idle_timeout,
        proxy_headers=bool(args.trusted_proxy),
        forwarded_allow_ips=list(args.trusted_proxy),
        log_config=None,  # run() logs through a rate-limited handler
        log_level="warning",
        access_log=False,
        backlog=ACCEPT_BACKLOG,
    )


def inherited_socket(fd: int) -> socket.socket:
    """The bound TCP socket inherited as file descriptor ``fd`` (``--fd``)."""
    try:
        sock = socket.socket(fileno=fd)
    except OSError as exc:
        raise CommandError(f"--fd {fd}: {exc.strerror or exc}", FAILURE) from None
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
        problem = "is not a TCP socket"
    elif sock.getsockname()[1] == 0:
        problem = "is not bound to a port"
    else:
        return sock
    sock.detach()  # not ours to close
    raise CommandError(f"--fd {fd} {problem}", FAILURE)


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound here so that a taken port or unknown host is one clear line
    (uvicorn would log it after we announced the address, and exit with its own status)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        reason = exc.strerror or exc
        raise CommandError(f"cannot listen on {host} port {port}: {reason}", FAILURE) from None
    return sock
