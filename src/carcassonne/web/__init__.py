"""Play in the browser: an ASGI app (Starlette + websockets) over the engine, with SQLite storage.

Start it with ``carcassonne serve``; :func:`create_app` builds the app for tests or another ASGI
server.  See ``docs/web.md``.
"""

from .app import create_app

__all__ = ["create_app"]
