"""Mosaic GPU drift the shim absorbs: layout members JAX replaced by forms of another
(``plgpu.Layout.WGMMA_ROW`` -> ``Layout.WGMMA.reduce(1)``), what ``plgpu.nd_loop`` hands its
body (the index tuple, then from 0.8.0 an ``NDLoopInfo``), and keywords JAX moved elsewhere
(``emit_pipeline(delay_release=)`` into each input's ``BlockSpec``)."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import warnings
from collections.abc import Callable
from typing import Any

from pallas_compat.facts._table import FEATURES_BY_KEY, MEMBER_FORMS, MOSAIC_GPU
from pallas_compat.shim._enum_view import enum_view


def form_of(native: Any, form: str) -> Callable[[], Any]:
    """A getter for ``MEMBER.method(constants...)`` on the enum ``native`` (the table's
    forms are of that one shape)."""
    call = ast.parse(form, mode="eval").body
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
    ):
        raise ValueError(f"not a MEMBER.method(...) form: {form}")
    member, method = call.func.value.id, call.func.attr
    args = [ast.literal_eval(a) for a in call.args]
    return lambda: getattr(getattr(native, member), method)(*args)


def member_forms_view(feature: str, native: Any) -> Any:
    """``native`` where it has every member the table names for it; else a view that serves
    each missing one as its form, where the form works here."""
    forms = {
        member: form_of(native, form)
        for (owner, member), (form, _since) in MEMBER_FORMS.items()
        if owner == feature and not hasattr(native, member)
    }
    usable = {}
    for member, getter in forms.items():
        try:
            getter()
        except (AttributeError, TypeError, ValueError):
            continue  # the form's own base is not in this JAX either (before 0.7.0)
        usable[member] = getter
    if not usable:
        return native
    return enum_view(FEATURES_BY_KEY[feature].modern.attr, native, usable)


class LoopIndex(tuple):  # type: ignore[type-arg]
    """A loop step's grid index, the tuple ``nd_loop`` handed its body before 0.8.0, that
    also carries the ``NDLoopInfo`` JAX hands now: ``i, j = idx`` and ``loop_info.index``,
    ``loop_info.local_index`` both work."""

    info: Any

    @classmethod
    def of(cls, info: Any) -> LoopIndex:
        made = cls(info.index)
        made.info = info
        return made

    @property
    def index(self) -> Any:  # the info's field, not tuple.index
        return self.info.index

    def __getattr__(self, name: str) -> Any:
        return getattr(self.info, name)


def index_or_info_loop(native: Callable[..., Any]) -> Callable[..., Any]:
    """``native`` (an ``nd_loop`` that hands its body an info object), whose body gets a
    ``LoopIndex``: old bodies unpack it, new ones read its fields."""

    @functools.wraps(native)
    def nd_loop(*args: Any, **kwargs: Any) -> Any:
        decorate = native(*args, **kwargs)

        def decorator(body: Callable[..., Any]) -> Any:
            @functools.wraps(body)
            def step(info: Any, *rest: Any, **more: Any) -> Any:
                return body(LoopIndex.of(info), *rest, **more)

            return decorate(step)

        return decorator

    return nd_loop


def delay_release_per_input(native: Callable[..., Any]) -> Callable[..., Any]:
    """``plgpu.emit_pipeline(delay_release=n)`` (to 0.7.1) on an ``emit_pipeline`` whose
    inputs take it each (``plgpu.BlockSpec(delay_release=)``, 0.7.2 on): every input's spec
    gets ``n``, as the old pipeline-wide keyword gave every input."""

    @functools.wraps(native)
    def emit_pipeline(*args: Any, delay_release: int = 0, **kwargs: Any) -> Any:
        specs = kwargs.get("in_specs")
        if delay_release and isinstance(specs, (list, tuple)):
            kwargs["in_specs"] = type(specs)(
                dataclasses.replace(spec, delay_release=delay_release) for spec in specs
            )
        return native(*args, **kwargs)

    return emit_pipeline


def partitioned_axis_as_leader_tracked(native: Callable[..., Any]) -> Callable[..., Any]:
    """``plgpu.copy_gmem_to_smem(partitioned_axis=k)`` (0.6.2-0.9.1) on a copy that takes
    ``leader_tracked=plgpu.CopyPartition.PARTITIONED(k)`` (0.9.2 on), as JAX's own Blackwell
    matmul was rewritten between the two. Before either (to 0.6.1), the copy as it is."""
    copy_partition = getattr(importlib.import_module(MOSAIC_GPU), "CopyPartition", None)
    if copy_partition is None:
        return native

    @functools.wraps(native)
    def copy_gmem_to_smem(*args: Any, partitioned_axis: int | None = None, **kwargs: Any) -> Any:
        if partitioned_axis is not None:
            kwargs["leader_tracked"] = copy_partition.PARTITIONED(partitioned_axis)
        return native(*args, **kwargs)

    return copy_gmem_to_smem


def index_into_ref(native: Callable[..., Any]) -> Callable[..., Any]:
    """``plgpu.load(src, idx, ...)`` (0.6.0-0.11.2) on a ``load`` that takes only the ref
    (0.12.0 on): ``src.at[idx]``, the view JAX's own kernels pass since; ``()`` is the whole
    ref."""

    @functools.wraps(native)
    def load(src: Any, *args: Any, **kwargs: Any) -> Any:
        idx = args[0] if args else kwargs.pop("idx", ())
        if isinstance(idx, tuple) and not idx:
            return native(src, *args[1:], **kwargs)
        return native(src.at[idx], *args[1:], **kwargs)

    return load


#: (callable, keyword) of ``KEYWORD_MOVES`` -> what serves the old keyword where JAX moved it.
MOVERS: dict[tuple[str, str], Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    ("emit_pipeline", "delay_release"): delay_release_per_input,
    ("copy_gmem_to_smem", "partitioned_axis"): partitioned_axis_as_leader_tracked,
    ("load", "idx"): index_into_ref,
}


#: ``plgpu.GPUMesh``'s fields, in order (0.4.35-0.6.0; ``approx_math`` to 0.4.38).
GPU_MESH_FIELDS = ("grid", "cluster", "num_threads", "axis_names")
#: Where a mesh made by the shim keeps the options JAX moved off the mesh into the compiler
#: params (``mesh_options_moved``), for ``pl.core_map(mesh)`` to hand on.
CARRIED = "_pallas_compat_compiler_params"


def carrying(make_mesh: Callable[..., Any], moved: frozenset[str]) -> Callable[..., Any]:
    """``make_mesh`` taking the ``moved`` options it no longer takes: the mesh it makes keeps
    them (``CARRIED``), and ``core_map_with_carried`` passes them to the compiler params, where
    JAX reads them now."""

    @functools.wraps(make_mesh)
    def GPUMesh(*args: Any, **kwargs: Any) -> Any:
        options = {name: kwargs.pop(name) for name in sorted(moved & set(kwargs))}
        mesh = make_mesh(*args, **kwargs)
        if options:
            object.__setattr__(mesh, CARRIED, options)  # a frozen dataclass: one attribute more
        return mesh

    return GPUMesh


def with_options(given: Any, options: dict[str, Any], params_class: Any) -> Any:
    """``compiler_params`` with the carried ``options`` set: new params where none were given,
    the given params' fields replaced, or a dict's Mosaic GPU entry updated."""
    if given is None:
        return params_class(**options)
    if isinstance(given, dict):
        return {**given, "mosaic_gpu": {**given.get("mosaic_gpu", {}), **options}}
    return dataclasses.replace(given, **options)


def core_map_with_carried(
    native: Callable[..., Any],
    params_class: Callable[[], Any],
    deprecation: str | None = None,
) -> Callable[..., Any]:
    """``pl.core_map(mesh, ...)`` that gives the compiler params the options the shim's mesh
    carries (``plgpu.GPUMesh(approx_math=True)`` of JAX 0.4.36-0.4.38 runs as
    ``pl.core_map(mesh, compiler_params=plgpu.CompilerParams(approx_math=True))``); where JAX
    deprecated ``core_map``, each call warns with JAX's ``deprecation`` message. The params
    class is found at the call that needs it (only a Mosaic GPU mesh carries options), so that
    building this imports no backend."""

    @functools.wraps(native)
    def core_map(mesh: Any, *args: Any, **kwargs: Any) -> Any:
        if deprecation is not None:
            warnings.warn(deprecation, DeprecationWarning, stacklevel=2)
        options = getattr(mesh, CARRIED, None)
        if options:
            kwargs["compiler_params"] = with_options(
                kwargs.get("compiler_params"), options, params_class()
            )
        return native(mesh, *args, **kwargs)

    return core_map


def mesh_from_axis_names(mesh: type) -> Callable[..., Any]:
    """``plgpu.GPUMesh(grid, cluster, num_threads, axis_names)`` (to 0.6.0) on a JAX with
    ``plgpu.Mesh`` (0.6.1 on), which names the grid's axes and the thread's apart:
    ``axis_names`` is the grid's names followed by the thread's."""

    def GPUMesh(*args: Any, **kwargs: Any) -> Any:
        given = dict(zip(GPU_MESH_FIELDS, args, strict=False)) | kwargs
        unknown = sorted(set(given) - set(GPU_MESH_FIELDS))
        if unknown:
            raise TypeError(f"GPUMesh() got an unexpected keyword argument {unknown[0]!r}")
        grid = tuple(given.get("grid", ()))
        threads = given.get("num_threads")
        names = tuple(given.get("axis_names", ()))
        if len(names) != len(grid) + (threads is not None):
            raise ValueError("Need as many axis names as grid dimensions + warp groups")
        return mesh(
            grid=grid,
            grid_names=names[: len(grid)],
            cluster=tuple(given.get("cluster", ())),
            num_threads=threads,
            thread_name=names[len(grid)] if threads is not None else None,
        )

    return GPUMesh
