"""PAL301 masked-load-store: ``pl.load``, ``pl.store`` and ``pl.swap``, which left ``pl`` (the
masked forms for ``pltriton.load``/``store``, later ``pltpu.load``/``store`` too).

Every spelling old code wrote is first bound to the old signature (``_load_store_calls.canonical``),
so each gets one rewrite: without a mask, indexing (``x_ref[idx]``, ``x_ref[idx] = v``; a swap
used for its value becomes its read and its write); with one, ``pltriton.load(ref.at[idx],
mask=...)`` where the target has it, literal ``pl.ds`` starts made index arrays (0.12 refuses
a static slice past the end before the mask applies). Anything else gets a note.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import PL, TRITON, Feature, Location
from pallas_compat.rules._argument_order import positional
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._load_store_calls import PARAMETERS, canonical
from pallas_compat.rules._rewrite import attr, standalone, subscript
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import is_call_to, keyword, qualified
from pallas_compat.rules._use import Use, feature_name_use

RULE = Rule(
    "PAL301",
    "masked-load-store",
    "pl.load, pl.store or pl.swap, which left pl (masked: pltriton.load/store)",
    Fix.PARTLY,
)
FEATURES = frozenset({"load", "store", "swap"})
#: Their notes are left by the call's rewrite, which knows why it could not rewrite.
NOTED_AT_THE_CALL = frozenset({f"{PL}.load", f"{PL}.store"})
#: The call's rewriting ends here: the call is another one now.
FINAL = True

TRITON_LOAD = Location(TRITON, "load")
TRITON_STORE = Location(TRITON, "store")
DSLICE = frozenset({f"{PL}.dslice", f"{PL}.ds"})
NEW_MASKED_ACCESS = frozenset({f"{TRITON}.load", f"{TRITON}.store"})
LOAD_KEYWORDS = frozenset({"mask", "other", "cache_modifier", "eviction_policy", "volatile"})
STORE_KEYWORDS = frozenset({"mask", "eviction_policy"})


def claims_feature(feature: Feature) -> bool:
    return feature.key in FEATURES


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    return feature_name_use(f, node, qname, FEATURES)


def note(m: RewriteContext, access: str) -> None:
    m.mark(f"pl.{access} is not in JAX {m.target}: {m.table.drifted_names[f'{PL}.{access}'].hint}")


def removed_access(m: RewriteContext, original: cst.Call) -> str | None:
    """``load``, ``store`` or ``swap`` where the call is to the removed ``pl`` one and the
    target lacks it."""
    for name in PARAMETERS:
        if is_call_to(original, m, name) and not m.works(Location(PL, name)):
            return name
    return None


def rewrite_call(
    m: RewriteContext, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression | None:
    if qualified(original.func, m) & NEW_MASKED_ACCESS and keyword(original, "mask"):
        return masked_view_as_indices(m, original, updated)
    access = removed_access(m, original)
    if access not in ("load", "store"):
        return None
    bound = canonical(original, access), canonical(updated, access)
    if bound[0] is None or bound[1] is None:
        note(m, access)
        return updated
    if access == "load":
        return load(m, bound[0], bound[1])
    return masked_store(m, bound[0], bound[1])


def rewrite_expr(
    m: RewriteContext, original: cst.Expr, updated: cst.Expr
) -> cst.BaseSmallStatement:
    """``pl.store(ref, idx, v)`` / ``pl.swap(ref, idx, v)`` as a statement (in any spelling, no
    mask) -> ``ref[idx] = v``."""
    call = original.value
    if not (isinstance(call, cst.Call) and isinstance(updated.value, cst.Call)):
        return updated
    if removed_access(m, call) not in ("store", "swap"):
        return updated
    bound = canonical(updated.value, "swap")
    if bound is not None and len(bound.args) == 3:
        ref, idx, value = (a.value for a in bound.args)
        m.unmark("pl.swap ")
        return cst.Assign([cst.AssignTarget(subscript(ref, idx))], standalone(value))
    return updated


def rewrite_assign(
    m: RewriteContext, original: cst.Assign, updated: cst.Assign
) -> cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement]:
    """``old = pl.swap(ref, idx, v)`` (no mask) -> ``old = ref[idx]`` and ``ref[idx] = v``: the
    read, then the write, that swap was (``v`` is evaluated after the read; it could not see
    ``old``, which it binds)."""
    call = original.value
    if not (isinstance(call, cst.Call) and isinstance(updated.value, cst.Call)):
        return updated
    if removed_access(m, call) != "swap":
        return updated
    bound = canonical(updated.value, "swap")
    if bound is None or len(bound.args) != 3:
        return updated
    ref, idx, value = (a.value for a in bound.args)
    m.unmark("pl.swap ")
    write = cst.Assign([cst.AssignTarget(subscript(ref, idx))], standalone(value))
    return cst.FlattenSentinel([updated.with_changes(value=subscript(ref, idx)), write])


def index_arrays(m: RewriteContext, idx: cst.BaseExpression) -> cst.BaseExpression:
    """A masked access's ``(pl.dslice(s, n), ...)`` with literal starts as index arrays
    ``s + jnp.arange(n)`` (an outer grid when there are several): the form newer JAX takes for
    a block that may overhang the array (from 0.12 it refuses a static slice past the end
    before the mask applies; a dynamic start is never checked, so it stays). Scalar indices are
    kept; anything else leaves ``idx`` unchanged."""
    items = list(idx.elements) if isinstance(idx, cst.Tuple) else [idx]
    if any(isinstance(item, cst.StarredElement) for item in items):
        return idx
    values = [item.value if isinstance(item, cst.Element) else item for item in items]
    parts: list[tuple[str, bool]] = []
    for value in values:
        if isinstance(value, cst.Call) and qualified(value.func, m) & DSLICE:
            args = positional(value)
            if len(args) != 2 or len(value.args) != 2 or not isinstance(args[0].value, cst.Integer):
                return idx
            start, size = (m.code(a.value) for a in args)
            arange = f"{m.alias_for('jax.numpy')}.arange({size})"
            parts.append((arange if start == "0" else f"{start} + {arange}", True))
        elif isinstance(value, cst.Integer) or (
            isinstance(value, cst.Name) and value.value not in ("None", "Ellipsis")
        ):
            parts.append((m.code(value), False))
        else:
            return idx
    arrays = sum(is_array for _, is_array in parts)
    names = any(not is_array and not text.isdigit() for text, is_array in parts)
    if not arrays or (arrays > 1 and names):  # a name may hold a slice: no outer grid then
        return idx
    texts, axis = [], 0
    for text, is_array in parts:
        if is_array and arrays > 1:
            grid = ", ".join(":" if i == axis else "None" for i in range(arrays))
            text = f"({text})[{grid}]"
        axis += is_array
        texts.append(text)
    return cst.parse_expression(f"({', '.join(texts)},)" if len(texts) > 1 else texts[0])


def masked_view_as_indices(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call:
    """``pltriton.load(x_ref.at[pl.ds(0, n)], mask=...)`` (JAX's own kernels to 0.11) ->
    ``x_ref.at[jnp.arange(n)]``, which 0.12 takes when the block overhangs."""
    view = original.args[0].value if original.args else None
    if not (
        isinstance(view, cst.Subscript)
        and isinstance(view.value, cst.Attribute)
        and view.value.attr.value == "at"
        and updated.args[0].value.deep_equals(view)
    ):
        return updated
    elements = [e.slice.value for e in view.slice if isinstance(e.slice, cst.Index)]
    if len(elements) != len(view.slice):
        return updated
    idx = elements[0] if len(elements) == 1 else cst.Tuple([cst.Element(e) for e in elements])
    new = index_arrays(m, idx)
    if new is idx:
        return updated
    ref = subscript(view.value, new)
    return updated.with_changes(args=[updated.args[0].with_changes(value=ref), *updated.args[1:]])


def load(m: RewriteContext, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    args = positional(call)
    extra = [a for a in call.args if a.keyword is not None]
    if len(args) == 2 and not extra and len(call.args) == 2:
        return subscript(args[0].value, args[1].value)
    names = {a.keyword.value for a in extra if a.keyword}
    if len(args) == 2 and names <= LOAD_KEYWORDS and m.works(TRITON_LOAD):
        index = args[1].value
        if "mask" in names and positional(original)[1].value.deep_equals(index):
            index = index_arrays(m, positional(original)[1].value)
        ref = subscript(cst.Attribute(args[0].value, cst.Name("at")), index)
        func = attr(f"{m.alias_for(TRITON)}.load")
        # the layout of the call stays: (ref, idx, mask=...) -> (ref.at[idx], mask=...)
        return call.with_changes(func=func, args=[args[1].with_changes(value=ref), *extra])
    note(m, "load")
    return call


def masked_store(m: RewriteContext, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    args = positional(call)
    extra = [a for a in call.args if a.keyword is not None]
    if not extra:
        return call  # a statement: rewrite_expr turns it into an assignment
    names = {a.keyword.value for a in extra if a.keyword}
    if len(args) == 3 and names <= STORE_KEYWORDS and m.works(TRITON_STORE):
        index = args[1].value
        if "mask" in names and positional(original)[1].value.deep_equals(index):
            index = index_arrays(m, positional(original)[1].value)
        ref = subscript(cst.Attribute(args[0].value, cst.Name("at")), index)
        func = attr(f"{m.alias_for(TRITON)}.store")
        return call.with_changes(func=func, args=[args[1].with_changes(value=ref), args[2], *extra])
    note(m, "store")
    return call
