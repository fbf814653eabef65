"""pallas_compat.rules._recorder_calls: a two-argument ``grid_point_recorder`` rewritten for the token
protocol of JAX 0.10.1 on (the run itself: tests/test_idioms.py, interpret_params.py)."""

from __future__ import annotations

from pallas_compat.lint._migrate import MARKER, migrate_source

SOURCE = """\
from jax.experimental.pallas import tpu as pltpu

seen = []


def record(grid_point, core_id):
    if core_id:
        seen.append(("other", grid_point))
        return
    seen.append(grid_point)


def tally(grid_point, core_id):
    return len(seen)


def nested(grid_point, core_id):
    def helper():
        return 1
    seen.append(helper())


a = pltpu.InterpretParams(grid_point_recorder=record)
b = pltpu.InterpretParams(grid_point_recorder=tally)
c = pltpu.InterpretParams(grid_point_recorder=nested)
d = pltpu.InterpretParams(grid_point_recorder=lambda g, c: None)
"""


def migrated(target: str) -> str:
    return migrate_source(SOURCE, target)


def test_every_way_out_returns_the_token() -> None:
    code = migrated("0.12.0.1")
    assert "def record(token, grid_point, core_id):" in code
    assert '        seen.append(("other", grid_point))\n        return token\n' in code
    assert "    seen.append(grid_point)\n    return token\n" in code


def test_a_recorder_that_returns_a_value_of_its_own_is_left() -> None:
    code = migrated("0.12.0.1")
    assert "def tally(grid_point, core_id):" in code and "return len(seen)" in code


def test_a_nested_function_keeps_its_own_returns() -> None:
    code = migrated("0.12.0.1")
    assert "def nested(token, grid_point, core_id):" in code
    assert "        return 1\n" in code and code.count("return token") == 3


def test_nothing_changes_where_the_target_calls_with_two_arguments() -> None:
    code = migrated("0.6.2")
    assert "def record(grid_point, core_id):" in code and "token" not in code
    assert MARKER not in code
