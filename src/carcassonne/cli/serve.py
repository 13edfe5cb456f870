"""`carcassonne serve`: the browser game (lobby, play, replays) on a local web server."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "serve",
        help="play in the browser: start the web server",
        description="Serve the browser game. Open the printed address, create a game, and send "
        "each player their own link. Games are kept in an SQLite file and survive restarts.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
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
        type=int,
        default=10,
        help="games one client address may create a minute, all at once at most (default 10)",
    )
    parser.add_argument(
        "--replays-per-minute",
        type=int,
        default=20,
        help="records one client address may upload for replay a minute (default 20)",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=1000,
        help="unfinished games the server holds at once; more are refused (default 1000)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..web import create_app
        from ..web.ratelimit import Limit, RateLimits
        from ..web.storage import StorageError, default_db_path
    except ImportError as exc:
        print(
            f"the web server needs the 'web' extra (pip install 'carcassonne-engine[web]'): {exc}",
            file=sys.stderr,
        )
        return 1
    if not 0 <= args.bot_delay <= 60:
        print("--bot-delay must be between 0 and 60 seconds", file=sys.stderr)
        return 2
    for flag in ("games_per_minute", "replays_per_minute", "max_games"):
        if getattr(args, flag) < 1:
            print(f"--{flag.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    limits = RateLimits(
        create=Limit(args.games_per_minute, burst=args.games_per_minute),
        replay=Limit(args.replays_per_minute, burst=args.replays_per_minute),
    )
    db = args.db or default_db_path()
    try:
        app = create_app(db, bot_delay=args.bot_delay, limits=limits, max_live_games=args.max_games)
    except StorageError as exc:
        print(f"cannot open the games database: {exc}", file=sys.stderr)
        return 1
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Carcassonne: open http://{host}:{args.port}/ in your browser (games in {db})")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
