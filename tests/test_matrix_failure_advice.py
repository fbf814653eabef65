"""pallas_compat/matrix/_failure_advice.py: a failure points at doctor's findings in the functions its
traceback passed through, those that do not simply work on the run's release."""

from __future__ import annotations

from pallas_compat.matrix._failure_advice import advice, lines_around
from pallas_compat.matrix._results import Failure, Run, Status
from tests.conftest import REPO

EXAMPLE = REPO / "tests" / "fixtures" / "matrix_project"


def failing(release: str, route: str, *where: str) -> Run:
    return Run(release, route, Status.FAILED, failures=[Failure("t::test_add", "TypeError", where)])


def test_the_error_at_the_call_finds_the_spec_written_a_line_above() -> None:
    [entry] = advice(
        failing("0.6.2", "native", "tests/test_kernels.py:9", "example_kernels/add.py:17"), EXAMPLE
    )
    assert (entry.where, entry.code, entry.api) == (
        "example_kernels/add.py:16",
        "PAL201",
        "BlockSpec(index_map, block_shape)",
    )
    assert entry.verdict == "breaks on 0.6.2"
    assert entry.write_instead == "pl.BlockSpec(block_shape, index_map)"


def test_in_the_kernel_body_the_removed_loads_and_store_on_0_12() -> None:
    found = advice(failing("0.12.0.1", "patch", "example_kernels/add.py:10"), EXAMPLE)
    assert [(e.where, e.api) for e in found] == [
        ("example_kernels/add.py:10", "pl.load"),
        ("example_kernels/add.py:11", "pl.load"),
        ("example_kernels/add.py:12", "pl.store"),
    ]


def test_nothing_where_the_uses_work_or_the_copy_was_rewritten() -> None:
    assert advice(failing("0.4.30", "native", "example_kernels/add.py:17"), EXAMPLE) == []
    assert advice(failing("0.6.2", "migrate", "example_kernels/add.py:17"), EXAMPLE) == []
    assert advice(failing("0.6.2", "native", "example_kernels/missing.py:3"), EXAMPLE) == []


def test_a_module_level_line_is_its_own_range() -> None:
    assert lines_around(EXAMPLE / "example_kernels" / "add.py", 6) == range(6, 7)
    assert lines_around(EXAMPLE / "example_kernels" / "add.py", 17) == range(
        15, 25
    )  # def add(...) to its last line
