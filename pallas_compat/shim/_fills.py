"""What each namespace adds to the native module: back-fills of old names on new JAX,
forward-fills of new names on old JAX, and the call-form adapters.

Every entry is built on first lookup from the API-facts table; nothing here compares versions.
"""

from __future__ import annotations

import enum
import functools
import importlib
import inspect
import itertools
import numbers
from collections.abc import Callable
from typing import Any

from pallas_compat.facts._registry import registry, renames
from pallas_compat.facts._table import (
    BACKENDS,
    BACKENDS_BY_KEY,
    FEATURES_BY_KEY,
    FOR_LOOP,
    GPU_LEGACY,
    JAX_UTIL,
    KEYWORD_MOVES,
    KEYWORD_RENAMES,
    LOOP_BODIES,
    MEMBER_FORMS,
    MEMBER_MOVES,
    MESH_PARAMS_BACKEND,
    METHOD_FORMS,
    MOSAIC_GPU,
    NAMESPACE_OF,
    OLD_PRNG,
    PL,
    PRIVATE_DTYPES,
    PRIVATE_UTIL,
    PRNG,
    TPU,
    TRITON,
    Backend,
    Feature,
    Location,
    backfilled_features,
    keyword_spellings,
    positions,
    positions_dropped,
)
from pallas_compat.shim import (
    _atomic_ops,
    _block_spec,
    _compiler_params,
    _enum_view,
    _facade,
    _interpret,
    _mosaic_gpu,
    _outside,
    _pallas_call,
    _tpu_info,
)
from pallas_compat.shim._errors import missing, missing_name
from pallas_compat.shim._module_like import Fill
from pallas_compat.shim._resolve import (
    Resolution,
    deprecation_table,
    find,
    import_optional,
    native,
    resolve,
)
from pallas_compat.shim._warnings import warn_once


def backfilled(spelling: str, obj: Any, modern: str) -> Any:
    """``obj`` served under an old name: warn once, on first lookup or first call. "Not in",
    not "gone": an old name may also postdate the installed JAX (``jax._src.dtypes.bit_width``,
    0.5.0-0.8.1, served on 0.4.3x)."""
    message = f"{spelling} is not in the installed JAX; pallas-compat serves it. Write: {modern}"
    warn_once(spelling, message)
    if not inspect.isroutine(obj):  # classes, enum members (callable in Pallas): the object
        return obj

    @functools.wraps(obj)
    def call(*args: Any, **kwargs: Any) -> Any:
        warn_once(spelling, message)
        return obj(*args, **kwargs)

    return call


#: Old masked accessors whose static block may overhang the array (see ``_masked``).
MASKED_ACCESS = frozenset({"load", "store", "swap"})


def adapted(key: str, obj: Any) -> Any:
    """A served callable that takes the forms old code passed it: masked loads and stores
    whose block overhangs the array (``_masked``), atomics on a 0-d ref or at an integer
    index in interpret mode (``_atomic_ops``)."""
    if key in MASKED_ACCESS:
        from pallas_compat.shim import _masked  # lazy: numpy on first use only

        return _masked.bounds_safe(obj)
    op = key.removeprefix("atomic_")
    if key.startswith("atomic_") and _atomic_ops.combine(op) is not None:
        return _atomic_ops.interpretable(obj, op)
    return obj


def old_signature(module: str, name: str, key: str) -> Fill:
    """An old name whose callable JAX still has, same signature, in a private module."""

    def build() -> Any:
        here = native(module, name)
        if here is not None:
            return adapted(key, here) if key.startswith("atomic_") else here
        feature = FEATURES_BY_KEY[key]
        spelling = f"{Location(module, name).spelling}"
        if feature.backfill is not None:
            state, obj = find(feature.backfill)
            if state == "present":
                return backfilled(spelling, adapted(key, obj), feature.hint)
        resolved = resolve(feature)  # the private home moved (0.9.0-0.9.1): the public one
        if resolved.status is not Resolution.UNAVAILABLE:
            return backfilled(spelling, adapted(key, resolved.obj), feature.hint)
        raise missing(feature, spelling)

    return build


def feature_object(key: str | Feature, spelling: str, *, old: bool = False) -> Fill:
    """Wherever the feature lives on this JAX (public, deprecated or private)."""

    def build() -> Any:
        resolved = resolve(FEATURES_BY_KEY[key] if isinstance(key, str) else key)
        if resolved.status is Resolution.UNAVAILABLE:
            raise missing(resolved.feature, spelling)
        obj = with_moved_members(resolved.feature, spelling, resolved.obj) if old else resolved.obj
        if old and resolved.location is not None and resolved.location.spelling != spelling:
            return backfilled(spelling, obj, resolved.feature.hint)
        return obj

    return build


def with_moved_members(feature: Feature, spelling: str, obj: Any) -> Any:
    """An enum as old code used it: with the members JAX moved out of it, where this JAX has
    them elsewhere (``pltpu.MemorySpace.ANY`` is ``pl.ANY`` from 0.8.2). The native enum
    where none moved."""
    moved = {
        member: lambda key=key: resolve(FEATURES_BY_KEY[key]).obj
        for (owner, member), key in MEMBER_MOVES.items()
        if owner == feature.key
        and not hasattr(obj, member)
        and resolve(FEATURES_BY_KEY[key]).status is not Resolution.UNAVAILABLE
    }
    if not moved or not isinstance(obj, type):
        return obj
    return _enum_view.enum_view(spelling.rpartition(".")[2], obj, moved)


def native_or(module: str, name: str, fallback: Callable[[], Any]) -> Fill:
    return lambda: n if (n := native(module, name)) is not None else fallback()


def native_in(alias: str, name: str) -> Any:
    """``name`` on the module the namespace ``alias`` wraps (its first that imports), or None."""
    for module in NAMESPACES[alias][0]:
        if import_optional(module) is not None:
            return native(module, name)
    return None


def keywords_either_way(
    fn: Callable[..., Any],
    renames: tuple[tuple[str, ...], ...] = (),
    by_position: tuple[str, ...] = (),
) -> Callable[..., Any]:
    """``fn`` taking every spelling of each renamed keyword (groups of ``KEYWORD_RENAMES``), and
    the arguments older releases took by position where it takes them by keyword only
    (``plgpu.Barrier(1, num_barriers=2)`` on 0.6.2 on: ``by_position`` names each position,
    from the scan); a class stays a class (a facade: instances are the native class's)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return fn
    takes = {p.name for p in parameters}
    wanted = keyword_spellings(renames, takes)
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        by_position = ()
    positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
    extra = tuple(
        itertools.takewhile(lambda name: wanted.get(name, name) in takes, by_position[positional:])
    )
    if not wanted and not extra:
        return fn

    def convert(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], Any]:
        moved = dict(zip(extra, args[positional:], strict=False))
        kept = args[:positional] if moved else args
        return kept, {wanted.get(k, k): v for k, v in {**moved, **kwargs}.items()}

    if isinstance(fn, type):
        return _facade.facade(fn, convert)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = convert(args, kwargs)
        return fn(*args, **kwargs)

    return call


def with_call_forms(alias: str, fills: dict[str, Fill]) -> dict[str, Fill]:
    """``fills`` plus the callables whose keywords JAX renamed (``pl.kernel(out_shape=)`` ->
    ``out_type=``) or made keyword-only (``plgpu.Barrier(num_arrivals, num_barriers)`` to
    0.6.1): either form on every release. A name with a fill of its own keeps it, taking the
    other forms on top; the others are JAX's callable, taking them."""
    made = dict(fills)
    changed = {Location.parse(key) for key in positions_dropped()}
    for place in {*(Location(m, n) for m, n in KEYWORD_RENAMES), *changed}:
        module, name = place.module, place.attr
        if NAMESPACE_OF.get(module) != alias:
            continue
        own = fills.get(name, functools.partial(native_or_missing, module, name))

        def build(module: str = module, name: str = name, own: Fill = own) -> Any:
            return keywords_either_way(
                own(),
                KEYWORD_RENAMES.get((module, name), ()),
                tuple(n for n, _ in positions(f"{module}:{name}")),
            )

        made[name] = build
    return made


def renamed_fills(alias: str) -> dict[str, Fill]:
    """Every spelling of every renamed or moved API that lives in this namespace: the native
    object where JAX has that name, else the same API under its other name (an old name
    warns once). Derived from the API-facts table and the release scan, nothing typed here."""
    fills: dict[str, Fill] = {}
    for feature in renames():
        for loc in feature.locations:
            served = not loc.private or feature.outside  # outside Pallas, private is the API
            if not served or NAMESPACE_OF.get(loc.module) != alias or loc.attr in fills:
                continue
            elsewhere = feature_object(feature, loc.spelling, old=loc != feature.modern)
            fills[loc.attr] = lambda n=loc.attr, e=elsewhere, f=feature, s=loc.spelling: (  # type: ignore[misc]
                with_moved_members(f, s, native)
                if (native := native_in(alias, n)) is not None and not f.key.startswith("atomic_")
                else adapted(f.key, native if native is not None else e())
            )
    return fills


def params(backend: Backend, spelling: str, *, old: bool = False) -> Fill:
    def build() -> Any:
        feature = FEATURES_BY_KEY[backend.feature]
        where = resolve(feature).location
        renamed = old and (where is None or where.spelling != spelling)
        cls = _compiler_params.params_class(backend.key, spelling if renamed else None)
        if cls is None:
            raise missing(feature, spelling)
        return cls

    return build


def params_fills(alias: str) -> dict[str, Fill]:
    """Every name of a dict-era backend's CompilerParams class in this namespace (old names
    warn): the class, or on the dict-only releases a stand-in the shim turns into the dict."""
    fills: dict[str, Fill] = {}
    for backend in BACKENDS:
        feature = FEATURES_BY_KEY[backend.feature]
        if not backend.dict_fields:
            continue
        for loc in feature.locations:
            if NAMESPACE_OF.get(loc.module) == alias:
                fills[loc.attr] = params(backend, loc.spelling, old=loc != feature.modern)
    return fills


def old_signature_fills(alias: str) -> dict[str, Fill]:
    """Old names whose callable JAX still keeps, same signature, in a private module (the
    table's ``backfill``): the native name where JAX has it, else that private callable."""
    return {
        loc.attr: old_signature(loc.module, loc.attr, feature.key)
        for feature in backfilled_features()
        for loc in feature.locations[:1]
        if NAMESPACE_OF.get(loc.module) == alias
    }


def scratch_grid_spec(**kwargs: Any) -> Any:
    return importlib.import_module(TPU).PrefetchScalarGridSpec(**kwargs)


def pl_fills() -> dict[str, Fill]:
    fills: dict[str, Fill] = {
        **renamed_fills("pl"),
        "pallas_call": lambda: _pallas_call.make_pallas_call(
            native(PL, "pallas_call"), scratch_grid_spec
        ),
        "BlockSpec": lambda: _block_spec.block_spec_class(),
        "Blocked": _block_spec.blocked_class,
        **{
            name: native_or(PL, name, functools.partial(getattr, _block_spec, name))
            for name in ("Unblocked", "unblocked", "blocked", "Element", "Squeezed", "squeezed")
        },
        "CostEstimate": cost_estimate_class,
        "core_map": core_map_fill,
        "loop": loop_fill,
        **old_signature_fills("pl"),
    }
    return with_call_forms("pl", fills)


def tpu_fills() -> dict[str, Fill]:
    return with_call_forms(
        "pltpu",
        {
            **renamed_fills("pltpu"),
            **params_fills("pltpu"),
            "InterpretParams": lambda: _interpret.tpu_params_class(
                feature_object("tpu_simulator", "pltpu.InterpretParams")()
            ),
            "reset_tpu_interpret_mode_state": native_or(
                TPU, "reset_tpu_interpret_mode_state", lambda: _interpret.reset_interpret_state
            ),
            "force_tpu_interpret_mode": native_or(
                TPU,
                "force_tpu_interpret_mode",
                lambda: _interpret.force_tpu_interpret_mode,
            ),
            "ChipVersion": lambda: _tpu_info.chip_version_class(),
            "get_tpu_info_for_chip": native_or(
                TPU, "get_tpu_info_for_chip", lambda: _tpu_info.get_tpu_info_for_chip
            ),
            "repeat": native_or(
                TPU,
                "repeat",
                lambda: backfilled("pltpu.repeat", tile_along, FEATURES_BY_KEY["tpu_repeat"].hint),
            ),
            "GridDimensionSemantics": native_or(
                TPU, "GridDimensionSemantics", lambda: GridDimensionSemantics
            ),
            "PARALLEL": native_or(TPU, "PARALLEL", lambda: GridDimensionSemantics.PARALLEL),
            "ARBITRARY": native_or(TPU, "ARBITRARY", lambda: GridDimensionSemantics.ARBITRARY),
        },
    )


def ref_and_index(ref: Any) -> tuple[Any, Any]:
    """``x_ref.at[idx]`` -> ``(x_ref, idx)``: old interpreters take a single indexer, so the
    view is taken apart rather than indexed again (a plain ref: the whole of it)."""
    base = getattr(ref, "ref", None)
    steps = getattr(ref, "transforms", None) or getattr(ref, "indexers", None)
    if base is not None and steps and len(steps) == 1 and hasattr(steps[0], "indices"):
        return base, tuple(steps[0].indices)
    return ref, tuple(slice(None) for _ in ref.shape)


def ref_access(name: str) -> Fill:
    """``pltriton.load(ref.at[idx], mask=...)`` / ``store`` on JAX that only had
    ``pl.load(ref, idx, mask=...)``: the new call form, served by the old function (JAX's own
    ``pltriton.load`` is exactly ``pl.load`` with the index already in the ref)."""

    def build() -> Any:
        here = native_in("pltriton", name)
        if here is not None:
            return here
        old = native(PL, name)
        if old is None:
            raise missing(FEATURES_BY_KEY[name], f"pltriton.{name}")

        def given(**kwargs: Any) -> dict[str, Any]:
            return {k: v for k, v in kwargs.items() if v is not None}

        if name == "load":

            def load(ref: Any, *, mask: Any = None, other: Any = None, **hints: Any) -> Any:
                return old(*ref_and_index(ref), **given(mask=mask, other=other, **hints))

            return load

        def store(ref: Any, val: Any, *, mask: Any = None, **hints: Any) -> Any:
            return old(*ref_and_index(ref), val, **given(mask=mask, **hints))

        return store

    return build


def triton_fills() -> dict[str, Fill]:
    return with_call_forms(
        "pltriton",
        {
            **renamed_fills("pltriton"),
            "load": ref_access("load"),
            "store": ref_access("store"),
            **params_fills("pltriton"),
        },
    )


def native_or_missing(module: str, name: str) -> Any:
    """``module.name`` of the installed JAX, or the shim's error saying it is not there."""
    found = native_in(NAMESPACE_OF[module], name)
    if found is None:
        raise missing_name(module, name)
    return found


def member_forms_fill(feature: str) -> Fill:
    """The enum of ``feature`` serving the members JAX replaced by forms (``MEMBER_FORMS``)."""
    location = FEATURES_BY_KEY[feature].modern

    def build() -> Any:
        found = native_or_missing(location.module, location.attr)
        return _mosaic_gpu.member_forms_view(feature, found)

    return build


def loop_body_fill(module: str, name: str, info: str) -> Fill:
    """A loop decorator whose body gets the index tuple on every release (``LOOP_BODIES``)."""

    def build() -> Any:
        found = native_or_missing(module, name)
        if resolve(FEATURES_BY_KEY[info]).obj is None:
            return found  # the body gets the index tuple already
        return _mosaic_gpu.index_or_info_loop(found)

    return build


def keyword_move_fill(module: str, name: str, keyword: str) -> Fill:
    """A callable that takes a keyword JAX moved off it (``KEYWORD_MOVES``) and moves it."""

    def build() -> Any:
        found = native_or_missing(module, name)
        try:
            takes = set(inspect.signature(found).parameters)
        except (TypeError, ValueError):
            return found
        if keyword in takes:
            return found
        return _mosaic_gpu.MOVERS[(name, keyword)](found)

    return build


def mosaic_gpu_fills() -> dict[str, Fill]:
    return with_call_forms(
        "plmgpu",
        {
            **renamed_fills("plmgpu"),
            "InterpretGPUParams": feature_object("gpu_simulator", "plgpu.InterpretGPUParams"),
            **{
                FEATURES_BY_KEY[owner].modern.attr: member_forms_fill(owner)
                for owner, _ in MEMBER_FORMS
                if NAMESPACE_OF[FEATURES_BY_KEY[owner].modern.module] == "plmgpu"
            },
            **{
                name: loop_body_fill(module, name, info)
                for (module, name), info in LOOP_BODIES.items()
                if NAMESPACE_OF[module] == "plmgpu"
            },
            **{
                name: keyword_move_fill(module, name, keyword)
                for module, name, keyword in KEYWORD_MOVES
                if NAMESPACE_OF[module] == "plmgpu"
            },
            "GPUMesh": gpu_mesh,
            **{
                name: method_fill(module, name, method)
                for (module, name), method in METHOD_FORMS.items()
                if NAMESPACE_OF[module] == "plmgpu"
            },
        },
    )


#: Where JAX's refs take their methods (the first argument of every ``METHOD_FORMS`` function
#: is a ref): the view of a ref and its abstract value.
REF_TYPES = (
    Location("jax._src.state.types", "TransformedRef"),
    Location("jax._src.state.types", "AbstractRef"),
)


def refs_have(method: str) -> bool:
    """Do this JAX's refs have ``method``? Asked of the classes, not of the release number
    (which may be unknown where JAX's metadata is missing)."""
    return any(hasattr(native(loc.module, loc.attr), method) for loc in REF_TYPES)


def method_fill(module: str, name: str, method: str) -> Fill:
    """A function JAX dropped for a method of its first argument (``METHOD_FORMS``)."""

    def build() -> Any:
        found = native_in(NAMESPACE_OF[module], name)
        if found is not None:
            return found
        if not refs_have(method):  # before JAX had the function, refs had no method either
            raise missing_name(module, name)

        def function(first: Any, *args: Any, **kwargs: Any) -> Any:
            return getattr(first, method)(*args, **kwargs)

        function.__name__ = function.__qualname__ = name
        return function

    return build


def gpu_mesh() -> Any:
    """``plgpu.GPUMesh`` where JAX has it, on 0.6.1 on made into a ``plgpu.Mesh``; either way
    taking the options JAX moved off the mesh (``approx_math``) where it no longer takes them:
    the mesh carries them to ``pl.core_map``'s compiler params."""
    made = native_in("plmgpu", "GPUMesh")
    if made is None:
        mesh = native_in("plmgpu", "Mesh")
        if mesh is None:
            raise missing_name(MOSAIC_GPU, "GPUMesh")
        made = _mosaic_gpu.mesh_from_axis_names(mesh)
        takes: set[str] = set(_mosaic_gpu.GPU_MESH_FIELDS)
    else:
        takes = set(inspect.signature(made).parameters)
    moved = frozenset(registry().mesh_options_moved) - takes
    if not moved or not core_map_takes_params():
        return made  # nowhere to carry them (0.4.35's core_map takes no compiler params)
    return _mosaic_gpu.carrying(made, moved)


def core_map_takes_params() -> bool:
    """Does the installed ``pl.core_map`` take ``compiler_params=`` (0.5.0 on)?"""
    found = find(Location(PL, "core_map"))[1]
    try:
        return "compiler_params" in inspect.signature(found).parameters
    except (TypeError, ValueError):
        return False


def core_map_fill() -> Any:
    """``pl.core_map`` handing the options a shim-made mesh carries to the compiler params,
    where the installed JAX reads them (``gpu_mesh``). Where JAX deprecated it (0.11.1), each
    call still warns with JAX's own message, at the caller's line."""
    state, found = find(Location(PL, "core_map"))
    if state not in ("present", "deprecated"):
        raise missing_name(PL, "core_map")
    feature = FEATURES_BY_KEY[BACKENDS_BY_KEY[MESH_PARAMS_BACKEND].feature]
    entry = deprecation_table(importlib.import_module(PL)).get("core_map")
    return _mosaic_gpu.core_map_with_carried(
        found, lambda: resolve(feature).obj, entry[0] if entry else None
    )


def tile_along(x: Any, repeats: int, axis: int) -> Any:
    """``pltpu.repeat`` as Mosaic ran it (``tpu.RepeatOp``: ``repeats`` copies side by side
    along ``axis``), which is JAX's own replacement, ``jnp.tile``. (Old interpret mode ran
    ``jnp.repeat`` instead; the two agree on the lane-broadcast values kernels repeated.)"""
    import jax.numpy as jnp

    return jnp.concatenate([x] * repeats, axis=axis)


def loop(
    lower: Any, upper: Any, *, init_carry: Any = None, step: Any = 1, unroll: Any = None
) -> Callable[[Callable[..., Any]], Any]:
    """``pl.loop`` before 0.6.2: the ``lax.fori_loop`` JAX's own ``pl.loop`` runs, over
    ``lower, lower + step, ... < upper``; with ``init_carry`` the body takes and returns it."""
    from jax import lax

    count = (upper - lower + step - 1) // step

    def decorator(body: Callable[..., Any]) -> Any:
        if init_carry is None:
            step_fn = lambda index, _: body(lower + index * step)  # noqa: E731
        else:
            step_fn = lambda index, carry: body(lower + index * step, carry)  # noqa: E731
        zero = 0 if isinstance(count, int) else lax.full_like(count, 0)
        options = {} if unroll is None else {"unroll": unroll}
        return lax.fori_loop(zero, count, step_fn, init_carry, **options)

    return decorator


def loop_fill() -> Any:
    """``pl.loop`` as the newest JAX takes it: ``step=`` came in 0.9, ``init_carry=`` in 0.12;
    a call using what the installed ``pl.loop`` lacks runs the same loop here instead."""
    native_loop = native(PL, "loop")
    if native_loop is None:
        return loop
    takes = set(inspect.signature(native_loop).parameters)
    if set(inspect.signature(loop).parameters) <= takes:
        return native_loop

    @functools.wraps(native_loop)
    def call(lower: Any, upper: Any, **kwargs: Any) -> Any:
        return (native_loop if set(kwargs) <= takes else loop)(lower, upper, **kwargs)

    return call


class GridDimensionSemantics(str, enum.Enum):
    """``pltpu.GridDimensionSemantics`` before 0.5.3, where the strings were the API."""

    PARALLEL = "parallel"
    ARBITRARY = "arbitrary"


def whole_numbers(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Counts made Python ints where they are NumPy integers (``np.prod(shape) * itemsize``)
    or floats (what ``Compiled.cost_analysis()`` returns): from 0.5.3 a CostEstimate checks
    ``isinstance(v, int)`` ("All fields in CostEstimate must be ints"); before, it took them."""

    def whole(value: Any) -> Any:
        if isinstance(value, int):
            return value
        if isinstance(value, numbers.Integral):  # NumPy's: exact, however large
            return int(value)
        return int(float(value)) if isinstance(value, numbers.Real) else value

    return tuple(whole(a) for a in args), {k: whole(v) for k, v in kwargs.items()}


def cost_estimate_class() -> Any:
    """``pl.CostEstimate`` taking float counts, as JAX 0.4.35's own kernels pass them; a
    stand-in before it existed."""
    native = native_in("pl", "CostEstimate")
    if native is None:
        return CostEstimate
    return _facade.facade(native, whole_numbers)


class CostEstimate:
    """``pl.CostEstimate`` before 0.4.33: kept for the call form, dropped by ``pallas_call``."""

    def __init__(self, flops: int, transcendentals: int, bytes_accessed: int) -> None:
        self.flops, self.transcendentals = flops, transcendentals
        self.bytes_accessed = bytes_accessed

    def __bool__(self) -> bool:
        return True


def for_loop_fills() -> dict[str, Fill]:
    hint = FEATURES_BY_KEY["for_loop"].hint
    fallback = lambda: backfilled("for_loop", _outside.for_loop, hint)  # noqa: E731
    return {"for_loop": native_or(FOR_LOOP, "for_loop", fallback)}


def dtypes_fills() -> dict[str, Fill]:
    """``bit_width`` as JAX had it, or under its new name, or rebuilt from public APIs; and
    ``itemsize_bits`` (0.8.1) for newer kernel files on a JAX from before it, without a
    warning: that code is not old."""
    feature = FEATURES_BY_KEY["bit_width"]
    spelling = f"{PRIVATE_DTYPES}.bit_width"

    def bit_width() -> Any:
        resolved = resolve(feature)
        if resolved.status is Resolution.UNAVAILABLE:
            return backfilled(spelling, _outside.bit_width, feature.hint)
        return feature_object(feature, spelling, old=True)()

    def itemsize_bits() -> Any:
        resolved = resolve(feature)
        return _outside.bit_width if resolved.status is Resolution.UNAVAILABLE else resolved.obj

    return {
        "bit_width": native_or(PRIVATE_DTYPES, "bit_width", bit_width),
        "itemsize_bits": native_or(PRIVATE_DTYPES, "itemsize_bits", itemsize_bits),
    }


#: What ``jax.util`` re-exported from ``jax._src.util`` (JAX 0.4.30's module, whole). JAX
#: 0.6.0 deprecated them and 0.7.0 removed them while ``jax.util`` itself stayed until 0.8.0,
#: so on 0.7.0-0.7.2 the module imports and ``jax.util.HashableFunction`` does not.
JAX_UTIL_NAMES = (
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


def jax_util_fills() -> dict[str, Fill]:
    """Each name ``jax.util`` held: the module's own where it has it, else ``jax._src.util``'s
    (the same object, where JAX's own kernels import it from since)."""
    hint = FEATURES_BY_KEY["jax_util"].hint

    def private(name: str) -> Fill:
        def fill() -> Any:
            obj = native(PRIVATE_UTIL, name)
            if obj is None:
                raise missing_name(JAX_UTIL, name)
            return backfilled(f"{JAX_UTIL}.{name}", obj, hint)

        return fill

    return {name: native_or(JAX_UTIL, name, private(name)) for name in JAX_UTIL_NAMES}


def prng_fills() -> dict[str, Fill]:
    """The Threefry functions, which left the PRNG module for one of their own in JAX 0.10."""
    return renamed_fills("prng")


#: Namespace name -> (native module candidates, newest first; fills). The last four are JAX
#: modules outside Pallas that old kernel files import (``NAMESPACE_OF``): the module, or
#: where it moved, or nothing but the back-fills.
NAMESPACES: dict[str, tuple[tuple[str, ...], Callable[[], dict[str, Fill]]]] = {
    "pl": ((PL,), pl_fills),
    "pltpu": ((TPU,), tpu_fills),
    "pltriton": ((TRITON, GPU_LEGACY), triton_fills),
    "plmgpu": ((MOSAIC_GPU,), mosaic_gpu_fills),
    "for_loop": ((FOR_LOOP,), for_loop_fills),
    "jax_util": ((JAX_UTIL, PRIVATE_UTIL), jax_util_fills),
    "dtypes": ((PRIVATE_DTYPES,), dtypes_fills),
    "prng": ((OLD_PRNG, PRNG), prng_fills),
}


def served_names(module: str) -> frozenset[str]:
    """The names the shim's namespace for ``module`` serves where the installed JAX lacks them
    (its fills), whatever JAX is installed: ``scripts/measure_served.py`` looks each one up."""
    alias = NAMESPACE_OF.get(module)
    return frozenset(NAMESPACES[alias][1]()) if alias in NAMESPACES else frozenset()
