"""The chapter's kernel set on the installed JAX, per mode (``python -m kernels`` does the same
from the command line). On the chapter's release every kernel passes in the three default
modes and every wrong kernel shows its bug where the chapter says; on every release each result
is the one the main job recorded there (``reports/kernels``): a float64-checked pass, a bug
caught or missed, or an ``unavailable`` with its reason."""

from __future__ import annotations

import jax
import pytest

from kernels import (
    CASES,
    DEFAULT_MODES,
    WRONG,
    Mode,
    _registry,  # noqa: F401  (registers the cases)
)
from kernels._runner import run_case, run_wrong
from tests.conftest import REPO, is_chapter_release
from tests.records import recorded_status


@pytest.mark.parametrize("mode", DEFAULT_MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("name", list(CASES))
def test_kernel(name: str, mode: Mode) -> None:
    case = CASES[name]
    result = run_case(case, mode)
    if result["status"] == "n/a":
        assert mode.value in case.skip_modes
        return
    assert result["status"] in recorded_status(name, mode.value), result
    assert result["status"] == "pass" or result["detail"], result
    if is_chapter_release():
        assert result["status"] == "pass", result
        assert result.get("as_chapter_says", True), result


@pytest.mark.parametrize("mode", DEFAULT_MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_kernel(name: str, mode: Mode) -> None:
    result = run_wrong(WRONG[name], mode)
    assert result["status"] in recorded_status(name, mode.value), result
    if is_chapter_release():
        assert result["as_chapter_says"], result


def test_every_section_of_the_chapter_is_covered() -> None:
    sections = {c.section.split(".")[0].rstrip("'") for c in CASES.values()}
    assert {"§0", "§2", "§3", "§4", "§5", "§6"} <= sections
    assert {f"Exercise {n}" for n in range(1, 5)} <= sections
    assert len(WRONG) == 7


def test_tpu_compile_verdicts_per_chip() -> None:
    """Opt-in mode: with libtpu, the VMEM budget case compiles for v5e, v5p and v6e and not
    for v4 (16 MiB), as the hardware table's arithmetic predicts; without libtpu the mode is
    unavailable and says how to get it."""
    from kernels import _compile
    from kernels.tpu_params import fits

    result = run_case(CASES["matmul_bf16_vmem_budget"], Mode.TPU_COMPILE)
    if _compile.libtpu_missing():
        assert result["status"] == "unavailable" and "jax[tpu]" in result["detail"]
        return
    assert result["status"] == "pass", result
    assert {chip: verdict == "fits" for chip, verdict in result["chips"].items()} == {
        chip: fits(chip) for chip in ("v4", "v5e", "v5p", "v6e")
    }
    assert not fits("v4") and fits("v5e")


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.gpu])
def test_gpu_variants_cross_lower_for_cuda(name: str) -> None:
    result = run_case(CASES[name], Mode.GPU_LOWER)
    assert result["status"] == "pass" and "triton" in result["detail"], result


def test_gpu_mode_says_why_it_cannot_run_here() -> None:
    result = run_case(CASES["gpu_add_pow2_blocks"], Mode.GPU)
    if jax.default_backend() == "cpu":
        assert result["status"] == "unavailable" and "no GPU here" in result["detail"]
    else:
        assert result["status"] == "pass", result
    assert run_case(CASES["add2d_tiled"], Mode.GPU)["status"] == "n/a"


def test_results_do_not_name_this_checkout() -> None:
    """Results files are committed: one release gives the same file from any checkout (JAX's
    TPU block-shape error names the kernel's source file on the releases after 0.4.30)."""
    detail = run_case(CASES["program_id_map"], Mode.TPU_LOWER)["detail"]
    assert str(REPO) not in detail
    if "basics.py" in detail:
        assert "<repo>/kernels/basics.py has" in detail
