"""PAL204 on dict compiler params built apart from the call: a helper that makes
``dict(triton=dict(...))`` and returns it, as easydel's GPU matmul does. Left a dict, it
reaches ``pallas_call`` on a GPU, where JAX 0.6.1+ refuses it or cannot hash it; migrate
writes the params class where the dict is made, and doctor lists it there."""

from __future__ import annotations

from pathlib import Path

import pytest

import pallas_compat
from pallas_compat.facts._table import DICT_PARAMS, call_form_releases, installed_jax
from pallas_compat.facts._target import asked_of
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import MARKER, migrate_source
from tests.third_party import case, load_case

HELPER = """\
from jax.experimental import pallas as pl

def params(warps):
    made = dict(triton=dict(num_warps=warps, num_stages=2))
    return made

unrelated = dict(triton=dict(colour="red"))
"""


@pytest.mark.any_release
def test_migrate_writes_the_params_class_where_the_dict_is_made() -> None:
    out = migrate_source(HELPER, "0.12.0.1")
    assert "made = pltriton.CompilerParams(num_warps=warps, num_stages=2)" in out
    assert "from jax.experimental.pallas import triton as pltriton" in out
    assert 'unrelated = dict(triton=dict(colour="red"))' in out  # no params field: not params
    assert MARKER not in out


@pytest.mark.any_release
def test_a_release_that_takes_dicts_keeps_the_dict() -> None:
    assert migrate_source(HELPER, "0.4.30") == HELPER


@pytest.mark.any_release
def test_doctor_lists_the_dict_where_it_is_made() -> None:
    uses = [u for u in uses_in("h.py", HELPER) if u.code == "PAL204"]
    assert [(u.line, u.breaks_on("0.12.0.1"), u.breaks_on("0.4.30")) for u in uses] == [
        (4, True, False)
    ]


@pytest.mark.release
def test_easydels_migrated_gpu_matmul_lowers_for_a_gpu_with_its_gpu_params(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its helper makes the dict only where the backend is a GPU: the test says it is one
    while the kernel is traced, then lowers it for CUDA. Where the release still takes dicts
    (to 0.6.0), migrate keeps the dict and JAX takes it."""
    import jax
    import jax.extend.backend
    import jax.numpy as jnp

    if not hasattr(jax.extend.backend, "get_backend"):
        pytest.skip("easydel's file asks jax.extend.backend.get_backend, which this JAX lacks")
    found = case("easydel", "GPU matmul")
    module = load_case(found, "migrate", installed_jax(), tmp_path, "dp_easydel")
    helper = module._get_compiler_params

    class Gpu:
        platform = "gpu"

    monkeypatch.setattr(jax.extend.backend, "get_backend", lambda *a: Gpu())
    params = helper(blocksize_m=16, blocksize_n=16, blocksize_k=16, dtype=jnp.float32)
    takes_dicts = asked_of(installed_jax()).works_in(call_form_releases(DICT_PARAMS))
    assert isinstance(params, dict) == takes_dicts  # the class exactly where dicts are refused
    a = jax.ShapeDtypeStruct((64, 128), jnp.float32)
    b = jax.ShapeDtypeStruct((128, 96), jnp.float32)
    call = lambda a, b: module.gpu_matmul(a, b, 16, 16, 16, jnp.float32)  # noqa: E731
    text = pallas_compat.lower(call, a, b, platform="cuda", chip="NVIDIA H100 80GB HBM3")
    assert "__gpu$xla.gpu.triton" in text


DOUBLE = """\
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=True,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
    )(x)
"""


@pytest.mark.release
def test_the_params_migrate_writes_for_the_installed_jax_run_on_it() -> None:
    """The dict on 0.4.30-0.4.32 (no params class yet), ``TPUCompilerParams`` to 0.6.1, the
    class from 0.6.2: whichever migrate writes, the installed JAX runs it natively."""
    import numpy as np

    out = migrate_source(DOUBLE, installed_jax())
    assert MARKER not in out
    namespace: dict[str, object] = {}
    exec(compile(out, "double.py", "exec"), namespace)
    x = np.arange(8.0, dtype=np.float32)
    np.testing.assert_array_equal(namespace["double"](x), 2 * x)  # type: ignore[operator]


def test_a_key_written_as_two_strings_is_found_and_rewritten_alike() -> None:
    """``{"mos" "aic": ...}`` is the key ``mosaic`` to Python: doctor lists it, and migrate,
    acting on doctor's finding, rewrites it (two readings once disagreed here)."""
    source = (
        "from jax.experimental import pallas as pl\n"
        'run = pl.pallas_call(k, out_shape=s, compiler_params={"mos" "aic": {"dimension_semantics": ("parallel",)}})\n'
    )
    assert [u.code for u in uses_in("k.py", source)] == ["PAL204"]
    out = migrate_source(source, "0.12.0.1")
    assert 'compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",))' in out
    assert not [u for u in uses_in("k.py", out) if u.breaks_on("0.12.0.1")]


COST_IN_THE_DICT = """\
from jax.experimental import pallas as pl

f = pl.pallas_call(
    kernel,
    out_shape=shape,
    compiler_params={"mosaic": {"dimension_semantics": ("parallel",), "cost_estimate": cost}},
)
g = pl.pallas_call(
    kernel,
    compiler_params={"mosaic": {"cost_estimate": cost}},  # tuned
    out_shape=shape,
)
h = pl.pallas_call(kernel, out_shape=shape, compiler_params={"mosaic": {"cost_estimate": c}})
"""
#: Written out by hand: the params class where the dict was, and cost_estimate moved to
#: pallas_call in the call's own layout (its own line where the arguments stand one a line).
COST_MOVED = """\
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

f = pl.pallas_call(
    kernel,
    out_shape=shape,
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    cost_estimate=cost,
)
g = pl.pallas_call(
    kernel,
    compiler_params=pltpu.CompilerParams(),  # tuned
    cost_estimate=cost,
    out_shape=shape,
)
h = pl.pallas_call(kernel, out_shape=shape, compiler_params=pltpu.CompilerParams(), cost_estimate=c)
"""


@pytest.mark.any_release
def test_a_cost_estimate_in_the_dict_moves_to_pallas_call_in_the_calls_layout() -> None:
    assert migrate_source(COST_IN_THE_DICT, "0.12.0.1") == COST_MOVED


@pytest.mark.any_release
@pytest.mark.parametrize(
    ("key", "says"),
    [
        (
            "triton",
            "num_wraps= is no triton param of any release (the dict era ignored it; migrate drops it)",
        ),
        ("mosaic", "num_wraps= is no mosaic param of any release: fix the spelling or remove it"),
    ],
)
def test_a_key_no_release_knows_is_named_with_what_to_do(key: str, says: str) -> None:
    """The dict-era Triton lowering ignored unknown keys (jax-flash-attn2's ``num_wraps``), so
    migrate drops them; Mosaic refused them, so the typo is the user's to fix."""
    source = (
        f'f = pl.pallas_call(k, out_shape=s, compiler_params={{"{key}": {{"num_wraps": 4}}}})\n'
    )
    (params,) = [
        u
        for u in uses_in("f.py", "from jax.experimental import pallas as pl\n" + source)
        if u.code == "PAL204"
    ]
    assert params.hint.endswith(says), params.hint


@pytest.mark.any_release
@pytest.mark.parametrize(
    ("params", "write"),
    [
        ("{'mosaic': {'bogus_field': 1}}", "pltpu.CompilerParams(...)"),
        ("{'mosaic_gpu': {'bogus_field': 1}}", "plgpu.CompilerParams(...)"),
    ],
)
def test_a_dict_migrate_cannot_turn_into_params_gets_the_note_of_its_own_backend(
    params: str, write: str
) -> None:
    """A field no release's params take cannot be carried over: migrate leaves the dict and
    says what to write, for the backend the dict names (a Mosaic GPU dict is not TPU's)."""
    line = f"f = pl.pallas_call(k, out_shape=s, compiler_params={params})\n"
    out = migrate_source("from jax.experimental import pallas as pl\n" + line, "0.12.0.1")
    note = "dict compiler_params are not taken by JAX 0.12.0.1: compiler_params="
    assert out.endswith(f"{line[:-1]}  {MARKER} {note}{write}\n")


@pytest.mark.any_release
def test_a_cost_estimate_leaves_the_comment_with_compiler_params() -> None:
    """A comment after ``compiler_params`` stays on its line; the moved ``cost_estimate`` is
    the next argument, on a line of its own."""
    source = """\
from jax.experimental import pallas as pl


def f(k, x, extra):
    return pl.pallas_call(
        k,
        compiler_params={'mosaic': {'cost_estimate': extra}},  # tuned
        out_shape=x,
    )(x)
"""
    assert migrate_source(source, "0.12.0.1").endswith("""\
    return pl.pallas_call(
        k,
        compiler_params=pltpu.CompilerParams(),  # tuned
        cost_estimate=extra,
        out_shape=x,
    )(x)
""")
