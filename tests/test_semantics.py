"""probes/semantics.py: changes of meaning, observed on this release and worded for the report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
from packaging.version import Version

from probes.semantics import SPEC_SPACES, kernel_ref_aliasing, pipeline_buffers
from report import _changes, _sections
from report._load import Snapshot


def test_pipelines_double_buffer_an_input_by_default() -> None:
    """``BufferedRef``: "a helper class to automate VMEM double buffering" on every release."""
    record = pipeline_buffers.fn()
    assert record["None"] == "2 x VMEM window"
    assert set(record) == {str(s) for s in SPEC_SPACES} | {"summary"}
    for space in SPEC_SPACES:
        assert f"{'unset' if space is None else space}: {record[str(space)]}" in record["summary"]


def test_kernel_aliases_only_written_refs_from_0_11() -> None:
    """JAX 0.11.0's changelog: ``pl.kernel`` now only aliases refs the kernel writes to."""
    record = kernel_ref_aliasing.fn()
    from jax.experimental import pallas as pl

    if not hasattr(pl, "kernel") or not hasattr(jax, "new_ref"):
        assert record["summary"].startswith("n/a")
    elif Version(jax.__version__) >= Version("0.11.0"):
        assert record["aliased"] == ["written ref"]
        assert record["summary"] == "aliases written ref"


def snapshot(release: str, behaviours: dict[str, Any]) -> Snapshot:
    return Snapshot(Path(f"jax-{release}.json"), release, {"behaviours": behaviours})


def test_the_report_gives_one_row_per_era_and_no_diff() -> None:
    def era(summary: str) -> dict[str, Any]:
        return {"b.kernel_ref_aliasing": {"summary": summary, "aliased": [summary]}}

    snapshots = [
        snapshot("1.0", era("aliases written ref")),
        snapshot("1.1", era("aliases written ref")),
        snapshot("2.0", era("aliases read-only ref and written ref")),
        snapshot("3.0", era("aliases written ref")),
    ]
    assert _changes.summary_runs(snapshots) == [
        (
            "b.kernel_ref_aliasing",
            [
                ("1.0", "1.1", "aliases written ref"),
                ("2.0", "2.0", "aliases read-only ref and written ref"),
                ("3.0", "3.0", "aliases written ref"),
            ],
        )
    ]
    rows = _sections.semantics(snapshots).tables[0].rows
    assert [[c.text for c in row] for row in rows] == [
        ["kernel_ref_aliasing", "1.0 to 1.1", "aliases written ref"],
        ["", "2.0", "aliases read-only ref and written ref"],
        ["", "3.0", "aliases written ref"],
    ]
    assert _changes.behaviour_changes(snapshots) == []
