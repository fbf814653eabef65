"""pallas_compat.shim._fills: every spelling of a renamed or moved API is one object everywhere."""

from __future__ import annotations

import importlib
import inspect
import types
import warnings

import pytest

from pallas_compat.facts import _table
from pallas_compat.facts._registry import renames
from pallas_compat.facts._table import NAMESPACE_OF, PL, Location
from pallas_compat.shim import _fills, _namespaces
from pallas_compat.shim._errors import MissingFeatureError, PallasCompatError
from pallas_compat.shim._module_like import fills_of
from pallas_compat.shim._resolve import Resolution, Resolved
from pallas_compat.shim._warnings import PallasCompatDeprecationWarning, forget_warnings
from tests.conftest import has_feature, jax_object

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
    """JAX 0.4.35's TPU flash attention passes ``cost_analysis()["flops"]`` (a float) on, and
    others ``np.prod(shape) * itemsize`` (a NumPy integer), by keyword or position; before
    ``pl.CostEstimate`` (0.4.33) a stand-in keeps them and ``pallas_call`` drops it, saying so."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    pl = _namespaces.namespace("pl")
    made = [
        pl.CostEstimate(flops=3.0, transcendentals=np.int64(1), bytes_accessed=2.0),
        pl.CostEstimate(3.0, np.int64(1), 2.0),
    ]
    native = jax_has(Location(PL, "CostEstimate"))
    counts = [(m.flops, m.transcendentals, m.bytes_accessed) for m in made]
    if isinstance(native, type):
        assert all(type(m) is native for m in made)
        assert counts == [(3, 1, 2)] * 2 and all(type(c) is int for c in counts[0] + counts[1])
        return
    assert counts == [(3.0, 1, 2.0)] * 2  # kept as given, for pallas_call to drop

    def kernel(x_ref, o_ref):  # type: ignore[no-untyped-def]
        o_ref[...] = x_ref[...]

    shape = jax.ShapeDtypeStruct((8,), jnp.float32)
    forget_warnings()
    with pytest.warns(
        PallasCompatDeprecationWarning, match=r"^pallas_call\(cost_estimate=\.\.\.\)"
    ):
        call = pl.pallas_call(kernel, out_shape=shape, interpret=True, cost_estimate=made[0])
    np.testing.assert_array_equal(np.asarray(call(jnp.ones(8))), np.ones(8))


def test_new_masked_access_on_every_release() -> None:
    """``pltriton.load(x_ref.at[idx], mask=, other=)`` / ``pltriton.store`` (JAX 0.7.1+, the
    form JAX's own newer kernels use) served by ``pl.load`` / ``pl.store`` on older JAX: the
    masked-off lanes read ``other`` and are left unwritten, through a view or the whole ref."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    pl, pltriton = _namespaces.namespace("pl"), _namespaces.namespace("pltriton")

    def kernel(x_ref, o_ref, read_ref):  # type: ignore[no-untyped-def]
        keep = jnp.arange(8) < 6
        value = pltriton.load(x_ref.at[pl.ds(0, 8)], mask=keep, other=-1.0)
        read_ref[...] = value
        o_ref[...] = jnp.full((8,), 7.0, jnp.float32)
        pltriton.store(o_ref.at[pl.ds(0, 8)], value * 2, mask=keep)
        whole = pltriton.load(x_ref, mask=keep, other=5.0)  # a plain ref: all of it
        pltriton.store(read_ref, whole + value, mask=jnp.arange(8) < 2)

    x = jnp.arange(8, dtype=jnp.float32)
    shape = jax.ShapeDtypeStruct((8,), jnp.float32)
    out, read = pl.pallas_call(kernel, out_shape=(shape, shape), interpret=True)(x)
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4, 6, 8, 10, 7, 7])
    np.testing.assert_array_equal(np.asarray(read), [0, 2, 2, 3, 4, 5, -1, -1])


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


def hint(key: str) -> str:
    """The advice the API-facts table gives for ``key`` (data the shim reads, not its code)."""
    return _table.FEATURES_BY_KEY[key].hint


_MGPU, _TPU, _TRITON_PRIMITIVES = (
    f"{PL}.mosaic_gpu",
    f"{PL}.tpu",
    "jax._src.pallas.triton.primitives",
)
_PRIMITIVES, _THREEFRY = "jax._src.pallas.primitives", "jax._src.random.threefry2x32"
#: Old names the shim serves where JAX lacks them, written out from JAX's sources and release
#: notes: (namespace, name) -> (JAX's module of the old name, the spelling the warning names,
#: what it says to write, where the object comes from when JAX lacks the old name: None where
#: the shim rebuilds it from public APIs, so that it is served on every release).
OLD_NAMES: dict[tuple[str, str], tuple[str, str, str, tuple[str, str] | None]] = {
    **{
        ("pl", f"atomic_{op}"): (
            PL,
            f"pl.atomic_{op}",
            f"pltriton.atomic_{op}",
            (_TRITON_PRIMITIVES, f"atomic_{op}"),
        )
        for op in ("add", "and", "cas", "max", "min", "or", "xchg", "xor")
    },
    ("pl", "max_contiguous"): (
        PL,
        "pl.max_contiguous",
        "pltriton.max_contiguous",
        (_TRITON_PRIMITIVES, "max_contiguous"),
    ),
    **{
        ("pl", name): (PL, f"pl.{name}", hint(name), (_PRIMITIVES, name))
        for name in ("dot", "load", "store", "swap")
    },
    ("pltpu", "ANY"): (_TPU, "pltpu.ANY", "pl.ANY", (PL, "ANY")),
    ("pltpu", "HOST"): (_TPU, "pltpu.HOST", "pl.HOST", (PL, "HOST")),
    ("pltpu", "DeviceIdType"): (
        _TPU,
        "pltpu.DeviceIdType",
        "pl.DeviceIdType",
        (PL, "DeviceIdType"),
    ),
    ("pltpu", "KernelType"): (_TPU, "pltpu.KernelType", "pltpu.CoreType", (_TPU, "CoreType")),
    ("pltpu", "TPUMemorySpace"): (
        _TPU,
        "pltpu.TPUMemorySpace",
        "pltpu.MemorySpace",
        (_TPU, "MemorySpace"),
    ),
    ("pltpu", "CostEstimate"): (
        _TPU,
        "pltpu.CostEstimate",
        "pl.CostEstimate(flops=, transcendentals=, bytes_accessed=)",
        (PL, "CostEstimate"),
    ),
    ("pltpu", "run_scoped"): (
        _TPU,
        "pltpu.run_scoped",
        "pl.run_scoped(body, *scratch_types)",
        (PL, "run_scoped"),
    ),
    **{
        ("pltpu", name): (_TPU, f"pltpu.{name}", f"pl.{name}", (PL, name))
        for name in ("semaphore", "semaphore_read", "semaphore_signal", "semaphore_wait")
    },
    ("pltpu", "repeat"): (_TPU, "pltpu.repeat", hint("tpu_repeat"), None),
    ("plmgpu", "GPUBlockSpec"): (
        _MGPU,
        "plgpu.GPUBlockSpec",
        "plgpu.BlockSpec(block_shape, index_map, transforms=...)",
        (_MGPU, "BlockSpec"),
    ),
    ("plmgpu", "GPUCompilerParams"): (
        _MGPU,
        "plgpu.GPUCompilerParams",
        "plgpu.CompilerParams(...)",
        (_MGPU, "CompilerParams"),
    ),
    ("plmgpu", "GPUMemorySpace"): (
        _MGPU,
        "plgpu.GPUMemorySpace",
        "plgpu.MemorySpace.SMEM",
        (_MGPU, "MemorySpace"),
    ),
    ("plmgpu", "ThreadSemantics"): (
        _MGPU,
        "plgpu.ThreadSemantics",
        "plgpu.LoweringSemantics.Warpgroup",
        (_MGPU, "LoweringSemantics"),
    ),
    ("for_loop", "for_loop"): (
        "jax._src.lax.control_flow.for_loop",
        "for_loop",
        hint("for_loop"),
        None,
    ),
    ("dtypes", "bit_width"): (
        "jax._src.dtypes",
        "jax._src.dtypes.bit_width",
        "jax.dtypes.itemsize_bits(dtype)",
        None,
    ),
    **{
        ("jax_util", name): (
            "jax.util",
            f"jax.util.{name}",
            hint("jax_util"),
            ("jax._src.util", name),
        )
        for name in (  # what JAX 0.4.30's jax.util re-exported, from its source
            "HashableFunction",
            "as_hashable_function",
            "cache",
            "safe_map",
            "safe_zip",
            "split_dict",
            "split_list",
            "split_list_checked",
            "split_merge",
            "subvals",
            "toposort",
            "unzip2",
            "wrap_name",
            "wraps",
        )
    },
    **{
        ("prng", name): (
            "jax._src.prng",
            f"jax._src.prng.{name}",
            f"{_THREEFRY}.{name} (the Threefry functions left the PRNG module in JAX 0.10.2)",
            (_THREEFRY, name),
        )
        for name in (
            "threefry2x32_p",
            "threefry_2x32",
            "threefry_fold_in",
            "threefry_seed",
            "threefry_split",
        )
    },
}


#: JAX's atomics that the shim wraps even where JAX has them (interpret mode took no 0-d ref);
#: compare-and-swap has no combining operation to do it with.
ATOMICS_WRAPPED = {f"atomic_{op}" for op in ("add", "and", "max", "min", "or", "xchg", "xor")}


def looked_up(alias: str, name: str) -> tuple[object, list[warnings.WarningMessage]]:
    """``name`` of the shim's namespace, built afresh (its warning not yet given), with the
    shim's warnings that the lookup gave; the error where the shim refuses it."""
    space = _namespaces.namespace(alias)
    space.__dict__.pop(name, None)
    forget_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            served: object = getattr(space, name)
        except PallasCompatError as refused:
            served = refused
    return served, [w for w in caught if issubclass(w.category, PallasCompatDeprecationWarning)]


@pytest.mark.parametrize(
    ("alias", "name"), sorted(OLD_NAMES), ids=[".".join(k) for k in sorted(OLD_NAMES)]
)
def test_an_old_name_jax_lacks_warns_with_what_to_write_at_the_line_that_used_it(
    alias: str, name: str
) -> None:
    """Where JAX has the old name, the shim adds no warning of its own; where it lacks it, the
    lookup warns once, at this file's line, naming the old spelling and what to write; where
    JAX has nothing to serve it from either, the refusal names the spelling."""
    home, spelling, write, source = OLD_NAMES[alias, name]
    served, ours = looked_up(alias, name)
    own = jax_object(home, name)
    if own is not None:  # JAX's own; atomics take a 0-d ref in interpret mode through a wrapper
        assert ours == []
        assert (getattr(served, "__wrapped__", None) if name in ATOMICS_WRAPPED else served) is own
    elif source is None or jax_object(*source) is not None:
        assert [(str(w.message), w.filename) for w in ours] == [
            (
                f"{spelling} is not in the installed JAX; pallas-compat serves it. Write: {write}",
                __file__,
            )
        ]
    else:
        assert isinstance(served, PallasCompatError) and str(served).startswith(f"{spelling} ")


#: New names the shim serves on releases from before them, never with a warning (code that
#: uses them is not old): (namespace, name) -> (the spelling a refusal names, the feature a
#: release must have some location of for the shim to serve it; None: served on every release,
#: rebuilt from public APIs where JAX lacks it).
NEW_NAMES: dict[tuple[str, str], tuple[str, str | None]] = {
    ("pltpu", "InterpretParams"): ("pltpu.InterpretParams", "tpu_simulator"),
    ("plmgpu", "InterpretGPUParams"): ("plgpu.InterpretGPUParams", "gpu_simulator"),
    ("dtypes", "itemsize_bits"): ("jax.dtypes.itemsize_bits", None),
    ("pl", "loop"): ("pl.loop", None),
    ("pl", "CostEstimate"): ("pl.CostEstimate", None),
    ("pltriton", "load"): ("pltriton.load", None),
    ("pltriton", "store"): ("pltriton.store", None),
    **{
        ("pltpu", name): (f"pltpu.{name}", None)
        for name in (
            "ARBITRARY",
            "ChipVersion",
            "GridDimensionSemantics",
            "PARALLEL",
            "force_tpu_interpret_mode",
            "get_tpu_info_for_chip",
            "reset_tpu_interpret_mode_state",
        )
    },
}


@pytest.mark.parametrize(
    ("alias", "name"), sorted(NEW_NAMES), ids=[".".join(k) for k in sorted(NEW_NAMES)]
)
def test_a_new_name_is_served_without_a_warning_or_refused_naming_it(alias: str, name: str) -> None:
    """Refused exactly where the release scan finds no location of the feature at all."""
    spelling, key = NEW_NAMES[alias, name]
    served, ours = looked_up(alias, name)
    assert ours == []
    if key is None or has_feature(key):
        assert served is not None and not isinstance(served, PallasCompatError)
    else:
        assert isinstance(served, PallasCompatError) and str(served).startswith(f"{spelling} ")


def test_an_old_signature_name_is_served_from_the_public_home_where_the_private_one_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where neither the old name nor the table's private home of its callable is there (a
    private module moved on JAX 0.9.0-0.9.1) but a public home is, the old name is served from
    that, with its warning; where none is, the refusal names the old spelling. Neither release
    is in the default matrix, so ``pl.dot`` and a stand-in play the name and JAX's function."""

    def public_dot(a: int, b: int) -> int:
        return a * b

    feature = _table.FEATURES_BY_KEY["dot"]
    monkeypatch.setattr(_fills, "native", lambda module, name: None)  # the old name is gone
    monkeypatch.setattr(_fills, "find", lambda location: ("absent", None))  # so is the home
    public = Resolved(feature, Resolution.CURRENT, feature.locations[-1], public_dot)
    monkeypatch.setattr(_fills, "resolve", lambda f: public if f is feature else None)
    forget_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        served = _fills.old_signature(PL, "dot", "dot")()
    assert [str(w.message) for w in caught] == [
        f"pl.dot is not in the installed JAX; pallas-compat serves it. Write: {hint('dot')}"
    ]
    assert served.__wrapped__ is public_dot and served(3, 4) == 12
    gone = Resolved(feature, Resolution.UNAVAILABLE, None)
    monkeypatch.setattr(_fills, "resolve", lambda f: gone if f is feature else None)
    with pytest.raises(MissingFeatureError, match=r"^pl\.dot \(") as refused:
        _fills.old_signature(PL, "dot", "dot")()
    assert hint("dot") in str(refused.value)


def test_core_map_hands_a_mesh_s_carried_options_to_jax_s_own_and_keeps_its_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``pl.core_map`` where JAX has it: JAX's function, given the options a shim-made mesh
    carries (``approx_math``, which 0.5.0 moved off the mesh) as Mosaic GPU compiler params,
    and, where JAX deprecated it, JAX's own warning at the caller's line; where JAX lacks it,
    a refusal naming it. A stand-in records what JAX's function is given (it needs a GPU)."""
    import jax.experimental.pallas as jax_pl

    from pallas_compat.shim import _mosaic_gpu

    if jax_object(PL, "core_map") is None:
        with pytest.raises(MissingFeatureError, match=r"^pl\.core_map is not in"):
            _fills.core_map_fill()
        return
    given: list[tuple[object, dict[str, object]]] = []

    def jax_core_map(mesh: object, **kwargs: object) -> str:
        given.append((mesh, kwargs))
        return "JAX's decorator"

    real_find = _fills.find

    def stand_in(location: Location) -> tuple[str, object]:
        if location == Location(PL, "core_map"):
            return "present", jax_core_map
        return real_find(location)

    monkeypatch.setattr(_fills, "find", stand_in)
    served = _fills.core_map_fill()
    plain, carrying = (
        object(),
        types.SimpleNamespace(**{_mosaic_gpu.CARRIED: {"approx_math": True}}),
    )
    deprecated = getattr(jax_pl, "_deprecations", {}).get("core_map")  # JAX's own table
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
        assert served(plain, name="k") == "JAX's decorator"
    assert [(str(w.message), w.filename, w.lineno) for w in caught] == (
        [(deprecated[0], __file__, line)] if deprecated else []
    )
    assert given == [(plain, {"name": "k"})]
    params = jax_object(f"{PL}.mosaic_gpu", "CompilerParams")
    if params is None or "approx_math" not in inspect.signature(params).parameters:
        return  # no params to carry them to (the mesh carries nothing on such a release)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        served(carrying)
    assert given[-1] == (carrying, {"compiler_params": params(approx_math=True)})


def test_the_names_served_for_a_module_are_its_namespace_s_fills_whatever_jax_has() -> None:
    """What ``scripts/measure_served.py`` looks up for each module: the old names and the new
    ones of its namespace on any release (a few written out here), nothing for a module the
    shim has no namespace for."""
    assert {"TPUCompilerParams", "CompilerParams", "repeat", "InterpretParams"} <= (
        _fills.served_names(f"{PL}.tpu")
    )
    assert {"load", "loop", "atomic_add", "CostEstimate"} <= _fills.served_names(PL)
    assert {"safe_map", "wraps"} <= _fills.served_names("jax.util")
    assert _fills.served_names("jax.numpy") == frozenset()


def test_itemsize_bits_is_jax_s_own_under_either_name_or_the_bit_width_of_a_dtype() -> None:
    """``jax.dtypes.itemsize_bits`` (0.8.1) for newer kernel files: JAX's function where this
    JAX has it under that name or the older ``bit_width``; before either, the width worked out
    (by hand: 8, 16, 32 and 64 bits)."""
    import numpy as np

    served, ours = looked_up("dtypes", "itemsize_bits")
    own = [
        found
        for module, name in (
            ("jax.dtypes", "itemsize_bits"),
            ("jax._src.dtypes", "itemsize_bits"),
            ("jax._src.dtypes", "bit_width"),
        )
        if (found := jax_object(module, name)) is not None
    ]
    assert ours == []
    if own:
        assert served in own
    else:
        widths = [served(np.dtype(t)) for t in ("int8", "float16", "float32", "int64")]
        assert widths == [8, 16, 32, 64]
