"""PAL109 gpu-mesh: ``plgpu.GPUMesh(grid=..., num_threads=..., axis_names=...)`` of JAX
0.4.35-0.6.0, which became ``plgpu.Mesh(grid=..., grid_names=..., num_threads=...,
thread_name=...)`` in 0.6.1 (``axis_names``, the grid's names then the thread's, split in
0.6.0), and the options JAX moved off the mesh into the compiler params (``approx_math``,
0.4.36-0.4.38: ``pl.core_map(mesh, compiler_params=plgpu.CompilerParams(approx_math=True))``
from 0.5.0; the scan finds them, ``mesh_options_moved``).

``migrate`` writes the mesh the target has, splits literal ``axis_names`` by a literal
``grid``, and moves each option to every ``pl.core_map`` that takes the mesh (given inline,
or through a name bound once); what it cannot prove it notes. The shim's ``GPUMesh`` does all
of it at run time: the mesh carries the options to ``pl.core_map``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._registry import registry
from pallas_compat.facts._served import shim_serves
from pallas_compat.facts._table import (
    BACKENDS_BY_KEY,
    FEATURES_BY_KEY,
    MESH_PARAMS_BACKEND,
    MOSAIC_GPU,
    PL,
    Location,
    keyword_releases,
    param_field_releases,
    works_in,
)
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._keywords import keyword_args, keyword_use, label
from pallas_compat.rules._rewrite import keyword_arg, with_argument, without_argument
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called, keyword
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL109",
    "gpu-mesh",
    "plgpu.GPUMesh(axis_names=...), which became plgpu.Mesh(grid_names=..., thread_name=...), "
    "and the options JAX moved off it into pl.core_map's compiler params",
    Fix.PARTLY,
)
GPU_MESH = f"{MOSAIC_GPU}:GPUMesh"
MESH = f"{MOSAIC_GPU}:Mesh"
CORE_MAP = f"{PL}:core_map"
#: The options JAX moved off the mesh into the compiler params, as the scan found them.
MOVED = tuple(registry().mesh_options_moved)
#: Every keyword of ``GPUMesh`` that came or went: this rule's (``grid_names=``, 0.6.0 only,
#: is what ``plgpu.Mesh`` takes from 0.6.1).
KEYWORDS = frozenset(
    (GPU_MESH, name) for name in registry().ranges.get("keywords", {}).get(GPU_MESH, {})
)
SPLIT = (
    "grid_names=(...) and thread_name=... on plgpu.Mesh: axis_names is the grid's names, then "
    "the thread's (JAX 0.6.0 split it)"
)


def params_spelling() -> str:
    return FEATURES_BY_KEY[BACKENDS_BY_KEY[MESH_PARAMS_BACKEND].feature].modern.spelling


def moved_hint(option: str) -> str:
    return (
        f"pl.core_map(mesh, compiler_params={params_spelling()}({option}=...)): JAX 0.5.0 moved "
        "it off the mesh"
    )


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    if qname == GPU_MESH.replace(":", ".") and qname in f.table.drifted_names:
        return name_use(f, node, qname)
    return None


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | None]:
    target = _read.called(node, f, lambda: f.bindings)
    if target is None or target[0] != GPU_MESH:
        return
    for name, arg in _read.keyword_args(node):
        if name == "axis_names":
            yield keyword_use(f, GPU_MESH, arg, f"{label(GPU_MESH, name)}: {SPLIT}")
        elif name in MOVED:
            yield keyword_use(f, GPU_MESH, arg, f"{label(GPU_MESH, name)}: {moved_hint(name)}")
        elif (GPU_MESH, name) in KEYWORDS:
            hint = f"plgpu.Mesh({name}=...): JAX 0.6.1 renamed plgpu.GPUMesh"
            yield keyword_use(f, GPU_MESH, arg, hint)


def served_on(api: str, release: str) -> bool:
    """Does the shim run this rule's use ``api`` on ``release``: a moved option where
    ``pl.core_map`` takes the compiler params it is carried to, the other keywords where the
    shim's ``GPUMesh`` (JAX's, or made from ``plgpu.Mesh``) is served."""
    option = api.rpartition("(")[2].partition("=")[0]
    if option in MOVED:
        return works_in(keyword_releases(CORE_MAP, "compiler_params"), release)
    return shim_serves(MOSAIC_GPU, "GPUMesh", release)


# -- migrate


def options_to_move(m: RewriteContext, mesh: cst.Call) -> list[tuple[str, cst.Arg]]:
    """The moved options ``mesh`` is given that the target's mesh does not take."""
    keeps = m.works(Location(MOSAIC_GPU, "GPUMesh"))
    return [
        (name, arg)
        for name, arg in keyword_args(mesh)
        if name in MOVED and not (keeps and m.works_in(keyword_releases(GPU_MESH, name)))
    ]


def mesh_of(m: RewriteContext, call: cst.Call) -> cst.Call | None:
    """The ``GPUMesh(...)`` call a ``pl.core_map`` call's first argument is, or names (bound
    once in the module)."""
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    if isinstance(first, cst.Name):
        values = m.bindings().values.get(first.value, [])
        first = values[0] if len(values) == 1 else None
    if isinstance(first, cst.Call) and (hit := called(first, m, m.bindings)) and hit[0] == GPU_MESH:
        return first
    return None


def takes_options(m: RewriteContext, core_map: cst.Call, options: list[str]) -> bool:
    """Can this ``pl.core_map`` call take ``options`` in compiler params on the target?"""
    return (
        keyword(core_map, "compiler_params") is None
        and m.works_in(keyword_releases(CORE_MAP, "compiler_params"))
        and m.replacement_params(MESH_PARAMS_BACKEND) is not None
        and all(m.works_in(param_field_releases(MESH_PARAMS_BACKEND, o)) for o in options)
    )


def destinations(m: RewriteContext, mesh: cst.Call) -> list[cst.Call]:
    """Every ``pl.core_map`` call that takes ``mesh``, if each can take its moved options
    (else none: the options stay, noted)."""
    options = [name for name, _ in options_to_move(m, mesh)]
    found = [
        call
        for call in m.bindings().calls.get("core_map", [])
        if mesh_of(m, call) is mesh and (hit := called(call, m, m.bindings)) and hit[0] == CORE_MAP
    ]
    return found if found and all(takes_options(m, c, options) for c in found) else []


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    target = called(original, m, m.bindings)
    if target is None:
        return None
    if target[0] == CORE_MAP:
        return with_moved_options(m, original, updated)
    if target[0] != GPU_MESH:
        return None
    has_gpu_mesh = m.works(Location(MOSAIC_GPU, "GPUMesh"))
    if not has_gpu_mesh and not m.works(Location(MOSAIC_GPU, "Mesh")):
        return None  # removed_name notes what the target lacks
    call = updated
    if not (has_gpu_mesh and m.works_in(keyword_releases(GPU_MESH, "axis_names"))):
        split = split_axis_names(m, updated)
        if split is None:
            if keyword(updated, "axis_names") is not None:
                m.mark(f"{label(GPU_MESH, 'axis_names')} is not taken by JAX {m.target}: {SPLIT}")
                return None
        else:
            call = split
    moved = options_to_move(m, original)
    if moved:
        if destinations(m, original):
            for name, _ in moved:
                call = without_argument(call, keyword(call, name))
        else:
            for name, _ in moved:
                m.mark(
                    f"{label(GPU_MESH, name)} is not taken by JAX {m.target}: {moved_hint(name)}"
                )
    if has_gpu_mesh:
        for name, _ in keyword_args(call):
            spans = keyword_releases(GPU_MESH, name)
            if name not in MOVED and spans and not m.works_in(spans):
                m.mark(f"{label(GPU_MESH, name)} is not taken by JAX {m.target}: keep a newer JAX")
    elif isinstance(call.func, cst.Attribute):
        call = call.with_changes(func=call.func.with_changes(attr=cst.Name("Mesh")))
        m.unmark("plgpu.GPUMesh is not in")
    return call if call is not updated else None


def split_axis_names(m: RewriteContext, call: cst.Call) -> cst.Call | None:
    """``grid=(a, b), num_threads=n, axis_names=("x", "y", "wg")`` -> ``grid_names=("x",
    "y"), thread_name="wg"``, where ``grid`` and ``axis_names`` are literals that agree."""
    grid, names = keyword(call, "grid"), keyword(call, "axis_names")
    threads = keyword(call, "num_threads")
    if grid is None or names is None:
        return None
    if not isinstance(grid.value, cst.Tuple | cst.List) or not isinstance(
        names.value, cst.Tuple | cst.List
    ):
        return None
    threaded = threads is not None and not (
        isinstance(threads.value, cst.Name) and threads.value.value == "None"
    )
    elements = [m.code(e.value) for e in names.value.elements]
    if len(elements) != len(grid.value.elements) + threaded:
        return None
    grid_names = elements[: len(grid.value.elements)]
    tuple_code = f"({', '.join(grid_names)}{',' if len(grid_names) == 1 else ''})"
    made = [
        names.with_changes(keyword=cst.Name("grid_names"), value=cst.parse_expression(tuple_code))
    ]
    if threaded:
        made.append(
            names.with_changes(
                keyword=cst.Name("thread_name"), value=cst.parse_expression(elements[-1])
            )
        )
    args: list[cst.Arg] = []
    for arg in call.args:
        args += made if arg is names else [arg]
    return call.with_changes(args=args)


def with_moved_options(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """``pl.core_map(mesh)`` -> ``pl.core_map(mesh, compiler_params=plgpu.CompilerParams(
    approx_math=True))``, where the mesh's options move here."""
    mesh = mesh_of(m, original)
    if mesh is None or original not in destinations(m, mesh):
        return None
    params = m.replacement_params(MESH_PARAMS_BACKEND)
    assert params is not None  # destinations() checked it
    fields = ", ".join(f"{name}={m.code(arg.value)}" for name, arg in options_to_move(m, mesh))
    value = cst.parse_expression(f"{m.alias_for(params.module)}.{params.attr}({fields})")
    return with_argument(updated, keyword_arg("compiler_params", value))
