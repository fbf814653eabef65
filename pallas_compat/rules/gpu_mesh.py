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
from pallas_compat.rules import _calls, removed_name
from pallas_compat.rules._arguments import arguments, drop, has_comma, separator, with_argument
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._keywords import keyword_use, label
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL109",
    "gpu-mesh",
    "plgpu.GPUMesh(axis_names=...), which became plgpu.Mesh(grid_names=..., thread_name=...), "
    "and the options JAX moved off it into pl.core_map's compiler params",
    Fix.PARTLY,
    Example(
        before="""\
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

mesh = plgpu.GPUMesh(grid=(2,), num_threads=2, axis_names=("x", "wg"))
""",
        after="""\
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

mesh = plgpu.Mesh(grid=(2,), num_threads=2, grid_names=("x",), thread_name="wg")
""",
    ),
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


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | Finding | None:
    if qname != GPU_MESH.replace(":", ".") or qname not in f.table.drifted_names:
        return None
    use = name_use(f, node, qname)
    if not isinstance(node, ast.Attribute):
        return use
    return Finding(use, node, lambda m: removed_name.note(m, qname))  # the call takes it back


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | Finding | None]:
    target = _calls.called(node, f, lambda: f.bindings)
    if target is None:
        return
    if target[0] == CORE_MAP:
        mesh = mesh_of(f, node)
        if mesh is not None:
            yield Finding(None, node, lambda m: with_moved_options(m, node, mesh, meshes(f)))
        return
    if target[0] != GPU_MESH:
        return
    for name, arg in _calls.keyword_args(node):
        if name == "axis_names":
            yield keyword_use(f, GPU_MESH, arg, f"{label(GPU_MESH, name)}: {SPLIT}")
        elif name in MOVED:
            yield keyword_use(f, GPU_MESH, arg, f"{label(GPU_MESH, name)}: {moved_hint(name)}")
        elif (GPU_MESH, name) in KEYWORDS:
            hint = f"plgpu.Mesh({name}=...): JAX 0.6.1 renamed plgpu.GPUMesh"
            yield keyword_use(f, GPU_MESH, arg, hint)
    yield Finding(None, node, lambda m: as_mesh(m, node, split_names(node), meshes(f)))


def mesh_of(f: FindContext, call: ast.Call) -> ast.Call | None:
    """The ``GPUMesh(...)`` call a ``pl.core_map`` call's first argument is, or names (bound
    once in the module)."""
    first = _calls.first_argument(call)
    if isinstance(first, ast.Name):
        values = f.bindings.values.get(first.id, [])
        first = values[0] if len(values) == 1 else None
    if isinstance(first, ast.Call):
        hit = _calls.called(first, f, lambda: f.bindings)
        if hit is not None and hit[0] == GPU_MESH:
            return first
    return None


def meshes(f: FindContext) -> dict[int, list[ast.Call]]:
    """id(mesh call) -> the ``pl.core_map`` calls that take it, for the file."""
    kept = f.memo.setdefault(RULE.code, {})
    if 0 not in kept:
        found: dict[int, list[ast.Call]] = {}
        for call in f.scopes.calls:
            hit = _calls.called(call, f, lambda: f.bindings)
            if hit is not None and hit[0] == CORE_MAP and (mesh := mesh_of(f, call)) is not None:
                found.setdefault(id(mesh), []).append(call)
        kept[0] = found
    found_: dict[int, list[ast.Call]] = kept[0]
    return found_


def split_names(call: ast.Call) -> tuple[ast.keyword, list[ast.expr], bool] | None:
    """``grid=(a, b), num_threads=n, axis_names=("x", "y", "wg")``: the ``axis_names``
    keyword, its items, and whether the last is the thread's name; None where ``grid`` and
    ``axis_names`` are not literals that agree."""
    grid, names = _calls.keyword(call, "grid"), _calls.keyword(call, "axis_names")
    threads = _calls.keyword(call, "num_threads")
    if grid is None or names is None:
        return None
    if not isinstance(grid.value, ast.Tuple | ast.List):
        return None
    if not isinstance(names.value, ast.Tuple | ast.List):
        return None
    threaded = threads is not None and not (
        isinstance(threads.value, ast.Constant) and threads.value.value is None
    )
    if len(names.value.elts) != len(grid.value.elts) + threaded:
        return None
    return names, list(names.value.elts), threaded


def served_on(api: str, release: str) -> bool:
    """Does the shim run this rule's use ``api`` on ``release``: a moved option where
    ``pl.core_map`` takes the compiler params it is carried to, the other keywords where the
    shim's ``GPUMesh`` (JAX's, or made from ``plgpu.Mesh``) is served."""
    option = api.rpartition("(")[2].partition("=")[0]
    if option in MOVED:
        return works_in(keyword_releases(CORE_MAP, "compiler_params"), release)
    return shim_serves(MOSAIC_GPU, "GPUMesh", release)


# -- migrate


def options_to_move(m: FixContext, mesh: ast.Call) -> list[tuple[str, ast.keyword]]:
    """The moved options ``mesh`` is given that the target's mesh does not take."""
    keeps = m.works(Location(MOSAIC_GPU, "GPUMesh"))
    return [
        (name, arg)
        for name, arg in _calls.keyword_args(mesh)
        if name in MOVED and not (keeps and m.works_in(keyword_releases(GPU_MESH, name)))
    ]


def takes_options(m: FixContext, core_map: ast.Call, options: list[str]) -> bool:
    """Can this ``pl.core_map`` call take ``options`` in compiler params on the target?"""
    return (
        _calls.keyword(core_map, "compiler_params") is None
        and m.works_in(keyword_releases(CORE_MAP, "compiler_params"))
        and m.replacement_params(MESH_PARAMS_BACKEND) is not None
        and all(m.works_in(param_field_releases(MESH_PARAMS_BACKEND, o)) for o in options)
    )


def carried(m: FixContext, mesh: ast.Call, takers: dict[int, list[ast.Call]]) -> bool:
    """Do the mesh's moved options reach compiler params: some ``pl.core_map`` takes the
    mesh, and each that does can take them?"""
    options = [name for name, _ in options_to_move(m, mesh)]
    found = takers.get(id(mesh), [])
    return bool(found) and all(takes_options(m, call, options) for call in found)


def as_mesh(
    m: FixContext,
    call: ast.Call,
    split: tuple[ast.keyword, list[ast.expr], bool] | None,
    takers: dict[int, list[ast.Call]],
) -> None:
    """The mesh the target has: ``axis_names`` split where the target's mesh lacks it, the
    moved options taken to ``pl.core_map`` (``with_moved_options``) or noted."""
    has_gpu_mesh = m.works(Location(MOSAIC_GPU, "GPUMesh"))
    if not has_gpu_mesh and not m.works(Location(MOSAIC_GPU, "Mesh")):
        return  # its name's note says what the target lacks
    text = m.edits.source
    found = arguments(call, text)
    if not (has_gpu_mesh and m.works_in(keyword_releases(GPU_MESH, "axis_names"))):
        if split is None:
            if _calls.keyword(call, "axis_names") is not None:
                m.mark(f"{label(GPU_MESH, 'axis_names')} is not taken by JAX {m.target}: {SPLIT}")
                return
        else:
            names, items, threaded = split
            grid = len(items) - threaded
            written = [m.current(item) for item in items]
            equal = text.text[text.start(names) + len("axis_names") : text.start(names.value)]
            made = f"grid_names{equal}({', '.join(written[:grid])}{',' if grid == 1 else ''})"
            if threaded:
                argument = next(a for a in found if a.node is names)
                comma = separator(argument, text) if has_comma(argument, text) else ", "
                made += f"{comma}thread_name{equal}{written[-1]}"
            m.replace(names, made)
    moved = options_to_move(m, call)
    if moved:
        if carried(m, call, takers):
            for _, arg in moved:
                drop(m.edits, call, next(a for a in found if a.node is arg))
        else:
            for name, _ in moved:
                m.mark(
                    f"{label(GPU_MESH, name)} is not taken by JAX {m.target}: {moved_hint(name)}"
                )
    if has_gpu_mesh:
        for name, _ in _calls.keyword_args(call):
            spans = keyword_releases(GPU_MESH, name)
            if name not in MOVED and spans and not m.works_in(spans):
                m.mark(f"{label(GPU_MESH, name)} is not taken by JAX {m.target}: keep a newer JAX")
    elif isinstance(call.func, ast.Attribute):
        m.replace(call.func, f"{m.current(call.func.value)}.Mesh")
        m.unmark("plgpu.GPUMesh is not in")


def with_moved_options(
    m: FixContext, call: ast.Call, mesh: ast.Call, takers: dict[int, list[ast.Call]]
) -> None:
    """``pl.core_map(mesh)`` -> ``pl.core_map(mesh, compiler_params=plgpu.CompilerParams(
    approx_math=True))``, where the mesh's options move here."""
    options = options_to_move(m, mesh)
    if not options or not carried(m, mesh, takers):
        return
    params = m.replacement_params(MESH_PARAMS_BACKEND)
    assert params is not None  # carried() checked it
    fields = ", ".join(f"{name}={m.edits.source.segment(arg.value)}" for name, arg in options)
    with_argument(m, call, f"compiler_params={m.alias_for(params.module)}.{params.attr}({fields})")
