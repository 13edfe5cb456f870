"""Text laid out in the terminal's width: wrapped lines and columns of entries.

Widths are counted in visible columns: colour codes (``ESC [ … m``) take none.
"""

from __future__ import annotations


def visible_len(text: str) -> int:
    """The columns ``text`` takes on screen, its colour codes left out."""
    out, skip = 0, False
    for ch in text:
        if ch == "\x1b":
            skip = True
        elif skip:
            skip = ch != "m"
        else:
            out += 1
    return out


def columns(entries: list[str], width: int, gap: int = 3) -> list[str]:
    """Entries in as many columns as fit ``width``, filled down then across (like ``ls``)."""
    if not entries:
        return []
    lengths = [visible_len(e) for e in entries]
    for ncols in range(len(entries), 0, -1):
        nrows = -(-len(entries) // ncols)
        ncols = -(-len(entries) // nrows)
        widths = [max(lengths[c * nrows : (c + 1) * nrows]) for c in range(ncols)]
        if 2 + sum(widths) + gap * (ncols - 1) <= width or ncols == 1:
            break
    rows = []
    for r in range(nrows):
        cells = []
        for c in range(ncols):
            i = c * nrows + r
            if i < len(entries):
                pad = widths[c] - lengths[i] + gap if c < ncols - 1 else 0
                cells.append(entries[i] + " " * pad)
        rows.append(("  " + "".join(cells)).rstrip())
    return rows


def wrap(prefix: str, text: str, width: int, hang: int = 0) -> list[str]:
    """``prefix`` + ``text`` wrapped at spaces to ``width`` visible columns; later lines start
    under the text, ``hang`` columns further in."""
    if visible_len(prefix + text) <= width:
        return [prefix + text]
    indent = " " * (visible_len(prefix) + hang)
    lines, line, empty = [], prefix, True
    for word in text.split():
        if not empty and visible_len(f"{line} {word}") > width:
            lines.append(line)
            line, empty = indent, True
        line, empty = (line + word if empty else f"{line} {word}"), False
    return [*lines, line]


def wrap_log(line: str, width: int) -> list[str]:
    """A log line wrapped to ``width``, its later lines indented under its first word."""
    text = line.lstrip(" ")
    return wrap(line[: len(line) - len(text)], text, width, 4)
