"""PAL303 cost-analysis-index: ``compiled.cost_analysis()[0]``, the list JAX returned up to
0.4.38 (one dict from 0.5.0).

Only the two provable forms are found and rewritten (``_cost_analysis_index.py``): the call indexed
at once, and a name bound once in the same function from the call.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import (
    COST_ANALYSIS_DICT_SINCE,
    COST_ANALYSIS_HINT,
    COST_ANALYSIS_INDEX,
    cost_analysis_index_releases,
    scanned_releases,
)
from pallas_compat.rules import _cost_analysis_index
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import use_at

RULE = Rule(
    "PAL303",
    "cost-analysis-index",
    f"{COST_ANALYSIS_INDEX}: one dict, not a list, from JAX {COST_ANALYSIS_DICT_SINCE}",
    Fix.REWRITES,
    Example(
        before="""\
def flops(compiled):
    return compiled.cost_analysis()[0]["flops"]
""",
        after="""\
def flops(compiled):
    return compiled.cost_analysis()["flops"]
""",
    ),
)


def enter_function(f: FindContext, node: ast.FunctionDef) -> None:
    f.state.setdefault(RULE.code, [None]).append(node)


def leave_function(f: FindContext, node: ast.FunctionDef) -> None:
    f.state[RULE.code].pop()


def find_subscript(f: FindContext, node: ast.Subscript) -> Finding | None:
    """The names bound from ``cost_analysis()`` are read only for a ``name[0]`` (most
    functions have none)."""
    function = f.state.setdefault(RULE.code, [None])[-1]
    bound: set[str] = set()
    if isinstance(node.value, ast.Name) and function is not None:
        kept = f.memo.setdefault(RULE.code, {})
        if id(function) not in kept:
            kept[id(function)] = _cost_analysis_index.bound_in(function)
        bound = kept[id(function)]
    if not _cost_analysis_index.is_old_index(node, bound):
        return None
    works = cost_analysis_index_releases(scanned_releases())
    use = use_at(f, node, COST_ANALYSIS_INDEX, works, COST_ANALYSIS_HINT)
    return Finding(use, node, lambda m: unindexed(m, node))


def unindexed(m: FixContext, node: ast.Subscript) -> None:
    """``X.cost_analysis()[0]`` -> ``X.cost_analysis()``; ``cost[0]`` -> ``cost``."""
    if m.since(COST_ANALYSIS_DICT_SINCE):
        m.replace(node, m.current(node.value))
