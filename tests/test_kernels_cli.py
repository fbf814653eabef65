"""``python -m kernels``: progress lines, results JSON, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernels._cli import main

REPO = Path(__file__).resolve().parent.parent


def test_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results.json"
    status = main(
        ["--only", "add", "double", "--modes", "interpret", "tpu_lower", "--out", str(out)]
    )
    progress = capsys.readouterr().err.splitlines()
    results = json.loads(out.read_text())
    assert status == 0
    assert results["schema"] == "pallas-compat/kernels/1" and results["jax"]
    assert [(r["kernel"], r["mode"]) for r in results["results"]] == [
        ("add", "interpret"),
        ("add", "tpu_lower"),
        ("double", "interpret"),
        ("double", "tpu_lower"),
    ]
    assert all(r["status"] == "pass" for r in results["results"])
    # not a terminal: a line per tenth of the run, the last one counting every record
    assert len(progress) == 4 and progress[-1].endswith(": 4/4 (pass 4)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--modes", "fast"], "unknown mode(s) fast"),
        (["--only", "no_such_kernel"], "unknown kernel(s) no_such_kernel"),
        (["--out", "/no/such/dir/r.json"], "folder /no/such/dir does not exist"),
    ],
)
def test_bad_input(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_module_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kernels", "--only", "add", "--modes", "interpret", "-q"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and json.loads(done.stdout)["results"][0]["status"] == "pass"
