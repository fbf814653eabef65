from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "probes", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--groups", "nope"], "unknown probe group 'nope'"),
        (["--out", "/nonexistent-dir/x.json"], "does not exist"),
        (["--jobs", "0"], "must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert says in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_out_naming_a_folder_is_refused(tmp_path: Path) -> None:
    done = run("--out", str(tmp_path))
    assert done.returncode == 2 and "is a directory" in done.stderr


def test_one_group_to_a_file_and_to_stdout(tmp_path: Path) -> None:
    out = tmp_path / "surface.json"
    done = run("--groups", "surface", "--out", str(out))
    assert done.returncode == 0, done.stderr
    snap = json.loads(out.read_text())
    assert snap["summary"]["group_failures"] == {}
    assert "jax.experimental.pallas" in snap["modules"]
    assert snap["behaviours"].keys() >= {"compiler_params_tpu"}
    assert "probes: surface" in done.stderr
    to_stdout = run("--groups", "surface", "--quiet")
    assert to_stdout.returncode == 0 and to_stdout.stderr == ""
    assert json.loads(to_stdout.stdout)["modules"] == snap["modules"]
