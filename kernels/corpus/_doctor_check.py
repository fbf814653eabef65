"""Does ``doctor`` tell the truth about a kernel on a release? Checked against a plain run:
the kernel's files run unchanged on the release, their executed lines recorded
(``_lines.py``), and doctor's uses of those files that break there are matched with the
statements that ran. A run that failed for Pallas must have run a use doctor says breaks
(else doctor *missed* it); a run that worked must have run none (else a *false alarm*). A run
that failed for a known change outside Pallas (``NON_PALLAS_CHANGE``) is not doctor's."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import CorpusStatus, DoctorVerdict, LoweringStatus
from kernels.corpus._doctor_uses import uses_in
from kernels.corpus._run import NON_PALLAS_CHANGE


@dataclass(frozen=True)
class Flagged:
    file: str
    line: int
    api: str


def statement_lines(tree: ast.Module) -> dict[int, range]:
    """Each line -> the lines of the innermost statement holding it; for a compound statement
    only its header (decorators, ``def`` line, defaults, test), never its body."""
    spans: dict[int, range] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        body = getattr(node, "body", None)
        end = body[0].lineno - 1 if body and body[0].lineno > node.lineno else node.end_lineno
        span = range(start, (end or start) + 1)
        for line in span:
            if line not in spans or len(span) < len(spans[line]):
                spans[line] = span
    return spans


def breaking_uses_run(folder: Path, ran: dict[str, set[int]], target: str) -> list[Flagged]:
    """Doctor's uses, in the files under ``folder``, that break on ``target`` and whose
    statement ran."""
    from pallas_compat.lint._finder import UseState

    flagged = []
    for path in sorted(folder.rglob("*.py")):
        lines = ran.get(str(path), set())
        if not lines:
            continue
        text = path.read_text()
        spans = statement_lines(ast.parse(text))
        for use in uses_in(text):
            span = spans.get(use.line, range(use.line, use.line + 1))
            if use.state_on(target) is UseState.BREAKS and lines.intersection(span):
                flagged.append(Flagged(str(path.relative_to(folder)), use.line, str(use.api)))
    return flagged


def verdict(outcome: dict[str, Any], flagged: list[Flagged]) -> dict[str, Any]:
    """The doctor fields of a plain run's record: none where the run says nothing about
    Pallas (a dependency outside it)."""
    status = outcome["status"]
    if status is CorpusStatus.DEPENDENCY:
        return {}
    if status is CorpusStatus.LOWERED_ONLY:  # no interpreter ran it: the lowering is the run
        failed = outcome.get("lowered", {}).get("status") != LoweringStatus.LOWERS
    else:
        failed = status is not CorpusStatus.WORKS
    if failed and not flagged and NON_PALLAS_CHANGE.search(outcome.get("detail", "")):
        found = DoctorVerdict.NOT_PALLAS
    elif failed and not flagged:
        found = DoctorVerdict.MISSED
    elif not failed and flagged:
        found = DoctorVerdict.FALSE_ALARM
    else:
        found = DoctorVerdict.AGREES
    return {"doctor": found, "flagged": sorted({f.api for f in flagged})}
