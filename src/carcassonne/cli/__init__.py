"""Command-line interface: ``carcassonne play | simulate | replay | serve``."""
