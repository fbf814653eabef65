"""What must hold on every release: the probe runs to completion and records what is missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jax

from pallas_compat.facts._table import FEATURES, watched_names
from probes import SCHEMA
from probes._registry import SECTIONS
from probes._snapshot import dumps, stable_part
from tests.conftest import take_snapshot


def test_no_group_failed_and_no_probe_crashed(snapshot: dict[str, Any]) -> None:
    summary = snapshot["summary"]
    assert summary["group_failures"] == {}
    assert not [
        key for key, status in summary["failed"].items() if status in {"crashed", "timeout"}
    ]
    assert summary["probes"] > 80 and summary["facts"] > 500


def test_snapshot_names_its_schema_and_jax(snapshot: dict[str, Any]) -> None:
    assert snapshot["schema"] == SCHEMA
    assert snapshot["environment"]["versions"]["jax"] == jax.__version__
    assert set(SECTIONS) <= set(snapshot)


def test_every_feature_of_the_table_is_recorded(snapshot: dict[str, Any]) -> None:
    statuses = {"current", "legacy", "deprecated", "private", "unavailable"}
    assert {
        key: snapshot["features"][key]["status"] in statuses for key in (f.key for f in FEATURES)
    } == {f.key: True for f in FEATURES}


def test_watched_names_have_entries_even_when_absent(snapshot: dict[str, Any]) -> None:
    for module, wanted in watched_names().items():
        record = snapshot["modules"].get(module)
        if record is None or not record["imports"]:
            continue
        assert wanted <= set(record["names"]), module
        for name in wanted:
            assert record["names"][name]["status"] in {"present", "deprecated", "removed", "absent"}


def test_unavailable_features_are_data_not_failures(snapshot: dict[str, Any]) -> None:
    for key, value in snapshot["behaviours"].items():
        if isinstance(value, dict) and "unavailable" in value:
            assert value["unavailable"].endswith("is not available"), key


def test_a_rerun_from_the_warm_compilation_cache_is_byte_identical_minus_volatile(
    snapshot_path: Path, compilation_cache: Path, tmp_path: Path
) -> None:
    """Determinism, and the cache nox keeps per venv changes no fact."""
    cached = [path for path in compilation_cache.rglob("*") if path.is_file()]
    assert len(cached) > 20, "the first run filled no compilation cache"
    second = take_snapshot(tmp_path / "again.json", "--compilation-cache", str(compilation_cache))
    first = json.loads(snapshot_path.read_text())
    assert dumps(stable_part(first)) == dumps(stable_part(second))
