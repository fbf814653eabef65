from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from probes import SCHEMA
from probes._runner import GroupResult, Outcome
from probes._snapshot import assemble, count_facts, dumps, stable_part, write_atomic


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
    snap = assemble([_result()], wall_s=1.0)
    assert snap["schema"] == SCHEMA
    assert snap["behaviours"]["fine"] == {"a": [1, 2]}
    assert snap["modules"]["jax.x"] == {
        "probe_failed": {"status": "crashed", "type": "crashed", "message": "SIGSEGV"}
    }
    assert snap["summary"]["failed"] == {"modules.jax.x": "crashed"}
    assert snap["volatile"]["seconds"]["behaviours.fine"] == 0.5


def test_timings_stay_out_of_the_compared_part() -> None:
    one, two = assemble([_result()], 1.0), assemble([_result()], 9.0)
    assert dumps(stable_part(one)) == dumps(stable_part(two))


def test_count_facts_counts_leaves() -> None:
    assert count_facts({"a": 1, "b": {"c": [1, 2], "d": None}, "e": []}) == 5


def test_dumps_is_canonical() -> None:
    assert dumps({"b": 1, "a": {"d": 2, "c": 3}}) == dumps({"a": {"c": 3, "d": 2}, "b": 1})
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})


def test_write_atomic_replaces_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    write_atomic(path, "one\n")
    write_atomic(path, "two\n")
    assert path.read_text() == "two\n"
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"old": True}))

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        write_atomic(path, "new")
    assert json.loads(path.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
