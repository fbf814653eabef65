"""What ``doctor`` says about the lines a failing test passed through: the drifted API used
there, its verdict on the run's release and what to write instead, so that a failure in the
matrix points at its fix."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from pallas_compat.facts._anchors import anchor_for
from pallas_compat.matrix._results import Run
from pallas_compat.rules._use import Use, UseState


@dataclass(frozen=True)
class Advice:
    where: str
    code: str
    api: str
    verdict: str
    write_instead: str
    anchor: str


@functools.cache
def uses_in(path: Path) -> tuple[Use, ...]:
    """doctor's uses in one file of the user's tree (read, never written); none if unreadable."""
    from pallas_compat.lint._finder import may_use_pallas  # lazy: rules
    from pallas_compat.lint._finder import uses_in as found_in  # lazy: rules

    try:
        data = path.read_bytes()
    except OSError:
        return ()
    if not may_use_pallas(data):
        return ()
    try:
        return tuple(found_in(str(path), data))
    except (SyntaxError, ValueError, RecursionError):
        return ()


@functools.cache
def _functions(path: Path) -> tuple[tuple[int, int], ...]:
    """(first, last) line of every function in the file, innermost last where nested."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    spans = [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    ]
    return tuple(sorted(spans, key=lambda span: (span[0], -span[1])))


def lines_around(path: Path, line: int) -> range:
    """The lines of the innermost function holding ``line`` (the error surfaces at a call,
    the drifted use is often a line or two above it), else the line itself."""
    holding = [(first, last) for first, last in _functions(path) if first <= line <= last]
    if not holding:
        return range(line, line + 1)
    first, last = min(holding, key=lambda span: span[1] - span[0])
    return range(first, last + 1)


def advice(run: Run, project: Path) -> list[Advice]:
    """doctor's findings that do not simply work on the run's release, in the functions the
    run's failures passed through, once each. A migrate run's copy is rewritten, so its lines
    are not the user's: none for it."""
    if run.route == "migrate":
        return []
    found: list[Advice] = []
    for failure in run.failures:
        for where in failure.where:
            relative, _, line = where.rpartition(":")
            path = project / relative
            around = lines_around(path, int(line))
            for use in uses_in(path):
                if use.line not in around or use.state_on(run.release) is UseState.WORKS:
                    continue
                at = f"{relative}:{use.line}"
                entry = Advice(
                    at, use.code, use.api, use.verdict(run.release), use.hint, anchor_for(use.api)
                )
                if entry not in found:
                    found.append(entry)
    return found
