"""kernels.corpus._doctor_check: doctor's verdict matched with the lines a plain run ran."""

from __future__ import annotations

import ast
import contextlib
import importlib
import sys
from pathlib import Path

import jax
import pytest
from packaging.version import Version

from common import CorpusStatus, DoctorVerdict
from kernels.corpus._doctor_check import breaking_uses_run, statement_lines, verdict
from kernels.corpus._lines import lines_run
from kernels.thirdparty.__main__ import one
from tests.third_party import LIBRARIES as CACHE
from tests.third_party import case

HEADER = """\
import functools


@functools.partial(
    print,
    sep="",
)
def f(x=1):
    y = (x
         + 1)
    return y
"""


def test_a_compound_statement_is_its_header_only() -> None:
    spans = statement_lines(ast.parse(HEADER))
    assert spans[5] == range(4, 9)  # decorator lines through the def line
    assert spans[9] == range(9, 11)  # a statement over two lines
    assert spans[11] == range(11, 12)


KERNEL = """\
from jax.experimental import pallas as pl


def used(x_ref, o_ref):
    o_ref[...] = pl.load(x_ref, (slice(None),))


def unused(x_ref, o_ref):
    pl.store(o_ref, (slice(None),), x_ref[...])
"""


def test_only_the_uses_that_ran_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "pkg_doctor_check"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    with lines_run(folder) as ran:
        module = importlib.import_module("pkg_doctor_check.kernel")

        # Whatever pl.load does with these (fails, or is gone), its line ran.
        with contextlib.suppress(Exception):
            module.used(object(), object())
    sys.modules.pop("pkg_doctor_check.kernel", None)
    flagged = breaking_uses_run(folder, ran, "0.12.0.1")
    assert [(f.file, f.line, f.api) for f in flagged] == [("kernel.py", 5, "pl.load")]
    assert breaking_uses_run(folder, ran, "0.4.30") == []  # it works there


@pytest.mark.parametrize(
    ("status", "flagged", "expected"),
    [
        (CorpusStatus.ERROR, ["pl.load"], DoctorVerdict.AGREES),
        (CorpusStatus.ERROR, [], DoctorVerdict.MISSED),
        (CorpusStatus.WRONG, [], DoctorVerdict.MISSED),
        (CorpusStatus.WORKS, ["pl.load"], DoctorVerdict.FALSE_ALARM),
        (CorpusStatus.WORKS, [], DoctorVerdict.AGREES),
    ],
)
def test_the_verdict(status: CorpusStatus, flagged: list[str], expected: DoctorVerdict) -> None:
    from kernels.corpus._doctor_check import Flagged

    found = verdict({"status": status}, [Flagged("f.py", 1, api) for api in flagged])
    assert found["doctor"] is expected and found["flagged"] == flagged


def test_a_dependency_outside_pallas_says_nothing_of_doctor() -> None:
    assert verdict({"status": CorpusStatus.DEPENDENCY}, []) == {}


def test_a_failure_outside_pallas_is_not_doctors_to_find() -> None:
    """easydel's RMS norm on 0.8.3: ``x.astype(y)`` with an array (a jax.numpy change)."""
    detail = "ValueError: Passing an array as a dtype argument is no longer supported; ..."
    found = verdict({"status": CorpusStatus.ERROR, "detail": detail}, [])
    assert found["doctor"] is DoctorVerdict.NOT_PALLAS


def test_doctor_agrees_with_a_plain_run_of_a_real_kernel(tmp_path: Path) -> None:
    """fjformer's softmax (written for 0.4.30) unchanged on the installed JAX: it works where
    doctor flags nothing that ran, and fails where it flags pl.load."""
    record = one(case("fjformer", "softmax, a block"), "native", jax.__version__, CACHE, tmp_path)
    assert record["doctor"] is DoctorVerdict.AGREES, record
    breaks = Version(jax.__version__) >= Version("0.9.0")  # pl.load: gone in 0.9.0
    assert ("pl.load" in record["flagged"]) == breaks
    assert (record["status"] is CorpusStatus.WORKS) == (not record["flagged"])
