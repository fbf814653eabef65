"""The results document: one record per kernel x mode, plus the release it ran on."""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any

from common import KERNELS_SCHEMA as SCHEMA
from common import python_minor
from kernels._modes import Mode
from kernels._progress import Progress

__all__ = ["SCHEMA", "collect"]


def collect(modes: Iterable[Mode], only: Iterable[str], progress: IO[str] | None) -> dict[str, Any]:
    import jax

    from kernels import _registry  # noqa: F401  (registers the cases)
    from kernels._case import CASES, WRONG
    from kernels._measured import MEASURED
    from kernels._runner import run

    modes = list(modes)
    wanted = set(only)
    total = sum(1 for n in [*CASES, *WRONG] if not wanted or n in wanted) * len(modes)
    tracker = Progress(f"the chapter's kernels on JAX {jax.__version__}", total, progress)
    records = []
    for record in run(modes, only):
        records.append(record)
        if progress is not None:
            measured = record.get(MEASURED)
            extra = f"max abs error {measured:.2e}" if measured is not None else ""
            extra = extra or record.get("detail", "")
            line = f"{record['kernel']:34} {record['mode']:10} {record['status']:12} {extra}"
            tracker.record(record["status"], line.splitlines()[0][:160])
    return {
        "schema": SCHEMA,
        "jax": jax.__version__,
        "python": python_minor(),
        "modes": [m.value for m in modes],
        "results": records,
    }
