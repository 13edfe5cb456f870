"""`carcassonne serve`: the browser game (lobby, play, replays) on a local web server."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

from .errors import FAILURE, CommandError
from .options import int_in, port


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "serve",
        help="play in the browser: start the web server",
        description="Serve the browser game. Open the printed address, create a game, and send "
        "each player their own link. Games are kept in an SQLite file and survive restarts.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port, default=8000, help="port to listen on")
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="games database (default: $XDG_DATA_HOME/carcassonne/games.sqlite3)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        help="seconds a bot waits before each move, so people can follow (default 0.6)",
    )
    parser.add_argument(
        "--games-per-minute",
        type=int_in(1),
        default=10,
        help="games one client address may create a minute, all at once at most (default 10)",
    )
    parser.add_argument(
        "--replays-per-minute",
        type=int_in(1),
        default=20,
        help="records one client address may upload for replay a minute (default 20)",
    )
    parser.add_argument(
        "--max-games",
        type=int_in(1),
        default=1000,
        help="unfinished games the server holds at once; more are refused (default 1000)",
    )
    parser.add_argument(
        "--games-per-address",
        type=int_in(1),
        default=20,
        help="unfinished games one client address may have created (default 20)",
    )
    parser.add_argument(
        "--expire-days",
        type=float,
        default=7.0,
        help="days without a move after which an unfinished game ends; 0: never (default 7)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..web import create_app
        from ..web.ratelimit import Limit, RateLimits
        from ..web.storage import StorageError, default_db_path
    except ImportError as exc:
        raise CommandError(
            f"the web server needs the 'web' extra (pip install 'carcassonne-engine[web]'): {exc}",
            FAILURE,
        ) from None
    if not 0 <= args.bot_delay <= 60:
        raise CommandError(f"--bot-delay must be from 0 to 60 seconds, not {args.bot_delay}")
    if not 0 <= args.expire_days <= 36500:
        raise CommandError(f"--expire-days must be from 0 (never) to 36500, not {args.expire_days}")
    limits = RateLimits(
        create=Limit(args.games_per_minute, burst=args.games_per_minute),
        replay=Limit(args.replays_per_minute, burst=args.replays_per_minute),
    )
    db = args.db or default_db_path()
    try:
        app = create_app(
            db,
            bot_delay=args.bot_delay,
            limits=limits,
            max_live_games=args.max_games,
            max_games_per_address=args.games_per_address,
            expire_after=args.expire_days * 86400 if args.expire_days else None,
        )
    except StorageError as exc:
        raise CommandError(str(exc), FAILURE) from None
    sock = listen(args.host, args.port)
    host = f"[{args.host}]" if ":" in args.host else args.host
    port = sock.getsockname()[1]  # the one the system chose for --port 0
    print(f"Carcassonne: open http://{host}:{port}/ in your browser (games in {db})", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0


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
