"""doctor, migrate and the report read source with the standard library's ``ast`` alone: run
with a ``libcst`` that could be imported (a stand-in on the path), none of them imports it,
nor JAX or NumPy (doctor and migrate read code; they run none)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
IDIOMS = REPO / "tests" / "fixtures" / "idioms"
#: What none of the three may import.
HEAVY = ("libcst", "jax", "jaxlib", "numpy")


def loaded_after(tmp_path: Path, call: str) -> list[str]:
    """The modules of ``HEAVY`` imported by ``call`` (Python run with a stand-in libcst that
    imports fine, and JAX and NumPy installed)."""
    stand_in = tmp_path / "path" / "libcst"
    stand_in.mkdir(parents=True)
    (stand_in / "__init__.py").write_text("")
    code = (
        "import contextlib, io, sys\n"
        f"with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    {call}\n"
        f"print(sorted({{m.partition('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{tmp_path / 'path'}:{REPO}"},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.strip().splitlines()[-1])  # a printed list of names


def test_the_stand_in_would_be_seen(tmp_path: Path) -> None:
    """The check can fail: a run that imports libcst is caught."""
    assert loaded_after(tmp_path, "import libcst") == ["libcst"]


@pytest.mark.parametrize(
    "command",
    [
        ["doctor", str(IDIOMS), "--target", "0.12.0.1", "--no-cache", "-j", "1"],
        ["migrate", str(IDIOMS), "--target", "0.12.0.1", "--no-cache", "-j", "1"],
    ],
    ids=["doctor", "migrate"],
)
def test_doctor_and_migrate_import_no_second_reader(tmp_path: Path, command: list[str]) -> None:
    call = f"from pallas_compat._cli import main; main({command!r})"
    assert loaded_after(tmp_path, call) == []


def test_the_report_imports_no_second_reader(tmp_path: Path) -> None:
    """The report asks the rules what migrate fixes by running migrate (``report._migrated``)."""
    out = tmp_path / "out"
    out.mkdir()
    call = f"from report._cli import main; main(['--out', {str(out)!r}])"
    assert loaded_after(tmp_path, call) == []
    assert (out / "api-diff.md").is_file()  # the report was made
