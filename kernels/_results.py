"""The results document: one record per kernel x mode, plus the release it ran on."""

from __future__ import annotations

import platform
from collections.abc import Iterable
from typing import IO, Any

from common import KERNELS_SCHEMA as SCHEMA
from kernels._modes import Mode

__all__ = ["SCHEMA", "collect"]


def collect(modes: Iterable[Mode], only: Iterable[str], progress: IO[str] | None) -> dict[str, Any]:
    import jax

    from kernels import _registry  # noqa: F401  (registers the cases)
    from kernels._runner import run

    records = []
    for record in run(list(modes), only):
        records.append(record)
        if progress is not None:
            extra = record.get("error_bound", record.get("detail", ""))
            line = f"{record['kernel']:34} {record['mode']:10} {record['status']:12} {extra}"
            progress.write(line.splitlines()[0][:160] + "\n")
            progress.flush()
    return {
        "schema": SCHEMA,
        "jax": jax.__version__,
        "python": platform.python_version(),
        "modes": [m.value for m in modes],
        "results": records,
    }
