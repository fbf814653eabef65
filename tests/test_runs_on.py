"""doctor's last lines: the releases each file and the tree run on unchanged, and through
pallas_compat. Expected ranges come from the scan's and the measurement's files, not doctor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

from pallas_compat._cli import main

REPO = Path(__file__).resolve().parent.parent
SCAN = json.loads((REPO / "pallas_compat" / "facts" / "release_ranges.json").read_text())
SERVED = json.loads((REPO / "pallas_compat" / "facts" / "served.json").read_text())
PL, TPU = "jax.experimental.pallas", "jax.experimental.pallas.tpu"

#: The first question users bring: pl.load, pl.store and pltpu.TPUCompilerParams.
OLD_KERNEL = """\
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    pl.store(o_ref, (slice(None),), pl.load(x_ref, (slice(None),)) + 1)


def run(x):
    params = pltpu.TPUCompilerParams(dimension_semantics=("parallel",))
    return pl.pallas_call(kernel, out_shape=x, compiler_params=params)(x)
"""
#: A new name on old releases: what the shim can build there is what was measured.
NEW_KERNEL = """\
from jax.experimental.pallas import tpu as pltpu

params = pltpu.InterpretParams()
"""


def inside(spans: list[list[str]], release: str) -> bool:
    return any(Version(a) <= Version(release) <= Version(b) for a, b in spans)


def runs(releases: list[str]) -> str:
    """``JAX 0.4.33-0.7.1`` for consecutive scanned releases (one run expected here)."""
    assert releases
    order = SCAN["releases"]
    assert order.index(releases[-1]) - order.index(releases[0]) == len(releases) - 1
    return f"JAX {releases[0]}" + (f"-{releases[-1]}" if len(releases) > 1 else "")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "old.py").write_text(OLD_KERNEL)
    (tmp_path / "new.py").write_text(NEW_KERNEL)
    return tmp_path


def doctor_json(capsys: pytest.CaptureFixture[str], *paths: Path) -> dict:
    main(["doctor", *map(str, paths), "--target", "0.4.35", "--format", "json"])
    return json.loads(capsys.readouterr().out)


def test_the_old_kernel_runs_unchanged_where_all_three_names_exist(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = [f"{PL}:load", f"{PL}:store", f"{TPU}:TPUCompilerParams"]
    unchanged = [r for r in SCAN["releases"] if all(inside(SCAN["locations"][k], r) for k in keys)]
    report = doctor_json(capsys, tree / "old.py")
    (entry,) = report["files"]
    assert entry["runs_unchanged"] == runs(unchanged)  # 0.4.33-0.7.1: deprecated still runs
    assert entry["with_pallas_compat"] == runs(SCAN["releases"])  # the shim serves all three
    for name, alias in (("load", "pl"), ("store", "pl"), ("TPUCompilerParams", "pltpu")):
        assert inside(SERVED["namespaces"][alias][name], SCAN["releases"][-1])


def test_a_new_name_runs_through_the_shim_only_where_it_was_measured(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    native = [r for r in SCAN["releases"] if inside(SCAN["locations"][f"{TPU}:InterpretParams"], r)]
    measured = [
        r for r in SCAN["releases"] if inside(SERVED["namespaces"]["pltpu"]["InterpretParams"], r)
    ]
    assert set(native) < set(measured) < set(SCAN["releases"])  # back-filled, not everywhere
    (entry,) = doctor_json(capsys, tree / "new.py")["files"]
    assert entry["runs_unchanged"] == runs(native)
    assert entry["with_pallas_compat"] == runs(measured)


def test_the_tree_runs_where_every_file_does(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = doctor_json(capsys, tree)
    by_path = {Path(f["path"]).name: f for f in report["files"]}
    assert set(by_path) == {"old.py", "new.py"}
    main(["doctor", str(tree), "--target", "0.4.35"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("4 uses of drifted Pallas APIs in 2 files")
    (line,) = [x for x in out if x.startswith("all 2 files: runs unchanged on ")]
    assert report["tree"]["runs_unchanged"] in line and report["tree"]["with_pallas_compat"] in line
    old, new = by_path["old.py"], by_path["new.py"]
    first_served = new["with_pallas_compat"].removeprefix("JAX ").split("-")[0]
    assert report["tree"]["with_pallas_compat"].startswith(f"JAX {first_served}")
    assert old["with_pallas_compat"] != report["tree"]["with_pallas_compat"]
