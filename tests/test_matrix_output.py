"""pallas_compat/matrix/_output.py: the terminal table and the whole-file output."""

from __future__ import annotations

import json
from pathlib import Path

from pallas_compat.matrix._output import render, write_output
from pallas_compat.matrix._results import FORMAT, Run, Status


def test_table_columns_line_up_and_failures_follow() -> None:
    runs = [
        Run("0.12.0.1", "native", Status.ERROR, exit_status=3, reason="Segmentation fault"),
        Run("0.12.0.1", "migrate", Status.PASSED, passed=12),
        Run("0.4.30", "native", Status.PASSED, passed=12, skipped=1),
    ]
    text = render("table", runs, ["pytest"], Path("/nowhere"), None)
    lines = text.splitlines()
    assert lines[0].split() == ["JAX", "native", "migrate"]
    assert lines[1].startswith("0.4.30") and "12 passed, 1 skipped" in lines[1]
    assert lines[2].index("error") == lines[0].index("native")
    assert "  JAX 0.12.0.1 native: Segmentation fault" in lines
    assert lines[-1] == "2 of 3 runs passed"
    data = json.loads(render("json", runs, ["pytest"], Path("/p"), None))
    assert data["format"] == FORMAT and [r["release"] for r in data["runs"]] == [
        "0.4.30",
        "0.12.0.1",
        "0.12.0.1",
    ]


def test_a_file_is_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "m.json"
    target.write_text("old")
    write_output(str(target), "new\n")
    assert target.read_text() == "new\n" and [p.name for p in tmp_path.iterdir()] == ["m.json"]
