"""Which lines of the files under one folder ran, for the doctor check: ``sys.monitoring``
(Python 3.12) with line events switched on only for code from those files, so JAX's own code
runs at full speed; ``sys.settrace`` on older Pythons."""

from __future__ import annotations

import collections
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import Any


@contextlib.contextmanager
def lines_run(folder: Path) -> Iterator[dict[str, set[int]]]:
    """Yield {file: line numbers run} for the files under ``folder``, filled as code runs."""
    ran: dict[str, set[int]] = collections.defaultdict(set)
    prefix = str(folder) + os.sep
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        with traced(prefix, ran):
            yield ran
        return
    tool = next((i for i in range(6) if monitoring.get_tool(i) is None), None)
    if tool is None:  # every tool id taken (a debugger, a profiler, coverage, ...)
        with traced(prefix, ran):
            yield ran
        return
    events = monitoring.events
    monitoring.use_tool_id(tool, "pallas-compat doctor check")

    def started(code: CodeType, offset: int) -> Any:
        if code.co_filename.startswith(prefix):
            monitoring.set_local_events(tool, code, events.LINE)
        return monitoring.DISABLE

    def line(code: CodeType, number: int) -> Any:
        ran[code.co_filename].add(number)
        return monitoring.DISABLE  # each line once is all we need

    monitoring.register_callback(tool, events.PY_START, started)
    monitoring.register_callback(tool, events.LINE, line)
    monitoring.set_events(tool, events.PY_START)
    monitoring.restart_events()  # what an earlier run switched off (DISABLE) counts again
    try:
        yield ran
    finally:
        monitoring.set_events(tool, 0)
        monitoring.register_callback(tool, events.PY_START, None)
        monitoring.register_callback(tool, events.LINE, None)
        monitoring.free_tool_id(tool)


@contextlib.contextmanager
def traced(prefix: str, ran: dict[str, set[int]]) -> Iterator[None]:
    def local(frame: FrameType, event: str, arg: object) -> Any:
        if event == "line":
            ran[frame.f_code.co_filename].add(frame.f_lineno)
        return local

    def calls(frame: FrameType, event: str, arg: object) -> Any:
        return local if frame.f_code.co_filename.startswith(prefix) else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        yield
    finally:
        sys.settrace(previous)
