from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_compat._cli import build_parser, choice_of, inputs_of, split
from pallas_compat.lint._options import Choice, Inputs
from pallas_compat.lint._tree import Exclusions
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


def test_compilation_cache_naming_a_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "cache"
    file.write_text("not a folder")
    done = run("--compilation-cache", str(file), "--groups", "surface")
    assert done.returncode == 2 and "is not a folder" in done.stderr
    assert file.read_text() == "not a folder"


def test_out_naming_a_folder_is_refused(tmp_path: Path) -> None:
    done = run("--out", str(tmp_path))
    assert done.returncode == 2 and "is a folder; give a file name" in done.stderr


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


#: Runs the CLI with ``jax.experimental.pallas.triton`` needing a package nobody installed,
#: as some JAX releases need absl without declaring it.
UNDECLARED = """
import sys

class NeedsUndeclared:
    def find_spec(self, name, path=None, target=None):
        if name == "jax.experimental.pallas.triton":
            raise ModuleNotFoundError("No module named 'not_declared'", name="not_declared")

sys.meta_path.insert(0, NeedsUndeclared())
from probes._cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_check_imports_stops_with_3_then_clean_imports_records_the_finding(
    tmp_path: Path,
) -> None:
    marker, out = tmp_path / "imports.json", tmp_path / "snap.json"
    args = ["--groups", "surface", "--quiet", "--out", str(out)]
    first = subprocess.run(
        [sys.executable, "-c", UNDECLARED, *args, "--check-imports", str(marker)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert first.returncode == 3, first.stderr
    assert "imports not_declared without declaring it; install not_declared" in first.stderr
    assert not out.exists()
    found = json.loads(marker.read_text())
    assert found["undeclared"] == ["not_declared"]
    assert "not_declared" in found["errors"]["jax.experimental.pallas.triton"]

    second = run(*args, "--clean-imports", str(marker))
    assert second.returncode == 0, second.stderr
    environment = json.loads(out.read_text())["environment"]
    assert environment["undeclared_dependencies"] == ["not_declared"]
    assert "jax.experimental.pallas.triton" in environment["clean_venv_import_errors"]


def test_check_imports_in_a_complete_environment_goes_on_to_probe(tmp_path: Path) -> None:
    marker, out = tmp_path / "imports.json", tmp_path / "snap.json"
    done = run("--groups", "surface", "--out", str(out), "--check-imports", str(marker))
    assert done.returncode == 0, done.stderr
    assert json.loads(marker.read_text())["undeclared"] == []
    assert "undeclared_dependencies" not in json.loads(out.read_text())["environment"]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity here")
def test_default_jobs_are_the_cpus_this_process_may_use() -> None:
    """Under ``taskset`` (one CPU of several) the probes start one worker, not one per
    machine CPU."""
    code = "from probes._cli import _parser; print(_parser().parse_args([]).jobs)"
    one_cpu = f"import os; os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}}); {code}"
    pinned = subprocess.run(
        [sys.executable, "-c", one_cpu], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert pinned.returncode == 0, pinned.stderr
    assert pinned.stdout.strip() == "1"
    free = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert free.stdout.strip() == str(len(os.sched_getaffinity(0)))


def test_rule_flags_name_every_code_once_split() -> None:
    """``--select PAL1,PAL2 --select " PAL3 "``: every code named, empty ones dropped."""
    assert split(["PAL1,PAL2", " PAL3 ", ""]) == ["PAL1", "PAL2", " PAL3 "]


def test_the_options_are_typed_at_the_boundary(tmp_path: Path) -> None:
    """The CLI makes one typed value of the flags; nothing past it sees ``argparse``."""
    args = build_parser().parse_args(
        ["migrate", str(tmp_path), "--write", "--select", "PAL1,PAL2", "--extend-exclude",
         "a, b", "--no-respect-gitignore", "-j", "2", "--no-cache", "--target", "0.6.2"]
    )  # fmt: skip
    inputs, choice = inputs_of(args), choice_of(args)
    assert inputs == Inputs((str(tmp_path),), Exclusions(("a", "b"), False), 2, None)
    assert choice == Choice(("PAL1", "PAL2"), (), "0.6.2", None)
