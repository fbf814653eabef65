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
from dataclasses import dataclass

from pallas_compat.facts._table import PL, TRITON, Feature, Location
from pallas_compat.rules import _calls, removed_name
from pallas_compat.rules._arguments import Argument, arguments
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._load_store_calls import PARAMETERS, Bound, canonical
from pallas_compat.rules._rewrite import standalone, subscript
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, feature_name_use

RULE = Rule(
    "PAL301",
    "masked-load-store",
    "pl.load, pl.store or pl.swap, which left pl (masked: pltriton.load/store)",
    Fix.PARTLY,
    Example(
        before="""\
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    pl.store(o_ref, (pl.ds(0, 8),), pl.load(x_ref, (pl.ds(0, 8),)) + 1)
""",
        after="""\
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[pl.ds(0, 8)] = x_ref[pl.ds(0, 8)] + 1
""",
    ),
)
FEATURES = frozenset({"load", "store", "swap"})

TRITON_LOAD = Location(TRITON, "load")
TRITON_STORE = Location(TRITON, "store")
DSLICE = frozenset({f"{PL}.dslice", f"{PL}.ds"})
NEW_MASKED_ACCESS = frozenset({f"{TRITON}.load", f"{TRITON}.store"})
LOAD_KEYWORDS = frozenset({"mask", "other", "cache_modifier", "eviction_policy", "volatile"})
STORE_KEYWORDS = frozenset({"mask", "eviction_policy"})


def claims_feature(feature: Feature) -> bool:
    return feature.key in FEATURES


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | Finding | None:
    """The name; where it is called as ``pl.load``/``pl.store``, the call's fix notes what it
    could not rewrite (it knows why), else (``partial(f, pl.load)``) the name's own note."""
    use = feature_name_use(f, node, qname, FEATURES)
    if use is None or not isinstance(node, ast.Attribute) or id(node) in called(f):
        return use
    return Finding(use, node, lambda m: removed_name.note(m, qname))


def called(f: FindContext) -> set[int]:
    """The ids of the ``pl.load``/``pl.store`` names called (``find_call`` sees the call
    before its name)."""
    found: set[int] = f.state.setdefault(RULE.code, set())
    return found


def access_of(f: FindContext, call: ast.Call) -> str | None:
    """``load``, ``store`` or ``swap`` where the call is to the removed ``pl`` one."""
    return next((name for name in PARAMETERS if _calls.is_call_to(call, f, name)), None)


def find_call(f: FindContext, node: ast.Call) -> Finding | None:
    """The calls: the removed ``pl.load``/``pl.store``, and a masked ``pltriton.load``/
    ``store`` of a static slice (the uses are their names', ``find_name``'s)."""
    if f.qualified(node.func) & NEW_MASKED_ACCESS and _calls.keyword(node, "mask"):
        return Finding(None, node, lambda m: masked_view_as_indices(m, node))
    access = access_of(f, node)
    if access not in ("load", "store"):
        return None
    called(f).add(id(node.func))
    text = f.text
    bound = canonical(node, access, text)
    return Finding(None, node, Access(access, node, bound))


def find_expr(f: FindContext, node: ast.Expr) -> Finding | None:
    """``pl.store(ref, idx, v)`` / ``pl.swap(ref, idx, v)`` as a statement (in any spelling,
    no mask) -> ``ref[idx] = v``."""
    call = node.value
    if not isinstance(call, ast.Call) or access_of(f, call) not in ("store", "swap"):
        return None
    bound = canonical(call, "swap", f.text)
    if bound is None or bound.rest:
        return None
    access = access_of(f, call)
    return Finding(None, node, lambda m: as_write(m, node, access, bound))


def find_assign(f: FindContext, node: ast.Assign) -> Finding | None:
    """``old = pl.swap(ref, idx, v)`` (no mask) -> ``old = ref[idx]`` and ``ref[idx] = v``:
    the read, then the write, that swap was (``v`` is evaluated after the read; it could not
    see ``old``, which it binds)."""
    call = node.value
    if not isinstance(call, ast.Call) or access_of(f, call) != "swap":
        return None
    bound = canonical(call, "swap", f.text)
    if bound is None or bound.rest:
        return None
    return Finding(None, node, lambda m: as_read_and_write(m, node, bound))


def removed_here(m: FixContext, access: str) -> bool:
    return not m.works(Location(PL, access))


def note(m: FixContext, access: str) -> None:
    """What to write instead of a call no rewrite fits; where the target still has the name
    (deprecated), the note says so, as the name's own note does."""
    hit = m.table.drifted_names[f"{PL}.{access}"]
    fate = "is deprecated in" if m.works_in(hit.location.releases) else "is not in"
    m.mark(f"pl.{access} {fate} JAX {m.target}: {hit.hint}")


@dataclass(frozen=True)
class Access:
    """The fix of one ``pl.load``/``pl.store`` call: without a mask, indexing; with one,
    ``pltriton.load(ref.at[idx], mask=...)`` where the target has it; else a note."""

    access: str
    call: ast.Call
    bound: Bound | None

    def __call__(self, m: FixContext) -> bool | None:
        if not removed_here(m, self.access):
            return None
        if self.bound is None:
            note(m, self.access)
            return True
        if self.access == "load":
            load(m, self.call, self.bound)
        else:
            masked_store(m, self.call, self.bound)
        return True


def keyword_text(m: FixContext, argument: Argument) -> str:
    return m.current(argument.node)


def rebuilt(
    m: FixContext, call: ast.Call, function: str, first: str, bound: Bound, keep: int
) -> str:
    """``function(first, <the bound arguments from keep on>)`` in the call's layout: each
    argument followed by what followed it, the last by what followed the call's last."""
    text = m.edits.source
    found = arguments(call, text)
    opening = text.text[text.end(call.func) : found[0].start]
    parts = [(first, bound.leading[1])]
    parts += [(m.current(a.value), a) for a in bound.leading[keep:]]
    parts += [(keyword_text(m, a), a) for a in bound.rest]
    written = []
    for index, (value, argument) in enumerate(parts):
        after = (
            bound.closing
            if index == len(parts) - 1
            else text.text[argument.end : argument.slot_end]
        )
        if index < len(parts) - 1 and "," not in after:
            after = ", "
        written.append(value + after)
    return f"{function}{opening}{''.join(written)})"


def load(m: FixContext, call: ast.Call, bound: Bound) -> None:
    ref, idx = bound.leading[0].value, bound.leading[1].value
    names = {a.keyword for a in bound.rest}
    if len(bound.leading) == 2 and not bound.rest:
        m.replace(call, subscript(m, ref, idx))
        return
    if len(bound.leading) == 2 and names <= LOAD_KEYWORDS and m.works(TRITON_LOAD):
        index = index_arrays(m, idx) if "mask" in names and positional(call, 1) else None
        view = f"{standalone(m, ref)}.at[{index if index is not None else items(m, idx)}]"
        function = f"{m.alias_for(TRITON)}.load"
        m.replace(call, rebuilt(m, call, function, view, bound, 2))
        return
    note(m, "load")


def masked_store(m: FixContext, call: ast.Call, bound: Bound) -> None:
    if not bound.rest:
        return  # a statement: find_expr's fix makes it an assignment
    names = {a.keyword for a in bound.rest}
    if len(bound.leading) == 3 and names <= STORE_KEYWORDS and m.works(TRITON_STORE):
        ref, idx = bound.leading[0].value, bound.leading[1].value
        index = index_arrays(m, idx) if "mask" in names and positional(call, 1) else None
        view = f"{standalone(m, ref)}.at[{index if index is not None else items(m, idx)}]"
        function = f"{m.alias_for(TRITON)}.store"
        m.replace(call, rebuilt(m, call, function, view, bound, 2))
        return
    note(m, "store")


def positional(call: ast.Call, at: int) -> bool:
    """Is the call's argument ``at`` given by position?"""
    return len(_calls.positional(call)) > at


def items(m: FixContext, index: ast.expr) -> str:
    """What goes between the brackets of ``ref[...]``: a tuple literal's items, else it."""
    if (
        isinstance(index, ast.Tuple)
        and index.elts
        and not any(isinstance(e, ast.Starred) for e in index.elts)
    ):
        return ", ".join(m.current(e) for e in index.elts)
    return m.current(index)


def as_write(m: FixContext, statement: ast.Expr, access: str | None, bound: Bound) -> None:
    if access is None or not removed_here(m, access):
        return
    ref, idx, value = (a.value for a in bound.leading)
    m.unmark("pl.swap ")
    m.replace(statement, f"{subscript(m, ref, idx)} = {standalone(m, value)}")


def as_read_and_write(m: FixContext, statement: ast.Assign, bound: Bound) -> None:
    if not removed_here(m, "swap"):
        return
    ref, idx, value = (a.value for a in bound.leading)
    m.unmark("pl.swap ")
    text = m.edits.source
    indent = text.text[text.starts[statement.lineno - 1] : text.start(statement)]
    write = f"{subscript(m, ref, idx)} = {standalone(m, value)}"
    m.replace(statement.value, subscript(m, ref, idx))
    m.edits.insert(text.end(statement), f"\n{indent}{write}")


def index_arrays(m: FixContext, idx: ast.expr) -> str | None:
    """A masked access's ``(pl.dslice(s, n), ...)`` with literal starts as index arrays
    ``s + jnp.arange(n)`` (an outer grid when there are several): the form newer JAX takes for
    a block that may overhang the array (from 0.12 it refuses a static slice past the end
    before the mask applies; a dynamic start is never checked, so it stays). Scalar indices are
    kept; anything else: None (the index as it was)."""
    read = m.reading.qualified
    values = list(idx.elts) if isinstance(idx, ast.Tuple) else [idx]
    if any(isinstance(v, ast.Starred) for v in values):
        return None
    parts: list[tuple[str, bool]] = []
    for value in values:
        if isinstance(value, ast.Call) and read(value.func) & DSLICE:
            if len(value.args) != 2 or value.keywords:
                return None
            start, size = value.args
            if not (isinstance(start, ast.Constant) and type(start.value) is int):
                return None
            first, count = m.current(start), m.current(size)
            arange = f"{m.alias_for('jax.numpy')}.arange({count})"
            parts.append((arange if first == "0" else f"{first} + {arange}", True))
        elif (isinstance(value, ast.Constant) and type(value.value) is int) or (
            isinstance(value, ast.Name) and value.id not in ("None", "Ellipsis")
        ):
            parts.append((m.current(value), False))
        else:
            return None
    arrays = sum(is_array for _, is_array in parts)
    names = any(not is_array and not text.isdigit() for text, is_array in parts)
    if not arrays or (arrays > 1 and names):  # a name may hold a slice: no outer grid then
        return None
    texts, axis = [], 0
    for text, is_array in parts:
        if is_array and arrays > 1:
            grid = ", ".join(":" if i == axis else "None" for i in range(arrays))
            text = f"({text})[{grid}]"
        axis += is_array
        texts.append(text)
    return ", ".join(texts)


def masked_view_as_indices(m: FixContext, call: ast.Call) -> None:
    """``pltriton.load(x_ref.at[pl.ds(0, n)], mask=...)`` (JAX's own kernels to 0.11) ->
    ``x_ref.at[jnp.arange(n)]``, which 0.12 takes when the block overhangs."""
    view = call.args[0] if call.args else None
    if not (
        isinstance(view, ast.Subscript)
        and isinstance(view.value, ast.Attribute)
        and view.value.attr == "at"
    ):
        return
    index = index_arrays(m, view.slice)
    if index is None:
        return
    m.replace(view, f"{m.current(view.value)}[{index}]")
