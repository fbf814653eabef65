"""doctor's last lines: the releases each file and the tree run on unchanged, and through
pallas_compat. Expected ranges come from the scan's and the measurement's files, not doctor."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

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


def use(api: str, code: str, spans: list[list[str]] | None = None, *, certain: bool = True) -> Any:
    """A use that works on ``spans`` only (by default on no release)."""
    from pallas_compat.rules._use import Use

    releases = tuple(tuple(s) for s in (spans or []))
    return Use("k.py", 1, 0, api, releases, "hint", certain=certain, code=code)  # type: ignore[arg-type]


def test_where_a_name_is_and_a_call_form_is_not() -> None:
    from pallas_compat.lint._runs_on import location_of

    assert location_of("pltpu.TPUCompilerParams") == (TPU, "TPUCompilerParams")
    assert location_of("pl.load") == (PL, "load")
    assert location_of("jax.util") == ("jax", "util")
    assert location_of("BlockSpec(index_map, block_shape)") is None
    assert location_of("load") is None


def test_what_pallas_compat_runs_rule_by_rule() -> None:
    """Each way ``served`` answers, against the scan's and the measurement's files."""
    from pallas_compat.lint._runs_on import served

    newest, oldest = SCAN["releases"][-1], SCAN["releases"][0]
    every = [[oldest, newest]]
    assert served(use("pl.load", "PAL101", every), newest)  # it works there: nothing to serve
    # a call form the facades take everywhere, though the use breaks
    assert served(use("BlockSpec(index_map, block_shape)", "PAL201"), newest)
    # a removed name: served where served.json measured its fill
    measured = SERVED["namespaces"]["pl"]["load"]
    assert served(use("pl.load", "PAL102"), newest) is inside(measured, newest)
    assert not served(use("pl.no_such_name", "PAL102"), newest)
    # a use whose releases cannot be told is not claimed
    assert not served(use("pl.load", "PAL102", certain=False), newest)
    # keywords of pallas_call: the served ones only
    assert served(use("pl.pallas_call(f=...)", "PAL207"), newest)
    assert served(use("pallas_call(cost_estimate=...)", "PAL207"), oldest)
    assert not served(use("pl.pallas_call(fake_flag=...)", "PAL207"), newest)
    # a module old files import, which patch() installs where it is gone
    assert served(use("jax.util", "PAL102"), newest)


def test_spans_and_ranges_count_a_use_once_wherever_it_is() -> None:
    from pallas_compat.lint._runs_on import ranges, spans, with_shim_on

    assert spans([]) == "no scanned release"
    assert spans(SCAN["releases"][:2]) == runs(SCAN["releases"][:2])
    first, second = SCAN["releases"][:2]
    here = use("pl.no_such_name", "PAL102", [[first, first]])
    there = dataclasses.replace(here, path="other.py", line=9, column=4)
    found = ranges([here, there])
    assert found.runs_unchanged == f"JAX {first}"
    assert found.with_pallas_compat == f"JAX {first}"  # no fill serves it elsewhere
    assert with_shim_on([here], [first, second]) == [first]
