"""Run one probe group in this process and stream each result as a JSON line to a pipe.

Started by the runner as ``python -m probes._worker --fd N MODULE...``. Results go to fd N, not
stdout, so that kernels that print (``pl.debug_print``) cannot corrupt the stream.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import time
from typing import Any

from common import ProbeStatus, reset_simulator
from pallas_compat.shim._libtpu_env import keep_libtpu_offline
from probes._observe import error_record
from probes._pallas import Unavailable
from probes._registry import probes_of


def _emit(fd: int, message: dict[str, Any]) -> None:
    os.write(fd, (json.dumps(message, sort_keys=True, allow_nan=False) + "\n").encode())


def run(fd: int, modules: list[str], skip: set[str]) -> None:
    probes = [
        p for m in modules for p in probes_of(importlib.import_module(m)) if p.key not in skip
    ]
    _emit(fd, {"plan": [[p.key, p.timeout_s, p.title] for p in probes]})
    for p in probes:
        _emit(fd, {"start": p.key})
        started = time.perf_counter()
        try:
            value = p.fn()
            json.dumps(value, allow_nan=False)
            record: dict[str, Any] = {"status": ProbeStatus.OK, "value": value}
        except Unavailable as exc:  # a fact about this release, not a probe failure
            record = {"status": ProbeStatus.OK, "value": {"unavailable": str(exc)}}
        except Exception as exc:  # recorded, never fatal
            record = {"status": ProbeStatus.ERROR, "error": error_record(exc)}
            reset_simulator()
        record.update(done=p.key, seconds=round(time.perf_counter() - started, 3))
        _emit(fd, record)
    _emit(fd, {"end": True})


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m probes._worker")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--parent", type=int, help="the runner's pid: die with it")
    parser.add_argument("modules", nargs="+")
    args = parser.parse_args()
    if args.parent is not None:
        from probes._runner import die_with_parent

        die_with_parent(args.parent)
    keep_libtpu_offline()
    run(args.fd, args.modules, set(args.skip))


if __name__ == "__main__":
    main()
