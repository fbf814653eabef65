"""The support window (``python -m report support``), checked against the release scan's
file: what it calls common to a window is what every release of the window has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

from pallas_compat.facts import shim_serves
from report._cli import main
from report._load import load_snapshots
from report._support import window
from report._surface import Surface

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = REPO / "reports" / "snapshots"
SCAN = json.loads((REPO / "pallas_compat" / "facts" / "release_ranges.json").read_text())
TPU = "jax.experimental.pallas.tpu"


def inside(spans: list[list[str]], release: str) -> bool:
    return any(Version(a) <= Version(release) <= Version(b) for a, b in spans)


@pytest.fixture(scope="module")
def surface() -> Surface:
    return Surface(tuple(load_snapshots(SNAPSHOTS)))


def test_no_tpu_params_spelling_spans_0_5_3_to_0_12_0_1(surface: Surface) -> None:
    """Each TPU spelling misses a release of the window (read from the scan's spans), so
    the answer is the shim's, and it is served on every release (served.json)."""
    releases = [r for r in SCAN["releases"] if Version("0.5.3") <= Version(r)]
    for key in (f"{TPU}:TPUCompilerParams", f"{TPU}:CompilerParams"):
        assert not all(inside(SCAN["locations"][key], r) for r in releases), key
    assert not all(
        inside(SCAN["call_forms"]['compiler_params={"mosaic": {...}}'], r) for r in releases
    )
    found = window("0.5.3", releases[-1], surface)
    (params,) = [a for a in found.areas if a.title == "TPU compiler params"]
    assert params.native == [] and params.through_shim is not None
    assert params.through_shim.spelling == "pltpu.CompilerParams"
    assert all(shim_serves(TPU, "CompilerParams", r) for r in releases)
    assert params.answer().startswith("no spelling works natively on every release")


def test_a_name_that_never_changed_has_a_row(surface: Surface) -> None:
    """pltpu.VMEM: in every release the scan read, never deprecated; so in every window."""
    every = [[SCAN["releases"][0], SCAN["releases"][-1]]]
    assert f"{TPU}:VMEM" not in SCAN["names"] and f"{TPU}:VMEM" not in SCAN["deprecated"]
    assert SCAN["locations"].get(f"{TPU}:VMEM", every) == every
    found = window("0.4.30", SCAN["releases"][-1], surface)
    (spaces,) = [a for a in found.areas if a.title == "memory spaces"]
    (vmem,) = [r for r in spaces.rows if r.spelling == "pltpu.VMEM"]
    assert vmem.native_everywhere(found.releases) and vmem in spaces.plain


def test_every_row_called_native_everywhere_is_in_every_release(surface: Surface) -> None:
    found = window("0.6.2", "0.10.2", surface)
    for area in found.areas:
        for row in area.native:
            if row.spelling.startswith("pl") and "(" not in row.spelling:
                alias, _, name = row.spelling.partition(".")
                module = {"pl": "jax.experimental.pallas", "pltpu": TPU}.get(alias)
                if module is None:
                    continue
                states = {surface.state(r, module, name)[0] for r in found.releases}
                assert states <= {"present", "deprecated"}, row.spelling


def test_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["support", "--from", "0.5.3", "--to", "0.12.0.1", "--snapshots", str(SNAPSHOTS)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Supporting JAX 0.5.3 to 0.12.0.1 (")
    assert "TPU compiler params: no spelling works natively on every release; with " in out
    assert "  pltpu.VMEM: natively on every release" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--from", "0.12.0.1", "--to", "0.5.3"], "give the window oldest first"),
        (["--from", "0.5.4", "--to", "0.6.2"], "--from 0.5.4: not a JAX release the scan knows"),
    ],
)
def test_bad_windows_are_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["support", *argv, "--snapshots", str(SNAPSHOTS)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_a_name_jax_has_is_served_where_it_runs(surface: Surface) -> None:
    """The namespaces pass JAX's own names through: emit_pipeline, in no table of fills."""
    found = window("0.5.3", SCAN["releases"][-1], surface)
    (pipelining,) = [a for a in found.areas if a.title == "pipelining"]
    (row,) = [r for r in pipelining.rows if r.spelling == "pltpu.emit_pipeline"]
    assert row.served == row.runs == found.releases
    gone = dict(row.keywords)["should_accumulate_out"]  # the scan's keyword spans
    assert (
        gone
        and gone[-1] == SCAN["keywords"][f"{TPU}:emit_pipeline"]["should_accumulate_out"][-1][1]
    )
