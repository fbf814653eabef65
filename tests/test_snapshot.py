from __future__ import annotations

import pytest

from probes import SCHEMA
from probes._runner import GroupResult, Outcome
from probes._snapshot import assemble, count_facts, dumps, stable_part


def _result() -> GroupResult:
    result = GroupResult("g")
    result.outcomes = {
        "behaviours.fine": Outcome("behaviours.fine", "ok", {"a": [1, 2]}, seconds=0.5),
        "modules.jax.x": Outcome(
            "modules.jax.x", "crashed", error={"type": "crashed", "message": "SIGSEGV"}
        ),
    }
    return result


def test_assemble_places_values_and_keeps_failures() -> None:
    snap, timings = assemble([_result()], wall_s=1.0)
    assert snap["schema"] == SCHEMA
    assert snap["behaviours"]["fine"] == {"a": [1, 2]}
    assert snap["modules"]["jax.x"] == {
        "probe_failed": {"status": "crashed", "type": "crashed", "message": "SIGSEGV"}
    }
    assert snap["summary"]["failed"] == {"modules.jax.x": "crashed"}
    assert timings["seconds"]["behaviours.fine"] == 0.5 and timings["wall_s"] == 1.0


def test_timings_stay_out_of_the_snapshot() -> None:
    (one, _), (two, _) = assemble([_result()], 1.0), assemble([_result()], 9.0)
    assert "volatile" not in one and dumps(one) == dumps(two)
    assert stable_part({"volatile": {"created": "then"}, "a": 1}) == {"a": 1}  # old snapshots


def test_count_facts_counts_leaves() -> None:
    assert count_facts({"a": 1, "b": {"c": [1, 2], "d": None}, "e": []}) == 5


def test_dumps_is_canonical() -> None:
    assert dumps({"b": 1, "a": {"d": 2, "c": 3}}) == dumps({"a": {"c": 3, "d": 2}, "b": 1})
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})
