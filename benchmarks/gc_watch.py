"""Run a Python module with every garbage collection it makes timed, one line each in a file.

    python benchmarks/gc_watch.py PAUSES.jsonl -m carcassonne.cli.main serve ...

Each line is ``[generation, seconds, monotonic time at its end, CPU seconds]``: on a loaded
machine a collection's wall time includes the time the process waited for a processor, its CPU
time does not. The file is written line by line (a server stopped by a signal runs no exit
handlers); :func:`summary` reads it back.
``bench_web.py --gc-pauses`` starts its servers this way.
"""

from __future__ import annotations

import gc
import json
import runpy
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def watch(out: Path) -> None:
    """Time every collection from now on into ``out``."""
    log = out.open("w", buffering=1)
    began = [0.0, 0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[:] = time.perf_counter(), time.thread_time()
        else:
            wall, cpu = time.perf_counter() - began[0], time.thread_time() - began[1]
            log.write(json.dumps([info["generation"], wall, time.monotonic(), cpu]) + "\n")

    gc.callbacks.append(callback)


def summary(path: Path) -> str:
    """One line: the collections of each generation (their wall time's p50 and max, their CPU
    time's max and total), and how often a full one came."""
    pauses = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not pauses:
        return "no collection"
    parts = []
    for generation in (0, 1, 2):
        times = sorted(p[1] for p in pauses if p[0] == generation)
        cpu = sorted(p[3] for p in pauses if p[0] == generation)
        if times:
            p50, longest = statistics.median(times) * 1000, times[-1] * 1000
            parts.append(f"gen {generation}: {len(times)} (wall p50 {p50:.1f} ms, max "
                         f"{longest:.0f} ms; CPU max {cpu[-1] * 1000:.0f} ms, "
                         f"total {sum(cpu):.2f} s)")  # fmt: skip
    full = [p[2] for p in pauses if p[0] == 2]
    if len(full) > 1:
        gaps = [b - a for a, b in zip(full, full[1:], strict=False)]
        parts.append(f"a full one every {statistics.median(gaps):.1f} s")
    return "; ".join(parts)


def main() -> None:
    out, flag, module, *args = sys.argv[1:]
    if flag != "-m":
        raise SystemExit("usage: gc_watch.py PAUSES.jsonl -m MODULE [ARGS...]")
    watch(Path(out))
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
