"""Progress of a long run, readable in a terminal and in a CI log alike.

In a terminal every record gets its line; elsewhere (a CI log, ``nox -j``'s buffered output,
``nohup``) a line at each tenth of the run says how far it is and what came out so far, so
that 200 cases make 10 lines, not 200. Under ``nox -j`` nox holds a session's output until
it ends; the noxfile then names nox's own stderr in ``PALLAS_COMPAT_PROGRESS``, and the tenth
lines also go there as they happen (``live``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from typing import IO


class Progress:
    def __init__(self, what: str, total: int, stream: IO[str] | None = None) -> None:
        self.what, self.total, self.done = what, total, 0
        self.stream = stream or sys.stderr
        self.every = self.stream.isatty()
        self.statuses: Counter[str] = Counter()
        self.next_mark = 1

    def record(self, status: str, line: str) -> None:
        """One record finished with ``status``; ``line`` describes it (kept to a terminal)."""
        self.done += 1
        self.statuses[status] += 1
        if self.every:
            print(f"[{self.done}/{self.total}] {line}", file=self.stream, flush=True)
        elif self.done * 10 >= self.next_mark * self.total or self.done == self.total:
            self.next_mark = self.done * 10 // max(self.total, 1) + 1
            tally = ", ".join(f"{s} {n}" for s, n in sorted(self.statuses.items()))
            text = f"{self.what}: {self.done}/{self.total} ({tally})"
            print(text, file=self.stream, flush=True)
            live(text)


def live(line: str) -> None:
    """``line`` to where ``PALLAS_COMPAT_PROGRESS`` points (nox's stderr under ``nox -j``),
    if anywhere; a place that cannot be written is passed over (progress is a courtesy)."""
    where = os.environ.get("PALLAS_COMPAT_PROGRESS")
    if not where:
        return
    with contextlib.suppress(OSError), open(where, "a", encoding="utf-8") as out:
        out.write(f"  ... {line}\n")
