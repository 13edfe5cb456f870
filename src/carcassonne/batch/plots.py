"""The tournament's pictures, drawn from its JSON report with matplotlib (PNG and SVG).

Figures are built with ``matplotlib.figure.Figure`` directly, not ``pyplot``: no global state,
no display needed, nothing left open.  SVGs carry no date, so a rerun writes the same files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FORMATS = ("png", "svg")
#: one colour per bot, the same in every figure
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2")


def write_plots(report: dict[str, Any], folder: Path) -> list[Path]:
    """Draw every figure the report has data for into ``folder``; the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    figures = {
        "ratings": _ratings(report),
        "scores": _scores(report),
        "sources": _sources(report),
    }
    for section in report["tallies"]:
        figures[section] = _tally(report, section)
    written = []
    for name, figure in figures.items():
        for suffix in FORMATS:
            path = folder / f"{name}.{suffix}"
            metadata = {"Date": None} if suffix == "svg" else None
            figure.savefig(path, format=suffix, dpi=110, metadata=metadata)
            written.append(path)
    return written


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure  # the [tournament] extra

    return Figure(figsize=(width, height), layout="constrained")


def _colours(count: int) -> list[str]:
    return [PALETTE[i % len(PALETTE)] for i in range(count)]


def _ratings(report: dict[str, Any]) -> Any:
    """Each bot's rating with its 95 % interval, best at the top."""
    rows = [b for b in report["bots"] if "rating" in b]
    rows.sort(key=lambda b: b["rating"]["mu"])
    figure = _figure(7, 1.2 + 0.5 * len(rows))
    axes = figure.add_subplot()
    for y, row in enumerate(rows):
        rating = row["rating"]
        colour = PALETTE[[b["bot"] for b in report["bots"]].index(row["bot"]) % len(PALETTE)]
        axes.errorbar(
            rating["mu"],
            y,
            xerr=[[rating["mu"] - rating["low"]], [rating["high"] - rating["mu"]]],
            fmt="o",
            color=colour,
            capsize=5,
        )
    axes.set_yticks(range(len(rows)), [r["bot"] for r in rows])
    axes.set_ylim(-0.6, len(rows) - 0.4)
    axes.set_xlabel("rating (Plackett–Luce mu, bars: 95 % interval)")
    axes.set_title(f"Ratings after {report['tournament']['games']} games")
    axes.grid(axis="x", alpha=0.3)
    return figure


def _scores(report: dict[str, Any]) -> Any:
    """Distribution of each bot's final scores (box: quartiles; whiskers: 1.5 IQR)."""
    labels = [b["bot"] for b in report["bots"]]
    figure = _figure(7, 1.2 + 0.5 * len(labels))
    axes = figure.add_subplot()
    boxes = axes.boxplot(
        [report["scores"][label] for label in labels],
        orientation="horizontal",
        tick_labels=labels,
        patch_artist=True,
    )
    for patch, colour in zip(boxes["boxes"], _colours(len(labels)), strict=True):
        patch.set_facecolor(colour)
        patch.set_alpha(0.5)
    axes.invert_yaxis()
    axes.set_xlabel("final score")
    axes.set_title("Final scores")
    axes.grid(axis="x", alpha=0.3)
    return figure


def _sources(report: dict[str, Any]) -> Any:
    """Mean points per game of each bot, stacked by where they came from."""
    labels = [b["bot"] for b in report["bots"]]
    sources = list(report["bots"][0]["mean_points_by_source"])
    figure = _figure(8, 1.6 + 0.5 * len(labels))
    axes = figure.add_subplot()
    left = [0.0] * len(labels)
    cmap = _source_colours(len(sources))
    for source, colour in zip(sources, cmap, strict=True):
        values = [b["mean_points_by_source"][source] for b in report["bots"]]
        axes.barh(labels, values, left=left, label=source, color=colour)
        left = [a + b for a, b in zip(left, values, strict=True)]
    axes.invert_yaxis()
    axes.set_xlabel("mean points per game")
    axes.set_title("Points by source")
    figure.legend(loc="outside lower center", fontsize="small", ncols=min(len(sources), 6))
    axes.grid(axis="x", alpha=0.3)
    return figure


def _source_colours(count: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if count <= 10 else "tab20"]
    return [cmap(i) for i in range(count)]


def _tally(report: dict[str, Any], section: str) -> Any:
    """One panel per measure of an expansion's tally (bets: settled, won, points per game and
    per chip; wine: sales and points per outlet), bars grouped by item, one colour per bot."""
    per_bot = report["tallies"][section]
    labels = list(per_bot)
    items = list(per_bot[labels[0]])
    measures = list(per_bot[labels[0]][items[0]])
    figure = _figure(4 * min(len(measures), 3), 3.2 * -(-len(measures) // 3))
    width = 0.8 / len(labels)
    colours = _colours(len(labels))
    for panel, measure in enumerate(measures, 1):
        axes = figure.add_subplot(-(-len(measures) // 3), min(len(measures), 3), panel)
        for b, label in enumerate(labels):
            values = [per_bot[label][item][measure] for item in items]
            xs = [i + (b - (len(labels) - 1) / 2) * width for i in range(len(items))]
            axes.bar(
                xs, [0 if v is None else v for v in values], width, label=label, color=colours[b]
            )
        axes.set_xticks(range(len(items)), items)
        axes.set_title(measure.replace("_", " "), fontsize="medium")
        axes.grid(axis="y", alpha=0.3)
    figure.legend(labels, loc="outside upper right", fontsize="small")
    figure.suptitle(f"{section.capitalize()}, per bot (blank: never used)")
    return figure
