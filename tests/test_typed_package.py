"""The installed package says it is typed (PEP 561), so projects that import it get its types."""

from __future__ import annotations

from importlib.resources import files


def test_installed_package_carries_the_py_typed_marker() -> None:
    # Read through the import system, so a wheel or a compiled install that left the marker out
    # of its package data fails here, not only a source checkout without the file.
    assert files("carcassonne").joinpath("py.typed").is_file()
