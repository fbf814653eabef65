"""PAL211 moved-keyword: a keyword JAX moved off a Pallas callable to another place
(``plgpu.emit_pipeline(delay_release=n)``, to 0.7.1, is each input's ``plgpu.BlockSpec(...,
delay_release=n)`` from 0.7.2; ``plgpu.copy_gmem_to_smem(partitioned_axis=k)``, 0.6.2-0.9.1,
is ``leader_tracked=plgpu.CopyPartition.PARTITIONED(k)`` from 0.9.2).

The scan says which releases take the old keyword; the table's ``KEYWORD_MOVES`` says where
it went. ``migrate`` writes the new place where the target lacks the old keyword and the
source shows every piece (a literal list of ``BlockSpec`` calls; an axis, or ``axis if c
else None``), and notes the rest; the shim moves the keyword at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._table import KEYWORD_MOVES, Location, keyword_releases, positions
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._keywords import keyword_args, keyword_use, label
from pallas_compat.rules._rewrite import subscript, without_argument
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called
from pallas_compat.rules._use import Use, use_at

RULE = Rule(
    "PAL211",
    "moved-keyword",
    "a keyword JAX moved off a Pallas callable (plgpu.emit_pipeline(delay_release=) -> "
    "each input's plgpu.BlockSpec(delay_release=))",
    Fix.REWRITES,
)
KEYWORDS = frozenset((f"{module}:{name}", keyword) for module, name, keyword in KEYWORD_MOVES)


def advice(callable_key: str, keyword: str) -> str | None:
    module, _, name = callable_key.partition(":")
    return KEYWORD_MOVES.get((module, name, keyword))


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | None]:
    target = _read.called(node, f, lambda: f.bindings)
    if target is None:
        return
    key = target[0]
    for keyword, arg in _read.keyword_args(node):
        hint = advice(key, keyword)
        if hint is not None:
            yield keyword_use(f, key, arg, f"{label(key, keyword)} moved: {hint}")
    for name, value in zip(position_names(key), _read.positional(node)[target[1] :], strict=False):
        hint = advice(key, name)
        if hint is not None:
            spans = keyword_releases(key, name)
            yield use_at(f, value, label(key, name), spans, f"{label(key, name)} moved: {hint}")


def position_names(key: str) -> list[str]:
    """What each position of ``key`` is called, where its positions changed (the scan)."""
    return [name for name, _ in positions(key)]


def spec_calls(specs: cst.BaseExpression, m: RewriteContext) -> list[cst.Call] | None:
    """The ``BlockSpec(...)`` calls of a literal ``in_specs`` list, or None where it is not
    one (a name, a comprehension: the shim still moves the keyword at run time)."""
    if not isinstance(specs, cst.List | cst.Tuple):
        return None
    calls = [e.value for e in specs.elements]
    if not calls or not all(isinstance(c, cst.Call) for c in calls):
        return None
    for call in calls:
        target = called(call, m, m.bindings)  # type: ignore[arg-type]
        if target is None or not target[0].endswith(":BlockSpec"):
            return None
    return calls  # type: ignore[return-value]


def keyword_arg(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == name), None)


def delay_release_into_specs(
    m: RewriteContext, original: cst.Call, call: cst.Call, arg: cst.Arg
) -> cst.Call | None:
    """``emit_pipeline(..., in_specs=[BlockSpec(a), BlockSpec(b)], delay_release=n)`` ->
    ``emit_pipeline(..., in_specs=[BlockSpec(a, delay_release=n), ...])``. The specs are
    told ``BlockSpec``s on the original tree (which has the names' metadata)."""
    seen = keyword_arg(original, "in_specs")
    specs = keyword_arg(call, "in_specs")
    if seen is None or specs is None or spec_calls(seen.value, m) is None:
        return None
    calls = [e.value for e in specs.value.elements]  # type: ignore[attr-defined]
    if not all(isinstance(c, cst.Call) for c in calls):
        return None
    moved = cst.Arg(
        value=arg.value,
        keyword=cst.Name("delay_release"),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    new_specs = specs.value.with_changes(
        elements=[
            e.with_changes(value=c.with_changes(args=[*c.args, moved]))
            for e, c in zip(specs.value.elements, calls, strict=True)  # type: ignore[attr-defined]
        ]
    )
    kept = without_argument(call, arg)
    return kept.with_changes(
        args=[a.with_changes(value=new_specs) if a is specs else a for a in kept.args]
    )


def partitioned_as_leader_tracked(
    m: RewriteContext, original: cst.Call, call: cst.Call, arg: cst.Arg
) -> cst.Call | None:
    """``partitioned_axis=k`` -> ``leader_tracked=plgpu.CopyPartition.PARTITIONED(k)``, and
    ``k if c else None`` -> ``plgpu.CopyPartition.PARTITIONED(k) if c else None``; ``None``
    goes."""
    module = KEYWORD_MOVES_MODULE[("copy_gmem_to_smem", "partitioned_axis")]
    partition = f"{m.alias_for(module)}.CopyPartition.PARTITIONED"
    value = arg.value
    if isinstance(value, cst.Name) and value.value == "None":
        return without_argument(call, arg)
    if isinstance(value, cst.Integer):
        new = f"{partition}({m.code(value)})"
    elif (
        isinstance(value, cst.IfExp)
        and isinstance(value.orelse, cst.Name)
        and value.orelse.value == "None"
    ):
        new = f"{partition}({m.code(value.body)}) if {m.code(value.test)} else None"
    else:
        return None
    moved = arg.with_changes(keyword=cst.Name("leader_tracked"), value=cst.parse_expression(new))
    return call.with_changes(args=[moved if a is arg else a for a in call.args])


def idx_into_ref(
    m: RewriteContext, original: cst.Call, call: cst.Call, arg: cst.Arg
) -> cst.Call | None:
    """``plgpu.load(src, idx, ...)`` -> ``plgpu.load(src.at[idx], ...)``; ``idx=()`` (the whole
    ref) -> ``plgpu.load(src, ...)``, as JAX's own kernels were rewritten for 0.12.0."""
    src = call.args[0] if call.args and call.args[0].keyword is None else None
    if src is None or src is arg:
        return None
    value = arg.value
    whole = isinstance(value, cst.Tuple) and not value.elements
    view = src.value if whole else subscript(cst.Attribute(src.value, cst.Name("at")), value)
    kept = without_argument(call, arg)
    return kept.with_changes(args=[kept.args[0].with_changes(value=view), *kept.args[1:]])


REWRITES = {
    ("emit_pipeline", "delay_release"): delay_release_into_specs,
    ("copy_gmem_to_smem", "partitioned_axis"): partitioned_as_leader_tracked,
    ("load", "idx"): idx_into_ref,
}
#: Where each moved keyword lives now: (callable, keyword) whose scanned releases say which
#: targets take the new form.
DESTINATIONS: dict[tuple[str, str], tuple[str, str] | None] = {
    ("emit_pipeline", "delay_release"): ("BlockSpec", "delay_release"),
    ("copy_gmem_to_smem", "partitioned_axis"): ("copy_gmem_to_smem", "leader_tracked"),
    ("load", "idx"): None,  # into the ref, which every release indexes
}
KEYWORD_MOVES_MODULE = {(name, keyword): module for module, name, keyword in KEYWORD_MOVES}


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    target = called(original, m, m.bindings)
    if target is None:
        return None
    key = target[0]
    name = Location.parse(key).attr
    given = [a for a in updated.args if a.keyword is None and not a.star][target[1] :]
    named = [*zip(position_names(key), given, strict=False), *keyword_args(updated)]
    for keyword, arg in named:
        hint = advice(key, keyword)
        spans = keyword_releases(key, keyword)
        if hint is None or not spans or m.works_in(spans):
            continue
        destination = DESTINATIONS[(name, keyword)]
        module = KEYWORD_MOVES_MODULE[(name, keyword)]
        if destination is not None and not m.works_in(
            keyword_releases(f"{module}:{destination[0]}", destination[1])
        ):
            m.mark(
                f"{label(key, keyword)} is not taken by JAX {m.target}, nor is its new place "
                f"({hint}): keep an older JAX"
            )
            return None
        rewritten = REWRITES[(name, keyword)](m, original, updated, arg)
        if rewritten is None:
            m.mark(f"{label(key, keyword)} is not taken by JAX {m.target}: {hint}")
            return None
        return rewritten
    return None
