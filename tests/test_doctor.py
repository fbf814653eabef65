"""``pallas-compat doctor``: rule codes on every line, ``--select``/``--ignore``, ``# noqa``,
``[tool.pallas-compat]`` and support windows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pallas_compat._cli import main

KERNEL = """\
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def kernel(x_ref, o_ref):
    o_ref[...] = pl.load(x_ref, (0,))
spec = pl.BlockSpec(lambda i: (i, 0), (8, 128))
params = pltpu.TPUCompilerParams(dimension_semantics=("parallel",))
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL)
    return path


def codes(out: str) -> list[str]:
    """The rule of each use line (``path:line:col: PAL101 ...``), not the range lines."""
    uses = [line for line in out.splitlines() if re.match(r".*:\d+:\d+: PAL\d{3} ", line)]
    return [line.split(": ")[1].split()[0] for line in uses]


def test_each_line_names_its_rule(capsys, kernel: Path) -> None:
    status, out, _ = run(capsys, "doctor", str(kernel), "--target", "0.12.0.1")
    assert status == 1 and codes(out) == ["PAL301", "PAL201", "PAL101"]
    record = json.loads(
        run(capsys, "doctor", str(kernel), "--target", "0.12.0.1", "--format", "json")[1]
    )
    first = record["uses"][0]
    assert (first["code"], first["rule"]) == ("PAL301", "masked-load-store")


def test_select_and_ignore(capsys, kernel: Path) -> None:
    _, out, _ = run(capsys, "doctor", str(kernel), "--target", "0.12.0.1", "--select", "PAL2,PAL3")
    assert codes(out) == ["PAL301", "PAL201"]
    status, out, _ = run(
        capsys,
        "doctor",
        str(kernel),
        "--target",
        "0.12.0.1",
        "--ignore",
        "masked-load-store",
        "--ignore",
        "PAL1",
    )
    assert codes(out) == ["PAL201"] and status == 1
    status, out, _ = run(
        capsys, "doctor", str(kernel), "--target", "0.12.0.1", "--select", "PAL105"
    )
    assert status == 0 and out.startswith("0 uses")
    status, _, err = run(capsys, "doctor", str(kernel), "--select", "PAL999")
    assert status == 2 and err.count("\n") == 1 and "unknown rule 'PAL999'" in err


def test_noqa_silences_a_line(capsys, kernel: Path) -> None:
    kernel.write_text(
        KERNEL.replace("(0,))\n", "(0,))  # noqa: PAL301\n").replace(
            "128))\n", "128))  # noqa: PAL2\n"
        )
    )
    status, out, _ = run(capsys, "doctor", str(kernel), "--target", "0.12.0.1")
    assert codes(out) == ["PAL101"] and "2 silenced by # noqa" in out and status == 1
    kernel.write_text(KERNEL.replace("(0,))\n", "(0,))  # noqa\n"))  # bare: another linter's
    assert "PAL301" in codes(run(capsys, "doctor", str(kernel), "--target", "0.12.0.1")[1])
    kernel.write_text(KERNEL.replace("(0,))\n", "(0,))  # noqa: PAL201\n"))  # another rule
    assert "PAL301" in codes(run(capsys, "doctor", str(kernel), "--target", "0.12.0.1")[1])


def test_pyproject_sets_target_and_rules(capsys, tmp_path: Path, kernel: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pallas-compat]\ntarget = "0.4.30"\nignore = ["PAL301"]\n'
    )
    status, out, _ = run(capsys, "doctor", str(kernel))
    # on 0.4.30: the old order and pl.load work, TPUCompilerParams (0.4.33 on) does not
    assert codes(out) == ["PAL201", "PAL101"] and "1 break on JAX 0.4.30" in out
    _, out, _ = run(capsys, "doctor", str(kernel), "--target", "0.12.0.1")  # the flag wins
    assert "2 break on JAX 0.12.0.1" in out
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-compat]\ntarget = "9.9"\n')
    status, _, err = run(capsys, "doctor", str(kernel))
    assert status == 2 and "unknown JAX release '9.9'" in err


def test_a_support_window_checks_every_release_in_it(capsys, kernel: Path) -> None:
    status, out, _ = run(capsys, "doctor", str(kernel), "--support", "0.4.33:0.7.0")
    lines = out.splitlines()
    # pl.load works on all of 0.4.33-0.7.0 (TPUCompilerParams warns on 0.7.0); the old
    # order with a warning on 0.4.33-0.4.34 (they swap it back), on none after
    assert status == 1 and "works across the support window 0.4.33-0.7.0" in lines[0]
    assert "breaks on 0.4.35-0.7.0 (the support window 0.4.33-0.7.0)" in lines[1]
    assert "; 1 break on the support window 0.4.33-0.7.0;" in lines[-1]
    _, out, _ = run(
        capsys, "doctor", str(kernel), "--support", "0.7.1:0.12.0.1", "--format", "json"
    )
    load = json.loads(out)["uses"][0]
    assert load["state"] == "breaks" and load["verdict"].startswith("breaks on 0.9.0-0.12.0.1")


@pytest.mark.parametrize("window", ["0.7.1", "0.7.1:", "0.12.0.1:0.6.2", "0.6.2:9.9"])
def test_a_bad_window_is_one_line(capsys, kernel: Path, window: str) -> None:
    status, _, err = run(capsys, "doctor", str(kernel), "--support", window)
    assert status == 2 and err.count("\n") == 1
