"""``.pre-commit-hooks.yaml``: each hook is a valid manifest entry, and its ``entry`` run the
way pre-commit runs it (the entry, its args, then the staged files) fails on drifted code and
passes on clean code."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
#: What pre-commit's manifest schema requires of each hook, and what it accepts.
REQUIRED = {"id", "name", "entry", "language"}
KNOWN = REQUIRED | {"description", "types", "types_or", "require_serial", "args", "files"}


def test_the_manifest_is_a_list_of_valid_hooks() -> None:
    assert isinstance(HOOKS, list) and {h["id"] for h in HOOKS} == {
        "pallas-compat-doctor",
        "pallas-compat-migrate",
    }
    for hook in HOOKS:
        assert REQUIRED <= set(hook) <= KNOWN and hook["language"] == "python"
        assert shlex.split(hook["entry"])[0] == "pallas-compat"  # the console script


@pytest.mark.parametrize("hook", HOOKS, ids=lambda h: h["id"])
def test_each_entry_fails_on_drift_and_passes_on_clean_code(hook: dict, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-compat]\ntarget = "0.12.0.1"\n')
    old = tmp_path / "old.py"
    old.write_text("from jax.experimental import pallas as pl\nx = pl.load(r, (0,))\n")
    clean = tmp_path / "clean.py"
    clean.write_text("from jax.experimental import pallas as pl\ni = pl.program_id(0)\n")
    # the console script of this environment, as pre-commit's hook environment has it
    command = [sys.executable, "-m", "pallas_compat", *shlex.split(hook["entry"])[1:]]
    for path, expected in ((old, 1), (clean, 0)):
        done = subprocess.run(
            [*command, *hook.get("args", []), str(path)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        assert done.returncode == expected, (path.name, done.stdout, done.stderr)
    assert old.read_text().count("pl.load") == 1  # a check, never a rewrite
