"""Formats at the edge of the engine: actions as JSON, game records."""
