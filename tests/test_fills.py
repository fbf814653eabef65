"""pallas_compat.shim._fills: every spelling of a renamed or moved API is one object everywhere."""

from __future__ import annotations

import importlib
import warnings

import pytest

from pallas_compat.facts import _table
from pallas_compat.facts._registry import renames
from pallas_compat.facts._table import NAMESPACE_OF, PL, Location
from pallas_compat.shim import _fills, _namespaces
from pallas_compat.shim._errors import PallasCompatError
from pallas_compat.shim._module_like import fills_of
from pallas_compat.shim._warnings import PallasCompatDeprecationWarning, forget_warnings
from tests.conftest import jax_object

#: The generic fill's closures share one code object (however the function is named or wrapped).
GENERIC = next(iter(_fills.renamed_fills("pl").values())).__code__


def spellings() -> list[tuple[str, str, str]]:
    """(feature title, namespace, name) for every public spelling of every rename that the
    generic fill serves (an adapter such as ``pltpu.CompilerParams``, or a stand-in where JAX
    has none, has tests of its own)."""
    found = []
    for feature in renames():
        for loc in feature.locations:
            alias = NAMESPACE_OF.get(loc.module)
            if loc.private or alias is None:
                continue
            fill = fills_of(_namespaces.namespace(alias)).get(loc.attr)
            if fill is not None and getattr(fill, "__code__", None) is GENERIC:
                found.append((feature.title, alias, loc.attr))
    return sorted(set(found))


def jax_has(loc: Location) -> object | None:
    return jax_object(loc.module, loc.attr)


def test_the_generic_fill_serves_spellings_of_several_renames() -> None:
    assert len({title for title, _, _ in spellings()}) >= 10


@pytest.mark.parametrize(("title", "alias", "name"), spellings(), ids=lambda v: str(v))
def test_each_spelling_serves_whichever_name_this_jax_has(
    title: str, alias: str, name: str
) -> None:
    feature = next(f for f in renames() if f.title == title)
    natives = [obj for loc in feature.locations if (obj := jax_has(loc)) is not None]
    space = _namespaces.namespace(alias)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            served = getattr(space, name)
        except PallasCompatError:
            assert natives == [], f"{alias}.{name}: this JAX has {title} but the shim refuses it"
            return
    assert natives, f"{alias}.{name} served although this JAX has no spelling of {title}"
    target = getattr(served, "__wrapped__", served)  # a back-filled function wraps the native
    native = getattr(target, "__native__", target)  # an old enum name is a view of the native
    assert any(native is n or target is n for n in natives)


def test_an_old_name_warns_once_with_the_new_spelling_a_new_name_never_warns() -> None:
    feature = next(f for f in renames() if f.title.startswith("pltpu.semaphore_signal"))
    old, new = (
        feature.locations
    )  # pltpu.semaphore_signal (to 0.10.2), pl.semaphore_signal (0.6.0 on)
    has_old, has_new = (jax_has(loc) is not None for loc in (old, new))
    for loc, alias in ((old, "pltpu"), (new, "pl")):
        _namespaces.namespace(alias).__dict__.pop(loc.attr, None)
    forget_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        served_old = getattr(_namespaces.namespace("pltpu"), old.attr)
        served_new = getattr(_namespaces.namespace("pl"), new.attr)
    ours = [
        str(w.message) for w in caught if issubclass(w.category, PallasCompatDeprecationWarning)
    ]
    assert getattr(served_old, "__wrapped__", served_old) is served_new
    if has_old:  # the old name is native (JAX may warn itself); the new one is filled if need be
        assert ours == []
    else:
        assert has_new and ours == [
            "pltpu.semaphore_signal is not in the installed JAX; pallas-compat serves it. "
            "Write: pl.semaphore_signal"
        ]


def test_tile_along_is_side_by_side_copies() -> None:
    import numpy as np

    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(_fills.tile_along(x, 3, 1)), np.tile(x, (1, 3)))
    np.testing.assert_array_equal(np.asarray(_fills.tile_along(x, 2, 0)), np.tile(x, (2, 1)))


def test_renamed_keywords_reach_the_function_by_its_own_names() -> None:
    """``pl.kernel(out_shape=..., scratch_shapes=...)`` -> ``out_type=``/``scratch_types=``
    where the installed function took the new names, and back where it takes the old."""

    def new_kernel(body, out_type=(), *, scratch_types=(), mesh=None):
        return out_type, scratch_types

    def old_kernel(body, out_shape, *, scratch_shapes=()):
        return out_shape, scratch_shapes

    renames = (("out_shape", "out_type"), ("scratch_shapes", "scratch_types"))
    new = _fills.keywords_either_way(new_kernel, renames)
    assert (
        new(None, out_shape=1, scratch_shapes=2) == (1, 2) == new(None, out_type=1, scratch_types=2)
    )
    old = _fills.keywords_either_way(old_kernel, renames)
    assert (
        old(None, out_type=1, scratch_types=2) == (1, 2) == old(None, out_shape=1, scratch_shapes=2)
    )
    assert _fills.keywords_either_way(len, renames) is len  # nothing to rename: the function


def test_cost_estimate_takes_the_float_counts_cost_analysis_gives() -> None:
    """JAX 0.4.35's TPU flash attention passes ``cost_analysis()["flops"]`` (a float) on."""
    made = _namespaces.namespace("pl").CostEstimate(
        flops=3.0, transcendentals=1, bytes_accessed=2.0
    )
    native = jax_has(Location(PL, "CostEstimate"))
    if isinstance(native, type):
        assert type(made) is native
        assert (made.flops, made.bytes_accessed) == (3, 2) and isinstance(made.flops, int)
    else:  # before pl.CostEstimate: the stand-in pallas_call drops
        assert made.flops == 3.0


def test_new_masked_access_on_every_release() -> None:
    """``pltriton.load(x_ref.at[idx], mask=, other=)`` / ``pltriton.store`` (JAX 0.7.1+, the
    form JAX's own newer kernels use) served by ``pl.load`` / ``pl.store`` on older JAX."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    pl, pltriton = _namespaces.namespace("pl"), _namespaces.namespace("pltriton")

    def kernel(x_ref, o_ref):  # type: ignore[no-untyped-def]
        keep = jnp.arange(8) < 6
        value = pltriton.load(x_ref.at[pl.ds(0, 8)], mask=keep, other=-1.0)
        pltriton.store(o_ref.at[pl.ds(0, 8)], value * 2, mask=keep)

    x = jnp.arange(8, dtype=jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), interpret=True)(
        x
    )
    np.testing.assert_array_equal(np.asarray(out)[:6], 2 * np.arange(6))


def test_loop_on_every_release() -> None:
    """``pl.loop`` (0.6.2+), as JAX 0.9.2's own LayerNorm uses it, on older JAX too."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    pl = _namespaces.namespace("pl")
    assert pl.loop(1, 10, step=3, init_carry=0)(lambda i, total: total + i) == 12

    def kernel(x_ref, o_ref):  # type: ignore[no-untyped-def]
        o_ref[...] = jnp.zeros_like(o_ref)

        @pl.loop(0, x_ref.shape[0])
        def _(row):  # type: ignore[no-untyped-def]
            o_ref[...] += x_ref[pl.ds(row, 1), :]

    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct((1, 8), jnp.float32), interpret=True
    )(x)
    np.testing.assert_array_equal(np.asarray(out), x.sum(axis=0, keepdims=True))


def test_the_loop_fill_itself_on_every_release() -> None:
    """``_fills.loop``, what ``pl.loop`` runs where JAX's own lacks ``step=`` or ``init_carry=``,
    asked directly, so that it is held on the releases whose ``pl.loop`` takes both as well:
    ``lower, lower + step, ... < upper`` (by hand: 2, 5, 8, 11), a traced bound, no carry."""
    import jax
    import jax.numpy as jnp

    def total(upper: object, **options: object) -> object:
        return _fills.loop(2, upper, step=3, init_carry=0, **options)(lambda i, t: t + i)

    assert total(12) == total(13) == total(12, unroll=2) == 26
    assert (total(11), total(15)) == (2 + 5 + 8, 26 + 14)
    assert int(jax.jit(total)(jnp.int32(12))) == 26
    seen: list[int] = []
    with jax.disable_jit():
        _fills.loop(2, 12, step=3)(lambda i: seen.append(int(i)))
    assert seen == [2, 5, 8, 11]


def test_pl_loop_is_jax_s_own_where_it_takes_step_and_init_carry() -> None:
    """Native first: JAX's ``pl.loop`` where it takes both keywords (0.12), JAX's behind a
    wrapper that runs the fill for the keywords it lacks (0.6.2-0.11), the fill where JAX has
    none. What JAX's takes is asked of JAX's own signature."""
    import inspect

    served = _namespaces.namespace("pl").loop
    native = jax_object(PL, "loop")
    if native is None:
        assert served is _fills.loop
    elif {"step", "init_carry"} <= set(inspect.signature(native).parameters):
        assert served is native
    else:
        assert served is not native and served.__wrapped__ is native


def test_a_function_dropped_for_a_method_is_served_by_what_refs_have(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``plgpu.transpose_ref`` where JAX no longer has it: served as ``ref.transpose`` wherever
    JAX's refs have that method, and absent where they do not, asked of the refs themselves,
    so that a JAX whose metadata is missing (its version "unknown") is no error."""
    from jax._src.state import types

    monkeypatch.setattr(_fills, "native_in", lambda alias, name: None)  # as if JAX dropped it
    for where in (_fills, _table):  # wherever the shim could ask for the release number
        monkeypatch.setattr(where, "installed_jax", lambda: "unknown", raising=False)
    build = _fills.method_fill(f"{PL}.mosaic_gpu", "transpose_ref", "transpose")
    refs = [getattr(types, name, None) for name in ("TransformedRef", "AbstractRef")]
    if any(hasattr(ref, "transpose") for ref in refs):  # asked of JAX, as the fill must
        served = build()
        assert served.__name__ == "transpose_ref"

        class Ref:
            def transpose(self, permutation: tuple[int, ...]) -> tuple[int, ...]:
                return permutation

        assert served(Ref(), (1, 0)) == (1, 0)
    else:
        with pytest.raises(PallasCompatError, match="transpose_ref"):
            build()


def imported(module: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            importlib.import_module(module)
        except ImportError:
            return False
    return True


#: Each namespace and the JAX module it stands for, where this JAX has that module (``jax.util``
#: gone, ``pallas_compat.jax_util`` serves old names from elsewhere, each warning: no native).
WRAPPED = {
    alias: modules[0] for alias, (modules, _) in _fills.NAMESPACES.items() if imported(modules[0])
}
#: Callables served wrapped even where JAX has them, as the shim's docs say: masked loads and
#: stores whose block overhangs the array, atomics on a 0-d ref in interpret mode, and
#: ``pl.loop`` with the newest keywords (``step=`` from 0.9, ``init_carry=`` from 0.12).
WRAPPED_CALLABLES = {"load", "store", "swap", "loop"} | {
    f"atomic_{op}" for op in ("add", "and", "cas", "max", "min", "or", "xchg", "xor")
}


@pytest.mark.release
@pytest.mark.parametrize(("alias", "home"), sorted(WRAPPED.items()))
def test_where_jax_has_a_filled_name_the_namespace_gives_jax_s_own_object(
    alias: str, home: str
) -> None:
    """Native first: a fill stands in only where the installed JAX lacks the name (JAX asked
    directly, not the shim's resolver). Adapters (``pallas_call``, ``BlockSpec``, the params
    classes, ...) wrap JAX's own object on purpose and are left out."""
    from pallas_compat.shim._patch import adapters

    space = _namespaces.namespace(alias)
    wrong = []
    for name in fills_of(space):
        own = jax_object(home, name)
        if own is None or name in adapters() or name in WRAPPED_CALLABLES:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            served = getattr(space, name)
        if served is not own:
            wrong.append(name)
    assert wrong == [], f"pallas_compat.{alias} serves its own object where JAX has one"
