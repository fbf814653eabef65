"""pallas_compat.facts._target: a migration shared between targets is the one each would get alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pallas_compat.facts._target import Target, asked_of
from pallas_compat.lint import _migrate

ROOT = Path(__file__).resolve().parent.parent
MATRIX = json.loads((ROOT / "jax-matrix.json").read_text())["default"]
#: Real kernels whose migrations differ between releases (4 and 2 walks for the matrix),
#: small enough that each target's migration alone stays quick.
REAL = [
    ROOT / "tests" / "fixtures" / "real" / name
    for name in ("jax_0_4_30/softmax.py", "jax_0_6_2/threefry.py")
]


def test_a_release_answering_every_question_alike_is_alike() -> None:
    target = Target("0.6.2")
    assert target.works_in([["0.4.30", "0.7.1"]])
    assert not target.since("0.8.0")
    assert target.answers_alike("0.7.1")
    assert target.answers_alike("0.4.35")
    assert not target.answers_alike("0.7.2")  # outside the span


def test_since_is_a_question_too() -> None:
    target = Target("0.5.3")
    assert target.since("0.5.0")
    assert target.answers_alike("0.12.0.1")
    assert not target.answers_alike("0.4.38")


def test_a_target_whose_name_was_read_is_alike_to_none() -> None:
    target = Target("0.6.2")
    assert target.release == "0.6.2"
    assert not target.answers_alike("0.6.2")


def test_asked_of_takes_a_release_or_a_target() -> None:
    target = Target("0.9.2")
    assert asked_of(target) is target
    assert asked_of("0.9.2").since("0.9.2")


OLD = """\
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    pl.store(o_ref, (slice(None),), pl.load(x_ref, (slice(None),)) * 2)


PARAMS = pltpu.TPUCompilerParams(dimension_semantics=("parallel",))
"""


def walked(source: str, targets: list[str]) -> tuple[dict[str, str], int]:
    """Each target's migration from one ``Migration``, and how many walks it made."""
    migration = _migrate.Migration(source)
    answers = {target: migration.code(target) for target in targets}
    return answers, len(migration._made)


def test_one_walk_per_set_of_answers_not_per_target() -> None:
    answers, walks = walked(OLD, MATRIX)
    assert 1 < walks < len(MATRIX)
    assert len(set(answers.values())) <= walks
    for target in MATRIX:
        assert answers[target] == _migrate.migrate_source(OLD, target)


@pytest.mark.parametrize("path", REAL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_shared_migration_is_what_each_target_gets_alone(path: Path) -> None:
    source = path.read_text()
    shared, _ = walked(source, MATRIX)
    for target in MATRIX:
        alone = _migrate.Migration(source).code(target)
        assert shared[target] == alone, target
