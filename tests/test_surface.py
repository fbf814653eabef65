"""The report's every-release view of names (``report/_surface.py``) against what the probes
recorded live: on each probed release, name for name, the scan of the release's sources and
the snapshot agree on present, deprecated and absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from report._load import load_snapshots
from report._surface import ABSENT, DEPRECATED, PRESENT, Surface

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = load_snapshots(REPO / "reports" / "snapshots")
SCAN = json.loads((REPO / "pallas_compat" / "facts" / "release_ranges.json").read_text())


@pytest.fixture(scope="module")
def surface() -> Surface:
    return Surface(tuple(SNAPSHOTS))


def recorded(entry: dict[str, str] | None) -> str:
    status = (entry or {}).get("status", PRESENT if entry is not None else ABSENT)
    return ABSENT if status in ("removed", "absent") else status


@pytest.mark.parametrize("snap", SNAPSHOTS, ids=lambda s: s.release)
def test_every_name_of_a_probed_release_has_the_state_its_snapshot_recorded(
    snap: object, surface: Surface
) -> None:
    wrong = []
    for module, record in snap.data["modules"].items():  # type: ignore[attr-defined]
        if record.get("imports") is False:
            continue
        for name, entry in record.get("names", {}).items():
            if name.startswith("_") or entry.get("kind") == "module":
                continue  # a submodule, bound once something imported it: no API name
            seen = surface.state(snap.release, module, name)[0]  # type: ignore[attr-defined]
            if seen != recorded(entry):
                wrong.append((module, name, recorded(entry), seen))
        for other, name in surface.names():  # and no name the snapshot lacks is present
            if other == module and name not in record.get("names", {}):
                seen = surface.state(snap.release, module, name)[0]  # type: ignore[attr-defined]
                if seen != ABSENT:
                    wrong.append((module, name, "not recorded", seen))
    assert wrong == []


def test_the_surface_covers_every_scanned_release(surface: Surface) -> None:
    assert surface.releases == SCAN["releases"] and len(surface.releases) > len(SNAPSHOTS)


def test_a_release_without_a_snapshot_reads_the_scan(surface: Surface) -> None:
    """0.7.1: the last release of pltpu.TPUCompilerParams, deprecated there (the scan's
    spans), a release the probes never took."""
    assert surface.probed("0.7.1") is None
    key = "jax.experimental.pallas.tpu:TPUCompilerParams"
    (first, last), *_ = SCAN["locations"][key]
    assert last == "0.7.1" and ["0.6.2", "0.7.1"] in SCAN["deprecated"][key]
    assert surface.state("0.7.1", "jax.experimental.pallas.tpu", "TPUCompilerParams")[0] == (
        DEPRECATED
    )
    assert surface.state("0.7.2", "jax.experimental.pallas.tpu", "TPUCompilerParams")[0] == ABSENT
    assert surface.state(first, "jax.experimental.pallas.tpu", "TPUCompilerParams")[0] == PRESENT


def test_spellings_that_differ_in_case_get_their_own_rows(surface: Surface) -> None:
    anchors = list(surface.anchors.values())
    assert len(anchors) == len(set(anchors))
    pl = "jax.experimental.pallas"
    assert surface.anchor(pl, "Squeezed") != surface.anchor(pl, "squeezed")
