"""kernels/_progress.py: a line per record in a terminal, a line per tenth in a log."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

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


def test_under_nox_j_the_tenths_also_go_live_to_nox_s_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nox -j holds a session's output until it ends; the noxfile names nox's stderr in
    PALLAS_COMPAT_PROGRESS, where the same tenth lines go as they happen."""
    live = tmp_path / "nox-stderr"
    monkeypatch.setenv("PALLAS_COMPAT_PROGRESS", str(live))
    held = run(io.StringIO(), 40)
    assert live.read_text().splitlines() == [f"  ... {line}" for line in held]


def test_a_progress_place_that_cannot_be_written_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PALLAS_COMPAT_PROGRESS", str(tmp_path / "no" / "such" / "folder"))
    assert len(run(io.StringIO(), 20)) == 10
