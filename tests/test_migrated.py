"""The guides' "migrate rewrites it" for a name is what migrate writes for the target, read
back by doctor (``report/_migrated.py``)."""

from __future__ import annotations

import pytest

from pallas_compat.facts import works_in
from pallas_compat.facts._registry import drifted_names
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import Migration
from report._migrated import rewrites, use_of

DEFAULT = ("0.4.30", "0.4.38", "0.5.3", "0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2", "0.11.2")
TARGETS = (*DEFAULT, "0.12.0.1")


def test_migrate_never_writes_a_name_the_target_lacks() -> None:
    """Every drifted name of the facts, migrated for every release of the default matrix that
    lacks it: what migrate wrote uses no name that target lacks, except the one it was given
    where it leaves that for a person."""
    wrote_bad = []
    for drift in drifted_names().values():
        loc = drift.location
        for target in TARGETS:
            if works_in(drift.spans, target):
                continue
            source = use_of(loc.module, loc.attr)
            migrated = Migration(source).code(target)
            given = {u.api for u in uses_in("<given>", source)}
            for use in uses_in("<migrated>", migrated):
                if use.breaks_on(target) and use.api not in given:
                    wrote_bad.append((loc.spelling, target, use.api))
    assert wrote_bad == []


@pytest.mark.parametrize(
    ("module", "name", "target", "expected"),
    [
        # pl.DeviceIdType, its successor, is all 0.12.0.1 has: deprecated there, it runs.
        ("jax.experimental.pallas.tpu", "DeviceIdType", "0.12.0.1", True),
        ("jax.experimental.pallas.tpu", "DeviceIdType", "0.11.2", True),
        ("jax.experimental.pallas.tpu", "TPUCompilerParams", "0.12.0.1", True),
        # pltpu.delay went with no successor: migrate notes it.
        ("jax.experimental.pallas.tpu", "delay", "0.12.0.1", False),
        # JAX 0.4.30 has no name for the TPU params class: nothing to rewrite a new one into.
        ("jax.experimental.pallas.tpu", "CompilerParams", "0.4.30", False),
        # pl.load(ref, idx) becomes ref[idx].
        ("jax.experimental.pallas", "load", "0.12.0.1", True),
    ],
)
def test_what_migrate_writes_decides(module: str, name: str, target: str, expected: bool) -> None:
    assert rewrites(module, name, target) is expected


def test_the_deprecated_successor_is_written_with_a_note() -> None:
    migrated = Migration(use_of("jax.experimental.pallas.tpu", "DeviceIdType"))
    text = migrated.code("0.12.0.1")
    assert "value = pl.DeviceIdType  # pallas-compat: pl.DeviceIdType is deprecated" in text
