"""The corpus harness's cache of prepared files gives what computing gives, and recomputes on any change."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernels.corpus import _doctor_uses, _memo, _package

OLD = """\
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    pl.store(o_ref, (slice(None),), pl.load(x_ref, (slice(None),)) * 2)


PARAMS = pltpu.TPUCompilerParams(dimension_semantics=("parallel",))
"""


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    _memo.use_folder(tmp_path / "memo")
    _package._prepared.cache_clear()
    yield tmp_path / "memo"
    _memo.use_folder(None)
    _package._prepared.cache_clear()


def entries(folder: Path, kind: str | None = None) -> list[Path]:
    found = sorted(folder.rglob("*.json"))
    return [p for p in found if kind is None or json.loads(p.read_text())["kind"] == kind]


def test_an_answer_is_computed_once_and_then_read(folder: Path) -> None:
    calls = []
    assert _memo.remembered("k", "text", "t", lambda: calls.append(1) or "answer") == "answer"
    assert _memo.remembered("k", "text", "t", lambda: pytest.fail("computed again")) == "answer"
    assert calls == [1] and len(entries(folder)) == 1


@pytest.mark.parametrize("changed", ["kind", "text", "target"])
def test_each_part_of_the_key_is_a_miss(folder: Path, changed: str) -> None:
    key = {"kind": "k", "text": "text", "target": "t"}
    _memo.remembered(**key, compute=lambda: "first")  # type: ignore[arg-type]
    key[changed] += "2"
    assert _memo.remembered(**key, compute=lambda: "second") == "second"  # type: ignore[arg-type]


def test_a_change_to_the_code_is_a_miss(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _memo.remembered("k", "text", "t", lambda: "old code's")
    monkeypatch.setattr(_memo, "code_digest", lambda: "another pallas_compat")
    assert _memo.remembered("k", "text", "t", lambda: "new code's") == "new code's"


def test_a_damaged_entry_is_computed_again(folder: Path) -> None:
    _memo.remembered("k", "text", "t", lambda: "answer")
    (damaged,) = entries(folder)
    damaged.write_text('{"answer": ')
    assert _memo.remembered("k", "text", "t", lambda: "again") == "again"
    assert _memo.remembered("k", "text", "t", lambda: pytest.fail("not kept")) == "again"


def test_without_a_folder_nothing_is_kept(tmp_path: Path) -> None:
    _memo.use_folder(None)
    calls = []
    for _ in range(2):
        _memo.remembered("k", "text", "t", lambda: calls.append(1) or "answer")
    assert calls == [1, 1]


def test_an_unwritable_folder_only_costs_time(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    _memo.use_folder(tmp_path / "file" / "memo")  # below a file: nothing can be made there
    try:
        assert _memo.remembered("k", "text", "t", lambda: "answer") == "answer"
    finally:
        _memo.use_folder(None)


@pytest.mark.parametrize("route", ["shim", "migrate"])
def test_a_prepared_file_from_the_cache_is_the_one_computed(folder: Path, route: str) -> None:
    computed = _package._prepared.__wrapped__(OLD, route, "0.12.0.1")
    _memo.use_folder(None)
    assert computed != OLD  # the route rewrote something: the comparison below means something
    assert _package._prepared.__wrapped__(OLD, route, "0.12.0.1") == computed
    _memo.use_folder(folder)
    assert len(entries(folder, route)) == 1
    assert _package._prepared.__wrapped__(OLD, route, "0.12.0.1") == computed


def test_the_shim_route_is_kept_once_for_every_target_and_migrate_per_target(folder: Path) -> None:
    for target in ("0.6.2", "0.12.0.1"):
        _package._prepared(OLD, "shim", target)
        _package._prepared(OLD, "migrate", target)
    assert len(entries(folder, "shim")) == 1 and len(entries(folder, "migrate")) == 2


def test_doctors_uses_from_the_cache_are_those_found(folder: Path) -> None:

    from pallas_compat.lint._finder import uses_in

    found = uses_in("", OLD)
    assert {u.api for u in found} >= {"pl.load", "pl.store", "pltpu.TPUCompilerParams"}
    assert _doctor_uses.uses_in(OLD) == found  # computed, and kept
    assert _doctor_uses.uses_in(OLD) == found  # read back: tuples and all
    assert len(entries(folder)) == 1


@pytest.fixture
def also(folder: Path) -> Iterator[Path]:
    _memo.also_migrate_to(("0.4.30", "0.6.2", "0.9.2", "0.12.0.1"))
    yield folder
    _memo.also_migrate_to(())


def test_a_file_migrated_once_is_kept_for_the_other_sessions_releases(also: Path) -> None:
    assert _package._prepared(OLD, "migrate", "0.6.2", "0.4.30")
    kept = {}
    for path in entries(also, "migrate"):
        entry = json.loads(path.read_text())
        kept[entry["target"]] = entry["answer"]
    assert sorted(kept) == ["0.12.0.1", "0.6.2", "0.9.2"]  # not 0.4.30: written for it
    assert len(set(kept.values())) > 1  # the releases differ here: the check means something
    _memo.use_folder(None)
    for target, answer in kept.items():
        assert _package._prepared.__wrapped__(OLD, "migrate", target) == answer, target


def test_the_other_releases_wait_for_a_cache_and_a_known_release(also: Path) -> None:
    assert _memo.migrate_targets("0.6.2", None) == ["0.6.2"]
    _memo.use_folder(None)
    assert _memo.migrate_targets("0.6.2", "0.4.30") == ["0.6.2"]


def test_a_kept_answer_of_another_release_is_not_computed_again(also: Path) -> None:
    _memo.remember("migrate", OLD, "0.12.0.1", "kept by another session")
    _package._prepared(OLD, "migrate", "0.6.2", "0.4.30")
    assert _memo.recalled("migrate", OLD, "0.12.0.1") == "kept by another session"
