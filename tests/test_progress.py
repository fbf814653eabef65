"""kernels/_progress.py: a line per record in a terminal, a line per tenth in a log."""

from __future__ import annotations

import io

from kernels._progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(stream: io.StringIO, total: int) -> list[str]:
    progress = Progress("cases", total, stream)
    for i in range(total):
        progress.record("works" if i % 3 else "error", f"case {i}")
    return stream.getvalue().splitlines()


def test_a_log_gets_a_line_per_tenth_and_the_last_one_counts_everything() -> None:
    lines = run(io.StringIO(), 207)
    assert len(lines) == 10
    assert lines[-1] == "cases: 207/207 (error 69, works 138)"
    assert lines[0].startswith("cases: 21/207 (")


def test_a_short_run_in_a_log_still_ends_with_its_total() -> None:
    assert run(io.StringIO(), 3) == [
        "cases: 1/3 (error 1)",
        "cases: 2/3 (error 1, works 1)",
        "cases: 3/3 (error 1, works 2)",
    ]


def test_a_terminal_gets_every_record_numbered() -> None:
    lines = run(Terminal(), 12)
    assert len(lines) == 12 and lines[4] == "[5/12] case 4"
